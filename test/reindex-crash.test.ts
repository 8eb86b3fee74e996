// Crash safety of the online reindex: the real server (a child process) is SIGKILLed while a reindex rebuilds
// the namespace, and restarted; the job's next attempt continues the same generation, and afterwards every
// document is there once (same chunk count, each marker found in its own document only) with the search
// results of before, and the generation switched away from is dropped. SQLite only here: one kill and two
// start-ups already cost most of this file's time (the PostgreSQL path of the switch is covered by
// test/reindex.test.ts).
// Runs alone: SIGKILLs the server during a rebuild.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { crashDataDir, ServerProcess } from '../bench/crash-harness.ts';
import { freePort } from './jobs-helpers.ts';
import { markerOf, syntheticDoc } from './helpers/synthetic-docs.ts';

const DOCS = 12;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('SIGKILL during a reindex: the restarted job continues; nothing lost or duplicated', { timeout: 300_000 }, async (t) => {
  const dataDir = crashDataDir('docsearch-reindex-crash-');
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const accountKey = 'svc_acc_' + crypto.randomBytes(24).toString('base64url');
  const server = new ServerProcess({
    DOCSEARCH_DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', DOCSEARCH_BOOTSTRAP_ACCOUNT_KEY: accountKey,
    DOCSEARCH_JOB_LEASE_MS: '2000', DOCSEARCH_WORKER_POLL_MS: '50', DOCSEARCH_REINDEX_RETIRE_MS: '300',
    LOG_LEVEL: 'warn', LANCEDB_LOG: 'error',
  }, path.join(dataDir, 'server.log'), origin);
  try {
    const t0 = Date.now();
    const lap = (what: string) => t.diagnostic(`${what}: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    await server.start(600_000);
    lap('started');
    const project = await (await fetch(`${origin}/v3/projects`, { method: 'POST', headers: { authorization: `Bearer ${accountKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'reindex-crash', product: 'docsearch', protected: false }) })).json() as { api_key: string; namespace: string };
    const auth = { authorization: `Bearer ${project.api_key}` };
    const call = async (method: string, p: string): Promise<any> => (await fetch(`${origin}/v3${p}`, { method, headers: auth })).json();
    const jobDone = async (id: string): Promise<any> => {
      for (const deadline = Date.now() + 240_000; Date.now() < deadline; await sleep(100)) {
        const s = await call('GET', `/jobs/${id}/status`);
        if (s.is_terminal) return s;
      }
      throw new Error(`job ${id} did not finish`);
    };
    const ids = await Promise.all(Array.from({ length: DOCS }, async (_, i) => {
      const res = await fetch(`${origin}/v3/docsearch/ingest`, { method: 'POST', body: syntheticDoc(markerOf(i), i, 40),
        headers: { ...auth, 'content-type': 'application/octet-stream', 'content-disposition': `attachment; filename="d${i}.md"` } });
      const done = await jobDone(((await res.json()) as { job_id: string }).job_id);
      assert.equal(done.status, 'done', JSON.stringify(done));
      return done.doc_id as string;
    }));
    const search = async (query: string): Promise<string[]> => {
      const r = await (await fetch(`${origin}/v3/docsearch/search`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ query, format: 'json', min_relevance: 0 }) })).json() as { results: Array<{ doc_id: string; chunk_indices: number[] }> };
      return r.results.map((h) => `${h.doc_id}:${h.chunk_indices.join('.')}`);
    };
    const queries = [markerOf(0), markerOf(5), markerOf(11), 'river stone market winter', 'copper forest lantern'];
    lap('ingested');
    const before = await Promise.all(queries.map(search));
    const described = await call('GET', '/docsearch/index');

    const job = await (await fetch(`${origin}/v3/docsearch/reindex`, { method: 'POST', headers: auth })).json() as { job_id: string };
    // Kill once the rebuild is under way (documents rebuilt; rows are appended at least every 2 s).
    let seen: any;
    for (const deadline = Date.now() + 120_000; Date.now() < deadline; await sleep(20)) {
      seen = await call('GET', `/jobs/${job.job_id}/status`);
      if (seen.is_terminal || (seen.progress?.stage === 'rebuilding' && (seen.progress.documents_done ?? 0) >= 1)) break;
    }
    assert.ok(!seen.is_terminal, `the reindex finished before the kill: ${JSON.stringify(seen)}`);
    await server.kill('SIGKILL');
    t.diagnostic(`killed at ${JSON.stringify(seen.progress)}`);
    const index = path.join(dataDir, 'lance');
    lap('killed');
    await server.start(600_000);
    lap('restarted');
    // The serving generation answers at once after the restart, before the reindex finishes.
    assert.deepEqual(await search(queries[0]), before[0]);
    const done = await jobDone(job.job_id);
    assert.equal(done.status, 'done', JSON.stringify(done));
    lap('reindexed');
    assert.equal(done.attempts, 2, 'the killed attempt was continued by a second');
    const after = await call('GET', '/docsearch/index');
    assert.equal(after.generation, 1, 'the same generation, continued');
    assert.equal(after.chunks, described.chunks, 'no chunk lost or duplicated');
    assert.deepEqual(await Promise.all(queries.map(search)), before);
    for (const i of [0, 5, 11]) {
      const hits = await search(markerOf(i));
      assert.ok(hits.length > 0 && hits.every((h) => h.startsWith(`${ids[i]}:`)), `document ${i} found alone`);
    }
    assert.equal((await call('GET', '/docsearch/docs')).total_documents, DOCS);
    // The retired generation is dropped DOCSEARCH_REINDEX_RETIRE_MS after the switch.
    const tables = () => fs.readdirSync(index).filter((n) => n.startsWith(project.namespace));
    for (const deadline = Date.now() + 15_000; Date.now() < deadline && tables().length > 1; await sleep(200));
    assert.deepEqual(tables(), [`${project.namespace}__g1.lance`], fs.readFileSync(path.join(dataDir, 'server.log'), 'utf8').slice(-2000));
  } finally {
    await server.kill('SIGKILL');
    if (process.env.KEEP_DATA !== '1') fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
