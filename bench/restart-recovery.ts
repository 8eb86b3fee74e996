// Restart after SIGKILL on a realistically sized data directory: how long until the server listens,
// answers /readyz and answers a search in each namespace, where its start-up time goes (the
// `startup phase` lines the server logs at info level), and how long the recovery behind it takes
// (interrupted deletes and orphan chunks reconciled, the jobs the kill left pending or processing
// finished). Set-up writes P projects of D synthetic documents (C chunks each, SciFact sentences,
// bench/lib/synthetic.ts) once into a kept data directory; each trial then uploads U small files per
// project and deletes documents, SIGKILLs the real server (`node --import tsx src/main.ts`)
// while those run, and restarts it. The first start (after set-up, no kill) is reported as "clean".
// Run: nice -n 10 npx tsx bench/restart-recovery.ts [--keep DIR] [--projects 6] [--docs 2000]
//      [--chunks 8] [--trials 3] [--uploads 40] [--deletes 3] [--load-ms 4000] [--settle-s 120]
// (--deletes: document deletes per project sent at once before each kill; those still running are
// left half done, 'deleting', for recovery to finish)
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openSqlite } from '../src/storage/sqlite-binding.ts';
import { createBenchProject, startBenchApp } from './lib/bench-app.ts';
import { writeSyntheticCorpus } from './lib/synthetic.ts';
import { repoRoot } from './lib/beir.ts';
import { freePort } from '../test/jobs-helpers.ts';

const argv = process.argv.slice(2);
const opt = (name: string, dflt: number) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : dflt);
const keep = argv.includes('--keep') ? path.resolve(argv[argv.indexOf('--keep') + 1]) : undefined;
const P = opt('--projects', 6);
const D = opt('--docs', 2000);
const C = opt('--chunks', 8);
const TRIALS = opt('--trials', 3);
const UPLOADS = opt('--uploads', 40);
const LOAD_MS = opt('--load-ms', 4000);
const DELETES = opt('--deletes', 3);
const SETTLE_MS = opt('--settle-s', 120) * 1000;
const DOCS = path.resolve(repoRoot, '../shared/data/docs');
const FILES = ['md/wiki.md', 'md/nested.md', 'txt/norwich-city.txt', 'html/example_01.html', 'txt/eng_afr_spa.txt'];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Project { projectId: string; apiKey: string; namespace: string }
interface Kept { accountKey: string; secret: string; projects: Project[]; docs?: number; chunks?: number }

/** Build the data directory once (or reuse a kept one). */
async function setUp(): Promise<{ dataDir: string; kept: Kept }> {
  const dir = keep ?? fs.mkdtempSync(path.join(os.tmpdir(), 'docsearch-restart-'));
  const file = path.join(dir, 'bench-restart.json');
  if (fs.existsSync(file)) return { dataDir: dir, kept: JSON.parse(fs.readFileSync(file, 'utf8')) as Kept };
  const t0 = Date.now();
  const app = await startBenchApp({ keepDir: dir });
  const projects: Project[] = [];
  for (let p = 0; p < P; p++) {
    const project = await createBenchProject(app, `restart-${p}`);
    const s = app.handle.services;
    await writeSyntheticCorpus({ cp: s.cp, index: s.index, embedder: s.embedder, projectId: project.projectId, namespace: project.namespace },
      { docs: D, chunksPerDoc: C, chunksPerSection: 4, seed: 100 + p });
    await s.index.optimize(project.namespace);
    projects.push(project);
    console.error(`set-up: project ${p + 1}/${P} written (${D} documents, ${D * C} chunks), ${Math.round((Date.now() - t0) / 1000)} s`);
  }
  const state = JSON.parse(fs.readFileSync(path.join(dir, 'bench-app.json'), 'utf8')) as { accountKey: string; secret: string };
  await app.close();
  const kept: Kept = { ...state, projects, docs: D, chunks: C };
  fs.writeFileSync(file, JSON.stringify(kept));
  return { dataDir: dir, kept };
}

interface StartResult {
  listenMs: number;
  readyMs: number;
  /** Per project: spawn to its first search answered 200. */
  searchMs: number[];
  phases: Record<string, number>;
  /** Spawn to /readyz reporting recovery no longer running (-1: not within --settle-s; at /readyz when start-up did it). */
  recoveryMs: number;
  /** Spawn to no ingest job pending or processing (capped at --settle-s). */
  jobsSettledMs: number;
  jobsAtStart: number;
  /** Documents left half deleted by the kill. */
  deletingAtStart: number;
}

function countRows(dataDir: string, query: string): number {
  const db = openSqlite(path.join(dataDir, 'control.sqlite'), { readonly: true });
  try {
    return (db.prepare(query).get() as { n: number }).n;
  } finally {
    db.close();
  }
}
const jobsOpen = (dataDir: string) => countRows(dataDir, `select count(*) as n from jobs where kind = 'ingest' and status in ('pending', 'processing')`);
const deletingDocs = (dataDir: string) => countRows(dataDir, `select count(*) as n from documents where state = 'deleting'`);

async function startServer(dataDir: string, kept: Kept, port: number, logFile: string): Promise<{ child: ChildProcess; result: StartResult }> {
  fs.writeFileSync(logFile, '');
  const jobsAtStart = jobsOpen(dataDir);
  const deletingAtStart = deletingDocs(dataDir);
  const fd = fs.openSync(logFile, 'a');
  const t0 = Date.now();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: repoRoot, stdio: ['ignore', fd, fd],
    env: { ...process.env, DOCSEARCH_DATA_DIR: dataDir, DOCSEARCH_SECRET: kept.secret, DOCSEARCH_BOOTSTRAP_ACCOUNT_KEY: kept.accountKey,
      PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', LANCEDB_LOG: 'error', DOCSEARCH_RATE_LIMIT_SEARCH_PER_MIN: '0',
      DOCSEARCH_RATE_LIMIT_IP_PER_MIN: '0', DOCSEARCH_RATE_LIMIT_INGEST_PER_MIN: '0', DOCSEARCH_MAX_INFLIGHT_INGESTS_PER_PROJECT: '0' },
  });
  fs.closeSync(fd);
  const origin = `http://127.0.0.1:${port}`;
  let listenMs = -1;
  let readyMs = -1;
  const searchMs = kept.projects.map(() => -1);
  const deadline = t0 + 300_000;
  const search = (p: Project) => fetch(`${origin}/v3/docsearch/search`, {
    method: 'POST', headers: { authorization: `Bearer ${p.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: 'cell proliferation in tumour growth', format: 'json' }),
  });
  while ((readyMs < 0 || searchMs.some((s) => s < 0)) && Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited:\n${fs.readFileSync(logFile, 'utf8').slice(-2000)}`);
    try {
      const r = await fetch(`${origin}/healthz`);
      if (r.ok && listenMs < 0) listenMs = Date.now() - t0;
      if (readyMs < 0 && (await fetch(`${origin}/readyz`)).status === 200) readyMs = Date.now() - t0;
      await Promise.all(kept.projects.map(async (p, i) => {
        if (searchMs[i] >= 0) return;
        const res = await search(p);
        await res.arrayBuffer();
        if (res.status === 200) searchMs[i] = Date.now() - t0;
      }));
    } catch { /* not listening yet */ }
    await sleep(25);
  }
  // Until the jobs are done and recovery has ended (/readyz reports it), at most --settle-s.
  let jobsSettledMs = -1;
  let recoveryMs = -1;
  while (Date.now() - t0 < SETTLE_MS && (jobsSettledMs < 0 || recoveryMs < 0)) {
    if (jobsSettledMs < 0 && jobsOpen(dataDir) === 0) jobsSettledMs = Date.now() - t0;
    const recovery = ((await (await fetch(`${origin}/readyz`)).json()) as { recovery?: { status: string } }).recovery;
    if (recoveryMs < 0 && recovery?.status !== 'running') recoveryMs = Date.now() - t0;
    await sleep(200);
  }
  const log = fs.readFileSync(logFile, 'utf8').split('\n').filter(Boolean).map((l) => { try { return JSON.parse(l) as Record<string, unknown>; } catch { return {}; } });
  const phases: Record<string, number> = {};
  for (const l of log) if (l.msg === 'startup phase') phases[String(l.phase)] = Number(l.ms);
  const started = log.find((l) => l.msg === 'docsearch started');
  if (started) phases.modules = Number(started.modules_ms);
  return { child, result: { listenMs, readyMs, searchMs, phases, recoveryMs, jobsSettledMs, jobsAtStart, deletingAtStart } };
}

/** Uploads and deletes in every project, then SIGKILL while they run. */
async function loadAndKill(child: ChildProcess, origin: string, kept: Kept, trial: number): Promise<void> {
  const files = FILES.map((f) => [path.basename(f), fs.readFileSync(path.join(DOCS, f))] as const);
  const ops: Array<Promise<unknown>> = [];
  for (const p of kept.projects) {
    const auth = { authorization: `Bearer ${p.apiKey}` };
    for (let u = 0; u < UPLOADS; u++) {
      const [name, data] = files[u % files.length];
      ops.push(fetch(`${origin}/v3/docsearch/ingest`, { method: 'POST', body: data,
        headers: { ...auth, 'content-type': 'application/octet-stream', 'content-disposition': `attachment; filename="${trial}-${u}-${name}"` } }).catch(() => undefined));
    }
    for (let d = 0; d < DELETES; d++) {
      const doc = `syn-${String(trial * DELETES + d).padStart(6, '0')}`;
      ops.push(fetch(`${origin}/v3/docsearch/docs/${doc}`, { method: 'DELETE', headers: auth }).catch(() => undefined));
    }
  }
  await sleep(LOAD_MS);
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await gone;
  await Promise.allSettled(ops);
}

const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? -1; };

const { dataDir, kept } = await setUp();
const port = await freePort();
const origin = `http://127.0.0.1:${port}`;
const logFile = path.join(dataDir, 'server.log');
const rows: Array<{ start: string } & StartResult> = [];
let { child, result } = await startServer(dataDir, kept, port, logFile);
rows.push({ start: 'clean', ...result });
console.error(`clean: ${JSON.stringify(result)}`);
for (let t = 1; t <= TRIALS; t++) {
  await loadAndKill(child, origin, kept, t);
  ({ child, result } = await startServer(dataDir, kept, port, logFile));
  rows.push({ start: `kill ${t}`, ...result });
  console.error(`kill ${t}: ${JSON.stringify(result)}`);
}
const gone = new Promise((r) => child.once('exit', r));
child.kill('SIGTERM');
await gone;

const phaseNames = [...new Set(rows.flatMap((r) => Object.keys(r.phases)))];
console.log(`data: ${kept.projects.length} projects × ${kept.docs ?? D} documents × ${kept.chunks ?? C} chunks; ${UPLOADS} uploads per project and ${DELETES} deletes before each kill (${LOAD_MS} ms of load)`);
console.log(`| start | jobs open | deleting | listen ms | /readyz ms | search p50/max ms | recovery done ms | jobs settled ms | ${phaseNames.join(' | ')} |`);
console.log(`|---|---|---|---|---|---|---|---|${phaseNames.map(() => '---|').join('')}`);
for (const r of rows) {
  console.log(`| ${r.start} | ${r.jobsAtStart} | ${r.deletingAtStart} | ${r.listenMs} | ${r.readyMs} | ${pct(r.searchMs, 0.5)}/${Math.max(...r.searchMs)} | ${r.recoveryMs} | ${r.jobsSettledMs} | ${phaseNames.map((n) => r.phases[n] ?? '—').join(' | ')} |`);
}
const out = path.join(repoRoot, 'bench', 'results', `restart-recovery-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, JSON.stringify({ projects: kept.projects.length, docs: kept.docs ?? D, chunks: kept.chunks ?? C, uploads: UPLOADS, deletes: DELETES, loadMs: LOAD_MS, rows }, null, 2) + '\n');
if (!keep) fs.rmSync(dataDir, { recursive: true, force: true });
