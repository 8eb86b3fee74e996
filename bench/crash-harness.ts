// SIGKILL crash harness, shared by test/crash-sigkill.test.ts (bounded time) and
// bench/crash-sigkill.ts (many iterations). It runs the real server as a child process
// (`node --import tsx src/main.ts`, SQLite + LanceDB in a temp data dir), fires a random mix of ingests
// (with X-Completion webhooks and Idempotency-Key pairs), document deletes, job cancels and status polls,
// SIGKILLs the server at a random moment, restarts it, waits until no job is pending or processing, and
// checks the invariants in crash-checks.ts. The same data dir carries over between iterations. Options
// add a PostgreSQL control plane (`databaseUrl`) and a share of heavy files (an 8 MB unbroken text, a
// zip-bomb DOCX, a 1,500-page PDF) mixed into the ingests (bench/crash-trials.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkInvariants, type HarnessState } from './crash-checks.ts';
import { withControlReader } from './crash-db.ts';
import { manyPagePdf, zipBombDocx } from '../test/helpers/pathological-files.ts';
import { freePort } from '../test/jobs-helpers.ts';
import { startCrashReceiver, type CrashReceiver } from './crash-receiver.ts';
// mulberry32, seeded so a failing run can be replayed with its seed.
import { rng as prng } from './lib/random.ts';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DOCS = path.resolve(repoRoot, '../shared/data/docs');
const FILES = ['md/wiki.md', 'md/nested.md', 'md/codeblock.md', 'md/simple-table.md', 'txt/eng_afr_spa.txt', 'txt/norwich-city.txt',
  'html/example_01.html', 'html/eng_spa_mult.html', 'html/example-10k-1p.html', 'txt/UDHR_first_article_all.txt'];

export interface CrashOptions {
  /** Stop starting iterations after this much wall time, ms. */
  budgetMs: number;
  /** Upper bound of iterations (kill + restart cycles). */
  maxIterations?: number;
  seed?: number;
  leaseMs?: number;
  log?: (line: string) => void;
  /** PostgreSQL control plane for the server (a fresh database); unset = SQLite in the data dir. */
  databaseUrl?: string;
  /** Share of operations that ingest a heavy file (0..1; default 0). */
  heavyShare?: number;
  /**
   * Longest wait after a restart for every job to end and recovery to finish, ms (default 90 000); a heavy
   * file (25,000 chunks of an 8 MB text) on a loaded machine needs more. Past it, unfinished jobs count as violations.
   */
  settleTimeoutMs?: number;
  /** Longest wait for a (re)start's /readyz, ms (default 120 000; a loaded 2-core machine needs more). */
  startTimeoutMs?: number;
  /** Called after each iteration's checks with the report so far (running totals of a long run). */
  onIteration?: (partial: CrashReport) => void;
}

export interface CrashReport {
  seed: number;
  iterations: number;
  durationMs: number;
  restartMs: number[];
  jobsCreated: number;
  jobsDone: number;
  jobsFailed: number;
  cancels: number;
  docDeletes: number;
  idempotentPairs: number;
  atKill: { pending: number; processing: number; deleting: number };
  webhookEvents: number;
  /** Per iteration: ms from the restart's /readyz until no job was pending or processing. */
  settleMs: number[];
  heavyIngests: number;
  violations: string[];
}

/** Heavy inputs, made once per process: [filename, bytes]. */
let heavyFiles: Promise<Array<[string, Buffer]>> | undefined;
function heavy(): Promise<Array<[string, Buffer]>> {
  heavyFiles ??= (async () => {
    const letters = 'ACGT';
    const seq = Buffer.alloc(8 * 1024 * 1024);
    for (let i = 0; i < seq.length; i++) seq[i] = letters.charCodeAt((i * 7919 + (i >> 5)) % 4);
    return [['sequence.txt', seq], ['bomb.docx', await zipBombDocx(600)], ['long.pdf', manyPagePdf(1500)]];
  })();
  return heavyFiles;
}

/** Ingest jobs by status, from the server's control plane. */
async function ingestCounts(dataDir: string, databaseUrl?: string): Promise<Array<{ status: string; n: number }>> {
  return withControlReader(dataDir, databaseUrl, (r) => r.all(`select status, count(*) as n from jobs where kind = 'ingest' group by status`));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A fresh data directory under the system temp dir, with the test suite's cached embedder model linked in
 * when there is one (building it costs a server start-up several seconds).
 */
export function crashDataDir(prefix: string): string {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const glove = path.join(repoRoot, '.tmp', 'test-cache', 'models', 'glove-100d.int8.bin');
  if (fs.existsSync(glove)) {
    fs.mkdirSync(path.join(dataDir, 'models'), { recursive: true });
    fs.symlinkSync(glove, path.join(dataDir, 'models', 'glove-100d.int8.bin'));
  }
  return dataDir;
}

/** The real server as a child process (`node --import tsx src/main.ts`) that a harness can SIGKILL and restart. */
export class ServerProcess {
  proc?: ChildProcess;
  constructor(private readonly env: Record<string, string>, private readonly logFile: string, private readonly origin: string) {}

  /** Spawn and wait for /readyz (at most `timeoutMs`). @returns start-up time, ms */
  async start(timeoutMs = 120_000): Promise<number> {
    const t0 = Date.now();
    const fd = fs.openSync(this.logFile, 'a');
    this.proc = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: repoRoot, env: { ...process.env, ...this.env }, stdio: ['ignore', fd, fd] });
    fs.closeSync(fd);
    let exited = false;
    this.proc.once('exit', () => { exited = true; });
    while (Date.now() - t0 < timeoutMs) {
      if (exited) throw new Error(`server exited during start-up:\n${fs.readFileSync(this.logFile, 'utf8').slice(-3000)}`);
      try {
        if ((await fetch(`${this.origin}/readyz`)).status === 200) return Date.now() - t0;
      } catch { /* not listening yet */ }
      await sleep(50);
    }
    throw new Error(`server did not become ready within ${timeoutMs / 1000} s`);
  }

  async kill(signal: NodeJS.Signals): Promise<void> {
    const p = this.proc;
    if (!p || p.exitCode !== null || p.signalCode !== null) return;
    const gone = new Promise((r) => p.once('exit', r));
    p.kill(signal);
    await gone;
  }
}

/**
 * Run the scenario.
 * @returns the report; `violations` lists every broken invariant (empty when all held)
 */
export async function runCrashScenario(opts: CrashOptions): Promise<CrashReport> {
  const seed = opts.seed ?? crypto.randomInt(1, 2 ** 31);
  const rand = prng(seed);
  const log = opts.log ?? (() => undefined);
  const t0 = Date.now();
  const dataDir = crashDataDir('docsearch-crash-');
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const accountKey = 'svc_acc_' + crypto.randomBytes(24).toString('base64url');
  const receiver: CrashReceiver = await startCrashReceiver(DOCS);
  const server = new ServerProcess({
    DOCSEARCH_DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', DOCSEARCH_BOOTSTRAP_ACCOUNT_KEY: accountKey,
    DOCSEARCH_ALLOWED_PRIVATE_HOSTS: '127.0.0.1', DOCSEARCH_JOB_LEASE_MS: String(opts.leaseMs ?? 2000),
    DOCSEARCH_WORKER_POLL_MS: '50', DOCSEARCH_WEBHOOK_RETRY_BASE_MS: '200', LOG_LEVEL: 'warn', LANCEDB_LOG: 'error',
    ...(opts.databaseUrl ? { DOCSEARCH_DATABASE_URL: opts.databaseUrl } : {}),
  }, path.join(dataDir, 'server.log'), origin);
  const report: CrashReport = { seed, iterations: 0, durationMs: 0, restartMs: [], jobsCreated: 0, jobsDone: 0, jobsFailed: 0, cancels: 0,
    docDeletes: 0, idempotentPairs: 0, atKill: { pending: 0, processing: 0, deleting: 0 }, webhookEvents: 0, settleMs: [], heavyIngests: 0, violations: [] };
  const heavyInputs = (opts.heavyShare ?? 0) > 0 ? await heavy() : [];
  try {
    report.restartMs.push(await server.start(opts.startTimeoutMs));
    const created = await fetch(`${origin}/v3/projects`, { method: 'POST', headers: { authorization: `Bearer ${accountKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'crash', product: 'docsearch', protected: false }) });
    const project = await created.json() as { id: string; api_key: string; namespace: string };
    const state: HarnessState = {
      origin, key: project.api_key, namespace: project.namespace, dataDir, receiver,
      jobs: new Map(), docsDeleted: new Set(), docsDeleteUncertain: new Set(), recordsDeleted: new Set(), idempotencyMismatches: [],
      databaseUrl: opts.databaseUrl,
    };
    const auth = { authorization: `Bearer ${state.key}` };
    const call = async (method: string, p: string, headers: Record<string, string> = {}, body?: Buffer) => {
      const res = await fetch(origin + p, { method, headers: { ...auth, ...headers }, body: body as unknown as BodyInit | undefined });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    };

    const ingest = async (file: string, extra: Record<string, string> = {}) => {
      const remote = rand() < 0.08;
      const headers: Record<string, string> = { 'x-completion': JSON.stringify({ url: receiver.url('/hook') }), ...extra };
      const r = remote
        ? await call('POST', '/v3/docsearch/ingest', { ...headers, 'x-remote-url': receiver.url(rand() < 0.5 ? '/files/missing.txt' : `/files/${file}`) })
        : await call('POST', '/v3/docsearch/ingest', { ...headers, 'content-type': 'application/octet-stream', 'content-disposition': `attachment; filename="${path.basename(file)}"` }, fs.readFileSync(path.join(DOCS, file)));
      if (r.status === 201) {
        state.jobs.set(r.body.job_id, { id: r.body.job_id });
        return r.body.job_id as string;
      }
      return undefined;
    };
    const ops: Array<[number, () => Promise<void>]> = [
      [0.45, async () => { await ingest(FILES[Math.floor(rand() * FILES.length)]); }],
      [0.12, async () => {
        const k = { 'idempotency-key': crypto.randomUUID() };
        const f = FILES[Math.floor(rand() * FILES.length)];
        report.idempotentPairs++;
        const [a, b] = await Promise.all([ingest(f, k), ingest(f, k)]);
        if (a && b && a !== b) state.idempotencyMismatches.push(`${a} != ${b}`);
      }],
      [0.15, async () => {
        const done = [...state.jobs.values()].filter((j) => j.observedDoc && !state.docsDeleted.has(j.observedDoc) && !state.docsDeleteUncertain.has(j.observedDoc));
        if (!done.length) return;
        const doc = done[Math.floor(rand() * done.length)].observedDoc!;
        state.docsDeleteUncertain.add(doc);
        const r = await call('DELETE', `/v3/docsearch/docs/${doc}`);
        report.docDeletes++;
        if (r.status === 200) { state.docsDeleted.add(doc); state.docsDeleteUncertain.delete(doc); }
      }],
      [0.13, async () => {
        const ids = [...state.jobs.keys()].filter((id) => !state.recordsDeleted.has(id));
        if (!ids.length) return;
        const id = ids[Math.floor(rand() * ids.length)];
        const j = state.jobs.get(id)!;
        j.cancelUncertain = true;
        const r = await call('DELETE', `/v3/jobs/${id}`);
        report.cancels++;
        if (r.status === 200) {
          j.cancelUncertain = false;
          if (r.body.result === 'record_deleted') state.recordsDeleted.add(id);
          else j.cancelled = true;
        }
      }],
      [0.15, async () => {
        for (const j of state.jobs.values()) {
          if (j.observedDoc || state.recordsDeleted.has(j.id)) continue;
          const r = await call('GET', `/v3/jobs/${j.id}/status`);
          if (r.status === 200 && r.body.status === 'done') j.observedDoc = r.body.doc_id;
        }
      }],
    ];
    const heavyOp = async () => {
      const [name, data] = heavyInputs[Math.floor(rand() * heavyInputs.length)];
      const r = await call('POST', '/v3/docsearch/ingest', { 'x-completion': JSON.stringify({ url: receiver.url('/hook') }),
        'content-type': 'application/octet-stream', 'content-disposition': `attachment; filename="${name}"` }, data);
      report.heavyIngests++;
      if (r.status === 201) state.jobs.set(r.body.job_id, { id: r.body.job_id });
    };
    // Without heavy files the random sequence is the one earlier seeds were recorded with.
    const pick = () => {
      if (heavyInputs.length && rand() < opts.heavyShare!) return heavyOp;
      let x = rand();
      for (const [w, f] of ops) if ((x -= w) < 0) return f;
      return ops[0][1];
    };

    while (Date.now() - t0 < opts.budgetMs && report.iterations < (opts.maxIterations ?? Infinity)) {
      const windowMs = 300 + Math.floor(rand() * 2500);
      const killAt = 100 + Math.floor(rand() * windowMs);
      const n = 8 + Math.floor(rand() * 16);
      const running = Array.from({ length: n }, () => {
        const f = pick();
        return sleep(Math.floor(rand() * windowMs)).then(f).catch(() => undefined);
      });
      await sleep(killAt);
      await server.kill('SIGKILL');
      await Promise.allSettled(running);
      const counts = await ingestCounts(dataDir, opts.databaseUrl);
      report.atKill.pending += counts.find((c) => c.status === 'pending')?.n ?? 0;
      report.atKill.processing += counts.find((c) => c.status === 'processing')?.n ?? 0;
      report.atKill.deleting += (await withControlReader(dataDir, opts.databaseUrl, (r) => r.all<{ n: number }>(`select count(*) as n from documents where state = 'deleting'`)))[0].n;
      report.restartMs.push(await server.start(opts.startTimeoutMs));
      report.iterations++;
      const violations = await checkInvariants(state, opts.settleTimeoutMs ?? 90_000);
      report.settleMs.push(state.lastSettleMs ?? 0);
      for (const v of violations) report.violations.push(`iteration ${report.iterations}: ${v}`);
      log(`iteration ${report.iterations}: window ${windowMs} ms, kill at ${killAt} ms, ${n} ops, restart ${report.restartMs.at(-1)} ms, jobs ${state.jobs.size}, violations ${violations.length}`);
      report.jobsCreated = state.jobs.size;
      report.durationMs = Date.now() - t0;
      opts.onIteration?.(report);
      if (violations.length) break;
    }
    await server.kill('SIGTERM');
    const byStatus = await ingestCounts(dataDir, opts.databaseUrl);
    report.jobsCreated = state.jobs.size;
    report.jobsDone = byStatus.find((c) => c.status === 'done')?.n ?? 0;
    report.jobsFailed = byStatus.find((c) => c.status === 'failed')?.n ?? 0;
    report.webhookEvents = receiver.eventCount();
    if (state.idempotencyMismatches.length) report.violations.push(`Idempotency-Key returned different jobs: ${state.idempotencyMismatches.join(', ')}`);
  } catch (err) {
    report.violations.push(`harness failed: ${String(err)}`); // keeps the data dir for inspection
    throw err;
  } finally {
    await server.kill('SIGKILL');
    await receiver.close();
    report.durationMs = Date.now() - t0;
    if (report.violations.length === 0) fs.rmSync(dataDir, { recursive: true, force: true });
    else report.violations.push(`data dir kept for inspection: ${dataDir}`);
  }
  return report;
}
