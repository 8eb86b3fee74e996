// Scale-out throughput (docs/scale-out.md): for N = 1, 2, 4 it starts N API processes and N
// worker processes (real `src/main.ts` children, DOCSEARCH_ROLE=api|worker) on a fresh PostgreSQL
// database and one fresh data directory, ingests F synthetic documents into ONE namespace (all through
// the APIs, round robin) and measures files/s until every job is done, then runs C concurrent search
// clients for S seconds spread over the APIs and measures searches/s. It prints the totals and the
// same numbers per process, plus how many documents each writer-lease acquisition committed.
//   npx tsx bench/scale-out.ts -- --nodes 1,2,4 --files 40 --sections 16 --clients 8 --seconds 10 [--storage s3]
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
import { startS3Server } from '../test/helpers/s3-server.ts';

const { values: args } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: {
    nodes: { type: 'string', default: '1,2,4' }, files: { type: 'string', default: '40' }, sections: { type: 'string', default: '16' },
    clients: { type: 'string', default: '8' }, seconds: { type: 'string', default: '10' },
    storage: { type: 'string', default: 'local' },
  },
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Row {
  nodes: number;
  files: number;
  chunks: number;
  ingestSeconds: number;
  filesPerSecond: number;
  filesPerSecondPerWorker: number;
  docsPerLeaseAcquisition: number;
  searches: number;
  searchesPerSecond: number;
  searchesPerSecondPerApi: number;
  searchP50Ms: number;
}

async function runOne(n: number, files: number, sections: number, clients: number, seconds: number): Promise<Row> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docsearch-scale-'));
  seedModelCache(dataDir);
  const database = await createTestDatabase();
  const accountKey = 'svc_acc_' + crypto.randomBytes(24).toString('base64url');
  // --storage s3: original files and the LanceDB index in one bucket of the test S3 server (s3rver behind
  // its SigV4 proxy, which honours If-None-Match as S3 does) instead of the shared data directory.
  const s3 = args.storage === 's3' ? await startS3Server() : null;
  if (s3) await s3.createBucket('scale');
  const s3Env: Record<string, string> = s3 ? {
    DOCSEARCH_BLOB_URI: 's3://scale/blobs', DOCSEARCH_INDEX_URI: 's3://scale/index', DOCSEARCH_S3_ENDPOINT: s3.endpoint,
    DOCSEARCH_S3_REGION: s3.region, DOCSEARCH_S3_ACCESS_KEY_ID: s3.accessKeyId, DOCSEARCH_S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
  } : {};
  const env = {
    ...s3Env,
    DOCSEARCH_DATA_DIR: dataDir, DOCSEARCH_DATABASE_URL: database.url, DOCSEARCH_BOOTSTRAP_ACCOUNT_KEY: accountKey,
    DOCSEARCH_SECRET: crypto.randomBytes(32).toString('base64url'), DOCSEARCH_WORKER_POLL_MS: '50',
    DOCSEARCH_RATE_LIMIT_SEARCH_PER_MIN: '0', DOCSEARCH_RATE_LIMIT_INGEST_PER_MIN: '0', DOCSEARCH_RATE_LIMIT_IP_PER_MIN: '0', LOG_LEVEL: 'warn',
  };
  const logDir = path.join(dataDir, 'logs');
  fs.mkdirSync(logDir);
  const apis: NodeProcess[] = [];
  const workers: NodeProcess[] = [];
  for (let i = 0; i < n; i++) apis.push(new NodeProcess(`api${i + 1}`, 'api', env, await freePort(), logDir));
  for (let i = 0; i < n; i++) workers.push(new NodeProcess(`worker${i + 1}`, 'worker', { ...env, LOG_LEVEL: 'info' }, await freePort(), logDir));
  const sql = new pg.Client({ connectionString: database.url });
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

    // Searches: `clients` loops, round robin over the API processes, for `seconds`.
    const latencies: number[] = [];
    const stopAt = Date.now() + seconds * 1000;
    await Promise.all(Array.from({ length: clients }, async (_, c) => {
      for (let k = 0; Date.now() < stopAt; k++) {
        const t1 = Date.now();
        const res = await fetch(`${apis[(c + k) % n].origin}/v3/docsearch/search`, {
          method: 'POST', headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ query: `${markerOf((c * 7 + k) % files)} harbor lantern`, format: 'json' }),
        });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`search: ${res.status}`);
        latencies.push(Date.now() - t1);
      }
    }));
    latencies.sort((a, b) => a - b);
    const searchesPerSecond = latencies.length / seconds;
    return {
      nodes: n, files, chunks: Number(chunks.rows[0].n), ingestSeconds, filesPerSecond: files / ingestSeconds,
      filesPerSecondPerWorker: files / ingestSeconds / n, docsPerLeaseAcquisition: files / Math.max(1, Number(lease.rows[0]?.epoch ?? 1)),
      searches: latencies.length, searchesPerSecond, searchesPerSecondPerApi: searchesPerSecond / n,
      searchP50Ms: latencies[Math.floor(latencies.length / 2)] ?? 0,
    };
  } finally {
    await Promise.all([...apis, ...workers].map((p) => p.kill('SIGTERM')));
    await sql.end().catch(() => undefined);
    await database.drop().catch(() => undefined);
    await s3?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const rows: Row[] = [];
for (const n of args.nodes.split(',').map(Number)) {
  const row = await runOne(n, Number(args.files), Number(args.sections), Number(args.clients), Number(args.seconds));
  rows.push(row);
  console.error(`N=${n} done: ${JSON.stringify(row)}`);
}
const f = (x: number, d = 2) => x.toFixed(d);
console.log(`\nscale-out (${args.storage} storage): ${args.files} files (${args.sections} sections each) into one namespace; ${args.clients} search clients for ${args.seconds} s; ${os.cpus().length} cores`);
console.log('| API + worker processes | ingest files/s | per worker | docs per lease acquisition | searches/s | per API | search p50 ms |');
console.log('|---|---|---|---|---|---|---|');
for (const r of rows) {
  console.log(`| ${r.nodes} + ${r.nodes} | ${f(r.filesPerSecond)} | ${f(r.filesPerSecondPerWorker)} | ${f(r.docsPerLeaseAcquisition, 1)} | ${f(r.searchesPerSecond, 1)} | ${f(r.searchesPerSecondPerApi, 1)} | ${r.searchP50Ms} |`);
}
const out = path.join(repoRoot, 'bench', 'results', `scale-out-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, JSON.stringify({ args, rows }, null, 2));
console.log(`\n${out}`);
process.exit(0);
