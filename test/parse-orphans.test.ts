// No process of a SIGKILLed server survives it: its parse children and the tesseract runs they started
// exit at once, instead of running on under PID 1 (src/ingest/isolation/parse-child.ts). The server is
// the real one (`src/main.ts` as a child process, SQLite); a stand-in tesseract that never finishes a
// page keeps a run going at the moment of the kill.
// Runs alone: kills the server and waits for its parse children to end.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NodeProcess } from './helpers/node-process.ts';
import { freePort } from './jobs-helpers.ts';
import { seedModelCache } from './helpers/server.ts';
import { api, dataPath, ingestFile } from './helpers/api.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Reports English data, then hangs on every page as a slow OCR run would (its `sleep` is a process too). */
const HANGING_TESSERACT = `#!/bin/sh
if [ "$1" = "--list-langs" ]; then printf 'List of available languages in "/fake/" (2):\\neng\\nosd\\n'; exit 0; fi
sleep 300
`;

interface Proc { pid: number; state: string; ppid: number; pgrp: number; cmd: string }

/** Every live (not zombie) process, from /proc. */
function processes(): Proc[] {
  const out: Proc[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // after "pid (comm) "
      const cmd = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
      if (f[0] !== 'Z') out.push({ pid: Number(name), state: f[0], ppid: Number(f[1]), pgrp: Number(f[2]), cmd });
    } catch { /* gone meanwhile */ }
  }
  return out;
}

/** The server's parse children and every process of their groups (tesseract runs and what those started). */
function parseProcesses(serverPid: number): Proc[] {
  const all = processes();
  const children = all.filter((p) => p.ppid === serverPid && p.cmd.includes('parse-child'));
  const groups = new Set(children.map((c) => c.pid));
  return all.filter((p) => groups.has(p.pgrp) || groups.has(p.pid));
}

test('kill -9 of the server: its parse children and their tesseract runs are gone within seconds', { timeout: 300_000 }, async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docsearch-orphans-'));
  const bin = path.join(dataDir, 'tesseract');
  fs.writeFileSync(bin, HANGING_TESSERACT, { mode: 0o755 });
  seedModelCache(dataDir);
  const accountKey = 'svc_acc_' + crypto.randomBytes(24).toString('base64url');
  const logDir = path.join(dataDir, 'logs');
  fs.mkdirSync(logDir);
  const server = new NodeProcess('server', 'all', {
    DOCSEARCH_DATA_DIR: dataDir, DOCSEARCH_BOOTSTRAP_ACCOUNT_KEY: accountKey,
    DOCSEARCH_SECRET: crypto.randomBytes(32).toString('base64url'), DOCSEARCH_WORKER_POLL_MS: '50',
    DOCSEARCH_TESSERACT_BIN: bin,
  }, await freePort(), logDir);
  let left: Proc[] = [];
  try {
    await server.start();
    const project = await api(server.origin, accountKey, 'POST', '/v3/projects', { name: 'orphans', product: 'docsearch' });
    assert.equal(project.status, 201, JSON.stringify(project.body));
    const key = (project.body as { api_key: string }).api_key;
    const r = await ingestFile(server.origin, key, dataPath('docs', 'img', 'tika_testOCR.png'));
    assert.equal(r.status, 201, JSON.stringify(r.body));

    // Wait until a parse child has an OCR run going: the stand-in and the `sleep` it started.
    const hanging = (ps: Proc[]) => ps.some((p) => p.cmd.includes(bin) && !p.cmd.includes('--list-langs')) && ps.some((p) => p.cmd === 'sleep 300');
    let running: Proc[] = [];
    for (const deadline = Date.now() + 120_000; Date.now() < deadline && !hanging(running); await sleep(100)) running = parseProcesses(server.pid);
    assert.ok(hanging(running), `no tesseract run under the parse children: ${JSON.stringify(running)}\n${server.tail()}`);
    t.diagnostic(`at the kill: ${running.map((p) => `${p.pid} ${p.cmd.slice(0, 60)}`).join('; ')}`);

    await server.kill('SIGKILL');
    const pids = new Set(running.map((p) => p.pid));
    for (const deadline = Date.now() + 5_000; Date.now() < deadline; await sleep(100)) {
      left = processes().filter((p) => pids.has(p.pid));
      if (left.length === 0) break;
    }
    assert.deepEqual(left.map((p) => `${p.pid} ${p.cmd}`), [], 'processes of the killed server still running 5 s after the kill');
  } finally {
    await server.kill('SIGKILL');
    for (const p of left) { try { process.kill(p.pid, 'SIGKILL'); } catch { /* gone */ } }
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
