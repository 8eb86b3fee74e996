// Scale-out throughput and object-storage cost (docs/scale-out.md, docs/deployment.md): for each storage
// (the shared local directory, one bucket of the test S3 server) and N API + N worker processes (real
// `src/main.ts` children, DOCSEARCH_ROLE=api|worker) on a fresh PostgreSQL database, it ingests F synthetic
// documents into ONE namespace (all through the APIs, round robin) and measures files/s until every job is
// done. With every storage's processes up, it then measures R cold starts per storage (the API processes
// restarted with an empty index cache, the first search of each timed: table open, index and metadata
// loads, first reads of the files) and C concurrent search clients for S seconds per storage, in 2-second
// blocks alternating between the storages so that other load on the machine falls on each alike (warm
// p50/p99, searches/s, API CPU per search, S3 requests per search). It prints one table with every storage
// side by side and the S3/local ratios.
//   npx tsx bench/scale-out.ts -- --storage local,s3 --nodes 1 --files 20 --sections 16 --clients 8 --seconds 10 --cold 5
// Extra service environment for every process: --env KEY=VALUE,KEY=VALUE (e.g. a cache setting to compare).
// Results go to bench/results/scale-out-<time>.json.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createTestDatabase } from '../test/helpers/postgres.ts';
import { NodeProcess } from '../test/helpers/node-process.ts';
import { saveModelCache, seedModelCache, repoRoot } from '../test/helpers/server.ts';
import { freePort } from '../test/jobs-helpers.ts';
import { markerOf, syntheticDoc } from '../test/helpers/synthetic-docs.ts';
import { startS3Server, type S3TestServer } from '../test/helpers/s3-server.ts';

const { values: args } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: {
    nodes: { type: 'string', default: '1' }, files: { type: 'string', default: '20' }, sections: { type: 'string', default: '16' },
    clients: { type: 'string', default: '8' }, seconds: { type: 'string', default: '10' }, warmup: { type: 'string', default: '3' },
    cold: { type: 'string', default: '5' }, storage: { type: 'string', default: 'local,s3' }, env: { type: 'string', default: '' },
  },
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const extraEnv: Record<string, string> = Object.fromEntries(args.env.split(',').filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));

interface Row {
  storage: string;
  nodes: number;
  files: number;
  chunks: number;
  filesPerSecond: number;
  filesPerSecondPerWorker: number;
  docsPerLeaseAcquisition: number;
  searchesPerSecond: number;
  searchesPerSecondPerApi: number;
  warmP50Ms: number;
  warmP99Ms: number;
  coldP50Ms: number;
  coldP99Ms: number;
  coldSamples: number[];
  /** CPU time of the API processes per warm search, ms (user + system, every thread). */
  apiCpuMsPerSearch: number;
  /** S3 requests per warm search, by method (GET/HEAD/LIST/PUT…); null on local storage. */
  s3PerSearch: Record<string, number> | null;
}

const pct = (sorted: number[], p: number) => sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] : 0;

/** S3 request labels by method, listing separated from object reads. */
function countRequests(reqs: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of reqs) {
    const [method, url] = r.split(' ');
    const label = method === 'GET' && /[?&]list-type=/.test(url) ? 'LIST' : method;
    out[label] = (out[label] ?? 0) + 1;
  }
  return out;
}

/** User + system CPU ms of a process so far (/proc/<pid>/stat; 0 where /proc is missing). */
function cpuMs(pid: number): number {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // utime, stime in clock ticks (100 Hz)
  } catch {
    return 0;
  }
}

async function search(origin: string, auth: Record<string, string>, query: string): Promise<number> {
  const t1 = performance.now();
  const res = await fetch(`${origin}/v3/docsearch/search`, {
    method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ query, format: 'json' }),
  });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`search: ${res.status}`);
  return performance.now() - t1;
}

interface Stack {
  storage: string;
  apis: NodeProcess[];
  workers: NodeProcess[];
  auth: Record<string, string>;
  s3: S3TestServer | null;
  cacheDir: string;
  row: Partial<Row>;
  cleanup(): Promise<void>;
}

/** Start N API + N worker processes on `storage` and ingest the documents; fills the ingest columns of the row. */
async function setUp(storage: string, n: number, files: number, sections: number): Promise<Stack> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docsearch-scale-'));
  seedModelCache(dataDir);
  const database = await createTestDatabase();
  const accountKey = 'svc_acc_' + crypto.randomBytes(24).toString('base64url');
  // s3: original files and the LanceDB index in one bucket of the test S3 server (s3rver behind its SigV4
  // proxy, which honours If-None-Match as S3 does) instead of the shared data directory.
  const s3: S3TestServer | null = storage === 's3' ? await startS3Server() : null;
  if (s3) await s3.createBucket('scale');
  const s3Env: Record<string, string> = s3 ? {
    DOCSEARCH_BLOB_URI: 's3://scale/blobs', DOCSEARCH_INDEX_URI: 's3://scale/index', DOCSEARCH_S3_ENDPOINT: s3.endpoint,
    DOCSEARCH_S3_REGION: s3.region, DOCSEARCH_S3_ACCESS_KEY_ID: s3.accessKeyId, DOCSEARCH_S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
  } : {};
  const env: Record<string, string> = {
    ...s3Env,
    DOCSEARCH_DATA_DIR: dataDir, DOCSEARCH_DATABASE_URL: database.url, DOCSEARCH_BOOTSTRAP_ACCOUNT_KEY: accountKey,
    DOCSEARCH_SECRET: crypto.randomBytes(32).toString('base64url'), DOCSEARCH_WORKER_POLL_MS: '50',
    DOCSEARCH_RATE_LIMIT_SEARCH_PER_MIN: '0', DOCSEARCH_RATE_LIMIT_INGEST_PER_MIN: '0', DOCSEARCH_RATE_LIMIT_IP_PER_MIN: '0', LOG_LEVEL: 'warn',
    ...extraEnv,
  };
  const logDir = path.join(dataDir, 'logs');
  fs.mkdirSync(logDir);
  const apis: NodeProcess[] = [];
  const workers: NodeProcess[] = [];
  for (let i = 0; i < n; i++) apis.push(new NodeProcess(`api${i + 1}`, 'api', env, await freePort(), logDir));
  for (let i = 0; i < n; i++) workers.push(new NodeProcess(`worker${i + 1}`, 'worker', { ...env, LOG_LEVEL: 'info' }, await freePort(), logDir));
  const sql = new pg.Client({ connectionString: database.url });
  const cleanup = async () => {
    await Promise.all([...apis, ...workers].map((p) => p.kill('SIGTERM')));
    await sql.end().catch(() => undefined);
    await database.drop().catch(() => undefined);
    await s3?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await apis[0].start();
    saveModelCache(dataDir);
    await Promise.all([...apis.slice(1), ...workers].map((p) => p.start()));
    await sql.connect();
    const created = await fetch(`${apis[0].origin}/v3/projects`, {
      method: 'POST', headers: { authorization: `Bearer ${accountKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'scale', product: 'docsearch' }),
    });
    const { api_key: key, namespace, id: projectId } = await created.json() as { api_key: string; namespace: string; id: string };
    const auth = { authorization: `Bearer ${key}` };
    const t0 = Date.now();
    await Promise.all(Array.from({ length: files }, async (_, i) => {
      const res = await fetch(`${apis[i % n].origin}/v3/docsearch/ingest`, {
        method: 'POST', body: syntheticDoc(markerOf(i), i, sections),
        headers: { ...auth, 'content-type': 'application/octet-stream', 'content-disposition': `attachment; filename="doc-${i}.md"` },
      });
      if (res.status !== 201) throw new Error(`ingest ${i}: ${res.status} ${await res.text()}`);
    }));
    for (;;) {
      const r = await sql.query(`select count(*) filter (where status in ('pending','processing')) as open, count(*) filter (where status = 'failed') as failed
                                 from jobs where project_id = $1 and kind = 'ingest'`, [projectId]);
      if (Number(r.rows[0].failed) > 0) throw new Error(`${r.rows[0].failed} ingest jobs failed`);
      if (Number(r.rows[0].open) === 0) break;
      await sleep(50);
    }
    const ingestSeconds = (Date.now() - t0) / 1000;
    const lease = await sql.query('select epoch from namespace_leases where namespace = $1', [namespace]);
    const chunks = await sql.query(`select coalesce(sum(chunk_count), 0) as n from documents where project_id = $1`, [projectId]);
    // Let background maintenance (optimize after the last commit) settle, then stop the workers: searches only.
    await sleep(3000);
    await Promise.all(workers.map((p) => p.kill('SIGTERM')));
    const row: Partial<Row> = {
      storage, nodes: n, files, chunks: Number(chunks.rows[0].n), filesPerSecond: files / ingestSeconds,
      filesPerSecondPerWorker: files / ingestSeconds / n, docsPerLeaseAcquisition: files / Math.max(1, Number(lease.rows[0]?.epoch ?? 1)),
    };
    return { storage, apis, workers, auth, s3, cacheDir: extraEnv.DOCSEARCH_INDEX_CACHE_DIR ?? path.join(dataDir, 'index-cache'), row, cleanup };
  } catch (err) {
    await cleanup();
    throw err;
  }
}

/**
 * Measure every stack: cold starts (APIs restarted with an empty index cache, first search timed), then
 * warm blocks that alternate between the stacks, so load from other work on the machine falls on each alike.
 */
async function measure(stacks: Stack[], files: number, clients: number, seconds: number): Promise<Row[]> {
  const cold = new Map<Stack, number[]>(stacks.map((s) => [s, []]));
  for (let r = 0; r < Number(args.cold); r++) {
    for (const st of stacks) {
      await Promise.all(st.apis.map((p) => p.kill('SIGTERM')));
      fs.rmSync(st.cacheDir, { recursive: true, force: true });
      await Promise.all(st.apis.map((p) => p.start()));
      for (const [i, api] of st.apis.entries()) cold.get(st)!.push(await search(api.origin, st.auth, `${markerOf((r * 3 + i) % files)} harbor lantern`));
    }
  }
  // Warm: `clients` loops, round robin over a stack's API processes.
  const loop = async (st: Stack, untilMs: number, latencies: number[]) => Promise.all(Array.from({ length: clients }, async (_, c) => {
    for (let k = 0; Date.now() < untilMs; k++) latencies.push(await search(st.apis[(c + k) % st.apis.length].origin, st.auth, `${markerOf((c * 7 + k) % files)} harbor lantern`));
  }));
  for (const st of stacks) await loop(st, Date.now() + Number(args.warmup) * 1000, []);
  const acc = new Map(stacks.map((st) => [st, { latencies: [] as number[], ms: 0, cpu: 0, s3: 0 }]));
  const blocks = Math.max(1, Math.round(seconds / 2));
  for (let b = 0; b < blocks; b++) {
    for (const st of stacks) {
      const a = acc.get(st)!;
      const cpu0 = st.apis.reduce((t, p) => t + cpuMs(p.pid), 0);
      const s30 = st.s3?.requests.length ?? 0;
      const t0 = Date.now();
      await loop(st, t0 + (seconds * 1000) / blocks, a.latencies);
      a.ms += Date.now() - t0;
      a.cpu += st.apis.reduce((t, p) => t + cpuMs(p.pid), 0) - cpu0;
      if (st.s3) a.s3 += st.s3.requests.length - s30;
    }
  }
  return stacks.map((st) => {
    const a = acc.get(st)!;
    const lat = a.latencies.sort((x, y) => x - y);
    const c = cold.get(st)!;
    const cs = [...c].sort((x, y) => x - y);
    const searchesPerSecond = lat.length / (a.ms / 1000);
    const counts = st.s3 ? countRequests(st.s3.requests.slice(st.s3.requests.length - a.s3)) : null;
    return {
      ...st.row, searchesPerSecond, searchesPerSecondPerApi: searchesPerSecond / st.apis.length, apiCpuMsPerSearch: a.cpu / Math.max(1, lat.length),
      warmP50Ms: pct(lat, 0.5), warmP99Ms: pct(lat, 0.99), coldP50Ms: pct(cs, 0.5), coldP99Ms: pct(cs, 0.99), coldSamples: c,
      s3PerSearch: counts && Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, v / Math.max(1, lat.length)])),
    } as Row;
  });
}

const rows: Row[] = [];
for (const n of args.nodes.split(',').map(Number)) {
  const stacks: Stack[] = [];
  try {
    for (const storage of args.storage.split(',')) stacks.push(await setUp(storage, n, Number(args.files), Number(args.sections)));
    const measured = await measure(stacks, Number(args.files), Number(args.clients), Number(args.seconds));
    for (const row of measured) console.error(`${row.storage} N=${n} done: ${JSON.stringify(row)}`);
    rows.push(...measured);
  } finally {
    for (const st of stacks) await st.cleanup();
  }
}
const f = (x: number, d = 1) => x.toFixed(d);
console.log(`\nscale-out: ${args.files} files (${args.sections} sections each) into one namespace; ${args.clients} search clients for ${args.seconds} s after ${args.warmup} s; ${args.cold} cold starts; ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)}${args.env ? `; env ${args.env}` : ''}`);
console.log('| storage | API + worker | ingest files/s (per worker) | lease docs | searches/s (per API) | warm p50 ms | warm p99 ms | cold p50 ms | cold p99 ms | API CPU ms per search | S3 requests per warm search |');
console.log('|---|---|---|---|---|---|---|---|---|---|---|');
for (const r of rows) {
  const s3 = r.s3PerSearch ? Object.entries(r.s3PerSearch).map(([k, v]) => `${k} ${v.toFixed(1)}`).join(', ') || '0' : '–';
  console.log(`| ${r.storage} | ${r.nodes} + ${r.nodes} | ${f(r.filesPerSecond, 2)} (${f(r.filesPerSecondPerWorker, 2)}) | ${f(r.docsPerLeaseAcquisition)} | ${f(r.searchesPerSecond)} (${f(r.searchesPerSecondPerApi)}) | ${f(r.warmP50Ms)} | ${f(r.warmP99Ms)} | ${f(r.coldP50Ms)} | ${f(r.coldP99Ms)} | ${f(r.apiCpuMsPerSearch)} | ${s3} |`);
}
for (const n of new Set(rows.map((r) => r.nodes))) {
  const local = rows.find((r) => r.nodes === n && r.storage === 'local');
  const s3 = rows.find((r) => r.nodes === n && r.storage === 's3');
  if (local && s3) {
    console.log(`\nN=${n} S3/local: warm p50 ×${f(s3.warmP50Ms / local.warmP50Ms, 2)}, warm p99 ×${f(s3.warmP99Ms / local.warmP99Ms, 2)}, searches/s ×${f(s3.searchesPerSecond / local.searchesPerSecond, 2)}, cold p50 ×${f(s3.coldP50Ms / local.coldP50Ms, 2)}`);
  }
}
const out = path.join(repoRoot, 'bench', 'results', `scale-out-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, JSON.stringify({ args, rows }, null, 2));
console.log(`\n${out}`);
process.exit(0);
