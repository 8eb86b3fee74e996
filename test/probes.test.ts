// Health and readiness per role: /readyz names the process's role and probes each of
// its dependencies; a worker process (`npm start` with DOCSEARCH_ROLE=worker) serves no API but answers
// /healthz, /readyz and /metrics on DOCSEARCH_PROBE_PORT.
// Runs alone: signals the server and times its shutdown.
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { startTestServer, repoRoot, type TestServer } from './helpers/start-test-server.ts';
import { api } from './helpers/api.ts';

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

describe('readiness per role', () => {
  let server: TestServer | undefined;
  after(async () => server?.close());

  test('role api reports the database, the local blob directory and the local index', async () => {
    server = await startTestServer({ workers: false, env: { DOCSEARCH_ROLE: 'api' } });
    const r = await api(server.baseUrl, undefined, 'GET', '/readyz');
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const body = r.body as { role: string; checks: Record<string, { status: string; location?: string }> };
    assert.equal(body.role, 'api');
    assert.deepEqual(Object.keys(body.checks).sort(), ['blob_store', 'database', 'index']);
    assert.equal(body.checks.blob_store.location, path.join(server.dataDir, 'blobs'));
    assert.equal(body.checks.index.location, path.join(server.dataDir, 'lance'));
    assert.equal(body.checks.database.location, undefined, 'the database URL (credentials) is never shown');
  });
});

describe('a worker process answers probes on DOCSEARCH_PROBE_PORT', () => {
  let child: ChildProcess | undefined;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docsearch-probe-'));
  after(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child!.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('probe routes answer, the API does not, and SIGTERM ends the process', async () => {
    const [probePort, apiPort] = [await freePort(), await freePort()];
    // The builtin embedder's converted vectors, when an earlier test built them (helpers/server.ts): saves ~20 s.
    const glove = path.join(repoRoot, '.tmp', 'test-cache', 'models', 'glove-100d.int8.bin');
    if (fs.existsSync(glove)) {
      fs.mkdirSync(path.join(dataDir, 'models'), { recursive: true });
      fs.symlinkSync(glove, path.join(dataDir, 'models', path.basename(glove)));
    }
    let log = '';
    child = spawn(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'src', 'main.ts')], {
      cwd: repoRoot,
      env: {
        ...process.env, DOCSEARCH_ROLE: 'worker', DOCSEARCH_PROBE_PORT: String(probePort), PORT: String(apiPort), HOST: '127.0.0.1',
        DOCSEARCH_DATA_DIR: dataDir, DOCSEARCH_SECRET: crypto.randomBytes(32).toString('base64url'), LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (c: Buffer) => { log += c.toString(); });
    child.stderr!.on('data', (c: Buffer) => { log += c.toString(); });
    const origin = `http://127.0.0.1:${probePort}`;
    let ready: Awaited<ReturnType<typeof api>> | undefined;
    for (let i = 0; i < 600 && child.exitCode === null; i++) {
      ready = await api(origin, undefined, 'GET', '/readyz').catch(() => undefined);
      if (ready) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(ready, `worker never answered on its probe port; log:\n${log.slice(-2000)}`);
    assert.equal(ready.status, 200, JSON.stringify(ready.body));
    const body = ready.body as { status: string; role: string; checks: Record<string, { status: string }> };
    assert.equal(body.role, 'worker');
    assert.deepEqual(Object.keys(body.checks).sort(), ['blob_store', 'database', 'index']);
    assert.equal((await api(origin, undefined, 'GET', '/healthz')).status, 200);
    const metrics = await fetch(`${origin}/metrics`);
    assert.equal(metrics.status, 200);
    assert.match(await metrics.text(), /^# HELP /m);
    const notApi = await api(origin, undefined, 'GET', '/v3/projects');
    assert.equal(notApi.status, 404);
    assert.equal((notApi.body as { code: string }).code, 'not_found');
    await assert.rejects(fetch(`http://127.0.0.1:${apiPort}/healthz`), 'a worker does not listen on PORT');
    const exited = new Promise<number | null>((r) => child!.once('exit', (code) => r(code)));
    child.kill('SIGTERM');
    assert.equal(await exited, 0, log.slice(-2000));
  });
});
