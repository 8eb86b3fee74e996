// The scale-out proof (docs/scale-out.md): PostgreSQL + two API processes + two worker
// processes (DOCSEARCH_ROLE=api|worker, started here as real child processes) over one S3 bucket (the
// s3rver test server behind its SigV4 proxy: original files and the LanceDB index both in the bucket).
// Ingest through one API and search through the other; delete and see it gone on both; both workers
// commit to one namespace concurrently; a worker is killed with SIGKILL while it holds the namespace's
// writer lease (mid-commit) and the other takes the lease over — and in the end every job is done,
// every document has exactly its chunks in the index (0 lost, 0 duplicated). Prints the measured
// visibility delay between the nodes and the lease take-over time.
// Runs alone: kills processes of a four-process deployment.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createTestDatabase } from './helpers/postgres.ts';
import { NodeProcess } from './helpers/node-process.ts';
import { freePort } from './jobs-helpers.ts';
import { markerOf, syntheticDoc } from './helpers/synthetic-docs.ts';
import { saveModelCache, seedModelCache } from './helpers/server.ts';
import { startS3Server, type S3TestServer } from './helpers/s3-server.ts';
import { loadConfig } from '../src/internal/config.ts';
import { indexLocationOptions } from '../src/storage/open-storage.ts';

/** The bucket all four processes share: blobs under blobs/, the LanceDB index under index/. */
const BUCKET = 'docsearch-multi';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const WRITER_LEASE_MS = 3000;

/**
 * Storage shared by all nodes, and how the checks read the index. Here: one local data directory. To run
 * the proof on object storage, put DOCSEARCH_INDEX_URI / DOCSEARCH_BLOB_URI (and the S3 endpoint and
 * credentials) into `env`, and the same URI and options into `indexUri` / `storageOptions`.
 */
function sharedStorage(dataDir: string, s3: S3TestServer): { env: Record<string, string>; indexUri: string; storageOptions?: Record<string, string> } {
  const env = {
    DOCSEARCH_DATA_DIR: dataDir,
    DOCSEARCH_BLOB_URI: `s3://${BUCKET}/blobs`, DOCSEARCH_INDEX_URI: `s3://${BUCKET}/index`,
    DOCSEARCH_S3_ENDPOINT: s3.endpoint, DOCSEARCH_S3_REGION: s3.region,
    DOCSEARCH_S3_ACCESS_KEY_ID: s3.accessKeyId, DOCSEARCH_S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
  };
  const where = indexLocationOptions(loadConfig(env));
  return { env, indexUri: where.uri, storageOptions: where.storageOptions };
}

test('two API and two worker processes on PostgreSQL and one storage: visibility, delete, concurrent writers, kill -9 take-over', { timeout: 420_000 }, async (t) => {
  // About 90 s on an idle 2-core machine; the generous limits are for a machine shared with other work.
  const phase = (() => { let t1 = Date.now(); return (name: string) => { t.diagnostic(`${name}: ${Date.now() - t1} ms`); t1 = Date.now(); }; })();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docsearch-multi-'));
  const s3 = await startS3Server();
  await s3.createBucket(BUCKET);
  t.after(() => s3.close());
  const storage = sharedStorage(dataDir, s3);
  seedModelCache(dataDir);
  const database = await createTestDatabase();
  const sql = new pg.Client({ connectionString: database.url });
  const accountKey = 'svc_acc_' + crypto.randomBytes(24).toString('base64url');
  const env = {
    ...storage.env, DOCSEARCH_DATABASE_URL: database.url, DOCSEARCH_BOOTSTRAP_ACCOUNT_KEY: accountKey,
    DOCSEARCH_SECRET: crypto.randomBytes(32).toString('base64url'), DOCSEARCH_WORKER_POLL_MS: '50',
    DOCSEARCH_JOB_LEASE_MS: '5000', DOCSEARCH_WRITER_LEASE_MS: String(WRITER_LEASE_MS),
    // Take-over as between hosts (after the TTL), not through this host's dead-PID shortcut.
    DOCSEARCH_WRITER_LEASE_LOCAL_TAKEOVER: 'off',
  };
  const logDir = path.join(dataDir, 'logs');
  fs.mkdirSync(logDir);
  const node = async (name: string, role: 'api' | 'worker') => new NodeProcess(name, role, env, await freePort(), logDir);
  const [api1, api2, w1, w2] = [await node('api1', 'api'), await node('api2', 'api'), await node('worker1', 'worker'), await node('worker2', 'worker')];
  const all = [api1, api2, w1, w2];
  try {
    // The first node migrates the database; the others start together.
    const t0 = Date.now();
    await api1.start();
    saveModelCache(dataDir);
    await Promise.all([api2.start(), w1.start(), w2.start()]);
    t.diagnostic(`4 processes up in ${Date.now() - t0} ms`);
    phase('start-up');
    await sql.connect();

    const call = async (origin: string, key: string, method: string, p: string, body?: unknown) => {
      const res = await fetch(origin + p, { method, headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    };
    const created = await call(api1.origin, accountKey, 'POST', '/v3/projects', { name: 'scale', product: 'docsearch' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const { api_key: key, namespace, id: projectId } = created.body as { api_key: string; namespace: string; id: string };

    const ingest = async (origin: string, i: number) => {
      const res = await fetch(origin + '/v3/docsearch/ingest', {
        method: 'POST', body: syntheticDoc(markerOf(i), i),
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream', 'content-disposition': `attachment; filename="doc-${i}.md"` },
      });
      const body = await res.json() as { job_id: string };
      assert.equal(res.status, 201, JSON.stringify(body));
      return body.job_id;
    };
    const waitDone = async (origin: string, jobId: string, timeoutMs = 150_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const r = await call(origin, key, 'GET', `/v3/jobs/${jobId}/status`);
        const s = r.body as { status: string; doc_id?: string; error?: unknown };
        if (s.status === 'done') return s.doc_id!;
        if (s.status === 'failed') throw new Error(`job ${jobId} failed: ${JSON.stringify(s.error)}`);
        if (Date.now() > deadline) throw new Error(`job ${jobId} still ${s.status}`);
        await sleep(20);
      }
    };
    const found = async (origin: string, i: number, docId: string) => {
      const r = await call(origin, key, 'POST', '/v3/docsearch/search', { query: markerOf(i), format: 'json', doc_ids: [docId], min_relevance: 0 });
      return r.status === 200 && (r.body as { results: Array<{ doc_id: string }> }).results.some((h) => h.doc_id === docId);
    };
    const untilFound = async (origin: string, i: number, docId: string, want: boolean, timeoutMs = 10_000) => {
      const t1 = Date.now();
      while ((await found(origin, i, docId)) !== want) {
        if (Date.now() - t1 > timeoutMs) throw new Error(`doc ${i} ${want ? 'not visible' : 'still visible'} on ${origin} after ${timeoutMs} ms`);
        await sleep(10);
      }
      return Date.now() - t1;
    };

    // 1. Ingest through api1, search through api2: the delay from "done" (seen on api1) to "found" on api2.
    const delays: number[] = [];
    const docOf = new Map<number, string>();
    for (let i = 0; i < 4; i++) {
      const docId = await waitDone(api1.origin, await ingest(api1.origin, i));
      docOf.set(i, docId);
      delays.push(await untilFound(api2.origin, i, docId, true));
    }
    // 2. Delete through api1: gone on both at once (visibility is decided by the control plane per search).
    const del = await call(api1.origin, key, 'DELETE', `/v3/docsearch/docs/${docOf.get(0)}`);
    assert.equal(del.status, 200, JSON.stringify(del.body));
    assert.ok((del.body as { vectors_deleted: number }).vectors_deleted > 0);
    // The very first search after the DELETE answered misses it, on both nodes.
    assert.equal(await found(api2.origin, 0, docOf.get(0)!), false, 'deleted document gone on api2');
    assert.equal(await found(api1.origin, 0, docOf.get(0)!), false, 'deleted document gone on api1');
    docOf.delete(0);
    t.diagnostic(`visibility, from done on api1 to found by a search on api2 (search time included): ${delays.join(', ')} ms; ` +
      'a delete through api1 is gone on both nodes at the first search after it');
    phase('visibility and delete');

    // Lease holders over time (which worker commits), sampled every 10 ms.
    const holders: Array<{ at: number; holder: string | null; epoch: number }> = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const r = await sql.query('select holder, epoch from namespace_leases where namespace = $1', [namespace]);
        if (r.rows[0]) holders.push({ at: Date.now(), holder: r.rows[0].holder, epoch: Number(r.rows[0].epoch) });
        await sleep(10);
      }
    })();
    const pidOf = (holder: string | null) => (holder ? Number(holder.split('|')[3]) : null);

    // 3. Concurrent writes to one namespace from both workers (ingests through both APIs).
    const batch1 = Array.from({ length: 12 }, (_, k) => 10 + k);
    const jobs1 = await Promise.all(batch1.map((i) => ingest(i % 2 ? api1.origin : api2.origin, i)));
    (await Promise.all(jobs1.map((j) => waitDone(api1.origin, j)))).forEach((d, k) => docOf.set(batch1[k], d));
    const committers = new Set(holders.map((h) => pidOf(h.holder)).filter((p) => p !== null));
    t.diagnostic(`batch of ${batch1.length}: lease held by worker pids ${[...committers].join(', ')} (workers ${w1.pid}, ${w2.pid}); ${new Set(holders.map((h) => h.epoch)).size} acquisitions seen`);
    assert.ok(committers.has(w1.pid) && committers.has(w2.pid), 'both workers committed to the namespace');
    phase('concurrent writers');

    // 4. SIGKILL the worker that holds the lease while it commits; the other one takes it over.
    const batch2 = Array.from({ length: 12 }, (_, k) => 30 + k);
    const jobs2 = await Promise.all(batch2.map((i) => ingest(i % 2 ? api1.origin : api2.origin, i)));
    let victim: NodeProcess | undefined;
    let killedAt = 0;
    let leftAtKill = 0;
    let deadHolder = '';
    const deadline = Date.now() + 60_000;
    while (!victim && Date.now() < deadline) {
      const r = await sql.query('select holder, (expires_at - (floor(extract(epoch from clock_timestamp()) * 1000))::bigint) as left_ms from namespace_leases where namespace = $1', [namespace]);
      const pid = pidOf(r.rows[0]?.holder ?? null);
      const w = [w1, w2].find((x) => x.pid === pid);
      if (w) {
        killedAt = Date.now();
        await w.kill('SIGKILL');
        victim = w;
        deadHolder = r.rows[0].holder;
        leftAtKill = Number(r.rows[0].left_ms);
      } else await sleep(5);
    }
    assert.ok(victim, 'a worker held the lease while batch 2 was committed');
    const survivor = victim === w1 ? w2 : w1;
    let takeover = -1;
    while (Date.now() - killedAt < 30_000) {
      const r = await sql.query('select holder from namespace_leases where namespace = $1', [namespace]);
      if (pidOf(r.rows[0]?.holder ?? null) === survivor.pid) { takeover = Date.now() - killedAt; break; }
      await sleep(5);
    }
    t.diagnostic(`killed ${victim.name} (pid ${victim.pid}) holding the lease (${leftAtKill} ms of ${WRITER_LEASE_MS} left); ${survivor.name} took it over after ${takeover} ms`);
    assert.ok(takeover >= 0, `${survivor.name} never took the lease over from ${deadHolder}`);
    (await Promise.all(jobs2.map((j) => waitDone(api2.origin, j)))).forEach((d, k) => docOf.set(batch2[k], d));
    sampling = false;
    await sampler;
    phase('kill -9 and take-over');

    // 5. Nothing lost, nothing duplicated: every job done, every document's chunks exactly once.
    const failed = await sql.query(`select id, status, error_code from jobs where project_id = $1 and status <> 'done' and kind = 'ingest'`, [projectId]);
    assert.deepEqual(failed.rows, []);
    const docs = await sql.query(`select doc_id, chunk_count from documents where project_id = $1 and state = 'visible'`, [projectId]);
    assert.equal(docs.rows.length, docOf.size);
    const lancedb = await import('@lancedb/lancedb');
    const conn = await lancedb.connect(storage.indexUri, { storageOptions: storage.storageOptions });
    const table = await conn.openTable(namespace);
    const rows = await table.query().select(['id', 'doc_id']).toArray() as Array<{ id: string; doc_id: string }>;
    table.close();
    conn.close();
    const perDoc = new Map<string, number>();
    for (const r of rows) perDoc.set(r.doc_id, (perDoc.get(r.doc_id) ?? 0) + 1);
    const expected = new Map(docs.rows.map((d) => [d.doc_id as string, Number(d.chunk_count)]));
    assert.deepEqual(new Map([...perDoc].sort()), new Map([...expected].sort()), 'chunks per document in the index = chunk_count of its row');
    assert.equal(new Set(rows.map((r) => r.id)).size, rows.length, 'no chunk id twice');
    t.diagnostic(`${docOf.size} documents, ${rows.length} chunks, 0 lost, 0 duplicated`);
    // The documents committed after the take-over are searchable through both APIs.
    for (const i of batch2.slice(0, 3)) {
      assert.ok(await found(api1.origin, i, docOf.get(i)!), `doc ${i} on api1`);
      assert.ok(await found(api2.origin, i, docOf.get(i)!), `doc ${i} on api2`);
    }
  } catch (err) {
    for (const n of all) t.diagnostic(`--- ${n.name} log tail ---\n${n.tail(1500).replace(/^/gm, '  ')}`);
    throw err;
  } finally {
    await Promise.all(all.map((n) => n.kill('SIGTERM')));
    await sql.end().catch(() => undefined);
    await database.drop().catch(() => undefined);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
