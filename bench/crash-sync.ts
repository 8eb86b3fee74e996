// SIGKILL during bucket sync, shared by test/crash-sync.test.ts (small) and runnable alone for more
// objects and kills: `npx tsx bench/crash-sync.ts [--objects 200] [--kills 3] [--seed N] [--postgres URL]`.
// The real server runs as a child process (crash-harness.ts ServerProcess) against an S3-protocol server
// (test/helpers/s3-server.ts). Run 1 syncs N objects; then D = N/10 objects change, D are deleted and D
// are added, and run 2 syncs again with delete_missing. Each run is SIGKILLed at random moments (`--kills`
// per run) and the server restarted. After each run: the task is done with exact counts (run 1: N new; run 2: D new,
// D changed, N−2D unchanged, D deleted, none failed), the namespace holds one document per object and no
// other, each document's bytes hash is its object's current one (nothing lost, nothing stale), its
// chunks in the index match its recorded count, and no chunk lacks a document.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { crashDataDir, ServerProcess } from './crash-harness.ts';
import { withControlReader } from './crash-db.ts';
import { rng as prng } from './lib/random.ts';
import { freePort } from '../test/jobs-helpers.ts';
import { startS3Server } from '../test/helpers/s3-server.ts';
import { openLanceIndex } from '../src/storage/lance-index.ts';

export interface SyncCrashOptions {
  objects: number;
  /** SIGKILLs in each of the two runs ([first, second]), each at a random moment of it. */
  kills: [number, number];
  seed?: number;
  databaseUrl?: string;
  log?: (line: string) => void;
}

export interface SyncCrashReport {
  seed: number;
  kills: number;
  runs: Array<{ counts: Record<string, number>; ms: number }>;
  violations: string[];
}

/** How long a (re)start may take to become ready: minutes on a loaded shared machine (crash-harness.ts). */
const RESTART_TIMEOUT_MS = 600_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const key = (i: number) => `kb/note-${i}.md`;
const text = (i: number, rev: number) => `# Note ${i}\n\nArchive entry ${i} of the crash sync, revision ${rev}.\n`;
const sha = (s: string) => crypto.createHash('sha256').update(s).digest('hex');

/** Run the scenario; `violations` lists every broken invariant (empty when all held). */
export async function runSyncCrash(opts: SyncCrashOptions): Promise<SyncCrashReport> {
  const seed = opts.seed ?? crypto.randomInt(1, 2 ** 31);
  const rand = prng(seed);
  const log = opts.log ?? (() => undefined);
  const n = opts.objects;
  const d = Math.max(1, Math.floor(n / 10));
  const report: SyncCrashReport = { seed, kills: 0, runs: [], violations: [] };
  const dataDir = crashDataDir('docsearch-crash-sync-');
  const s3 = await startS3Server();
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const accountKey = 'svc_acc_' + crypto.randomBytes(24).toString('base64url');
  const server = new ServerProcess({
    DOCSEARCH_DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', DOCSEARCH_BOOTSTRAP_ACCOUNT_KEY: accountKey,
    DOCSEARCH_ALLOWED_PRIVATE_HOSTS: '127.0.0.1', DOCSEARCH_JOB_LEASE_MS: '2000', DOCSEARCH_WORKER_POLL_MS: '50',
    LOG_LEVEL: 'warn', LANCEDB_LOG: 'error', ...(opts.databaseUrl ? { DOCSEARCH_DATABASE_URL: opts.databaseUrl } : {}),
  }, path.join(dataDir, 'server.log'), origin);
  const bucket = 'crashsync';
  const objects = new Map<string, string>();
  const put = async (entries: Array<[string, string]>) => {
    await s3.putObjects(bucket, entries);
    for (const [k, v] of entries) objects.set(k, v);
  };
  try {
    await s3.createBucket(bucket);
    await put(Array.from({ length: n }, (_, i) => [key(i), text(i, 0)]));
    await server.start(RESTART_TIMEOUT_MS);
    const project = await (await fetch(`${origin}/v3/projects`, { method: 'POST', headers: { authorization: `Bearer ${accountKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'crash-sync', product: 'docsearch', protected: false }) })).json() as { api_key: string; namespace: string };
    const auth = { authorization: `Bearer ${project.api_key}`, 'content-type': 'application/json' };

    const syncRun = async (kills: number, expected: Record<string, number>) => {
      const t0 = Date.now();
      const created = await (await fetch(`${origin}/v3/docsearch/ingestBucket`, { method: 'POST', headers: auth, body: JSON.stringify({
        source: { type: 's3', bucket, prefix: 'kb/', endpoint: s3.endpoint, region: s3.region, credentials: { access_key_id: s3.accessKeyId, secret_access_key: s3.secretAccessKey } },
        sync: { delete_missing: true },
      }) })).json() as { bucket_ingest_task_id: string };
      const id = created.bucket_ingest_task_id;
      for (let k = 0; k < kills; k++) {
        const at = 200 + Math.floor(rand() * 2500);
        await sleep(at);
        await server.kill('SIGKILL');
        report.kills++;
        const restart = await server.start(RESTART_TIMEOUT_MS);
        log(`killed ${at} ms into the run's stretch; restarted in ${restart} ms`);
      }
      let view: any;
      for (const deadline = Date.now() + 300_000; Date.now() < deadline; await sleep(200)) {
        view = await (await fetch(`${origin}/v3/docsearch/ingestBucket/${id}`, { headers: auth })).json();
        if (['done', 'done_with_errors', 'failed'].includes(view.state)) break;
      }
      const counts = { new: view.sync?.files_new, changed: view.sync?.files_changed, unchanged: view.sync?.files_unchanged, deleted: view.sync?.files_deleted, failed: view.sync?.files_failed };
      report.runs.push({ counts, ms: Date.now() - t0 });
      if (view.state !== 'done') report.violations.push(`run ${report.runs.length} ended ${view.state}: ${view.state_description}`);
      if (JSON.stringify(counts) !== JSON.stringify(expected)) report.violations.push(`run ${report.runs.length} counted ${JSON.stringify(counts)}, expected ${JSON.stringify(expected)}`);
      await check(report.runs.length);
    };

    const check = async (run: number) => {
      const bad = (s: string) => report.violations.push(`after run ${run}: ${s}`);
      const docs = await withControlReader(dataDir, opts.databaseUrl, (r) => r.all<{ doc_id: string; state: string; source_key: string; content_hash: string; chunk_count: number }>(
        'select doc_id, state, source_key, content_hash, chunk_count from documents'));
      const unfinished = await withControlReader(dataDir, opts.databaseUrl, (r) => r.all<{ n: number }>(`select count(*) as n from jobs where kind = 'ingest' and status in ('pending', 'processing')`));
      if (Number(unfinished[0].n) > 0) bad(`${unfinished[0].n} ingest jobs unfinished`);
      const visible = docs.filter((x) => x.state === 'visible');
      if (visible.length !== docs.length) bad(`${docs.length - visible.length} documents not visible`);
      if (visible.length !== objects.size) bad(`${visible.length} documents for ${objects.size} objects`);
      const bySource = new Map<string, number>();
      for (const x of visible) bySource.set(x.source_key, (bySource.get(x.source_key) ?? 0) + 1);
      for (const [k, v] of objects) {
        const doc = visible.find((x) => x.source_key === `s3://${bucket}/${k}`);
        if (!doc) bad(`object ${k} has no document (lost)`);
        else if (doc.content_hash !== sha(v)) bad(`document of ${k} holds other bytes than the object's (stale)`);
        if ((bySource.get(`s3://${bucket}/${k}`) ?? 0) > 1) bad(`object ${k} has ${bySource.get(`s3://${bucket}/${k}`)} documents (duplicated)`);
      }
      const index = await openLanceIndex({ uri: path.join(dataDir, 'lance') });
      try {
        const ids = new Set(visible.map((x) => x.doc_id));
        for (const id of await index.listDocIds(project.namespace)) if (!ids.has(id)) bad(`chunks of ${id} have no document (orphan)`);
        for (const x of visible) {
          const c = (await index.getChunks(project.namespace, x.doc_id, 0, 1_000_000)).length;
          if (c !== Number(x.chunk_count)) bad(`document ${x.doc_id} has ${c} chunks in the index, ${x.chunk_count} recorded`);
        }
      } finally {
        await index.close();
      }
    };

    await syncRun(opts.kills[0], { new: n, changed: 0, unchanged: 0, deleted: 0, failed: 0 });
    await put(Array.from({ length: d }, (_, i) => [key(i), text(i, 1)]));
    const gone = Array.from({ length: d }, (_, i) => key(d + i));
    await s3.deleteObjects(bucket, gone);
    for (const k of gone) objects.delete(k);
    await put(Array.from({ length: d }, (_, i) => [key(n + i), text(n + i, 0)]));
    await syncRun(opts.kills[1], { new: d, changed: d, unchanged: n - 2 * d, deleted: d, failed: 0 });
    await server.kill('SIGTERM');
  } finally {
    await server.kill('SIGKILL');
    await s3.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  return report;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const arg = (name: string) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : undefined; };
  const report = await runSyncCrash({
    objects: Number(arg('--objects') ?? 200), kills: [Number(arg('--kills') ?? 3), Number(arg('--kills') ?? 3)],
    seed: arg('--seed') ? Number(arg('--seed')) : undefined, databaseUrl: arg('--postgres'), log: (l) => console.error(l),
  });
  console.log(JSON.stringify(report, null, 2));
  process.exit(report.violations.length ? 1 : 0);
}
