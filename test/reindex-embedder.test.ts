// A namespace built by another embedder (the builtin one), served by a process configured with an HTTP
// embedder of another model and dimension: it still answers searches (BM25 alone) and is reported as
// needing a reindex on GET /docsearch/index, GET /v3/project and /readyz (which stays ready);
// POST /docsearch/reindex rebuilds it with the running embedder, after which nothing is reported, vector
// search finds its documents again and ingests work. SQLite: the switch's PostgreSQL path is
// test/reindex.test.ts's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { startTestServer, createProject } from './helpers/start-test-server.ts';
import { seedModelCache } from './helpers/server.ts';
import { api, uploadText, waitForJob } from './helpers/api.ts';
import { markerOf, syntheticDoc } from './helpers/synthetic-docs.ts';

const DIM = 16;

/** An OpenAI-compatible embeddings endpoint: each word of a text adds to one of DIM dimensions. */
function embed(text: string): number[] {
  const v = new Array(DIM).fill(0);
  for (const w of text.toLowerCase().match(/\p{L}+/gu) ?? []) v[crypto.createHash('md5').update(w).digest()[0] % DIM] += 1;
  return v;
}

test('a namespace built by another embedder answers, is reported, and a reindex rebuilds it', { timeout: 240_000 }, async () => {
  const stub = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => { raw += c; });
    req.on('end', () => {
      const input = JSON.parse(raw).input as string[];
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: input.map((t, index) => ({ index, embedding: embed(t) })) }));
    });
  });
  await new Promise<void>((r) => stub.listen(0, '127.0.0.1', r));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docsearch-reindex-embedder-'));
  seedModelCache(dataDir); // the builtin embedder's converted vectors, shared by the checkout's tests
  const accountKey = 'svc_acc_' + crypto.randomBytes(24).toString('base64url');
  const shared = { DOCSEARCH_DATA_DIR: dataDir, DOCSEARCH_SECRET: crypto.randomBytes(32).toString('base64url'), DOCSEARCH_BOOTSTRAP_ACCOUNT_KEY: accountKey };
  try {
    const first = await startTestServer({ env: shared });
    const { apiKey: key } = await createProject({ baseUrl: first.baseUrl, accountKey });
    for (let i = 0; i < 4; i++) await uploadText(first.baseUrl, key, syntheticDoc(markerOf(i), i, 4), `e${i}.md`);
    await first.close();

    const server = await startTestServer({ env: {
      ...shared, DOCSEARCH_EMBEDDER: 'http', DOCSEARCH_EMBEDDER_URL: `http://127.0.0.1:${(stub.address() as AddressInfo).port}`,
      DOCSEARCH_EMBEDDER_MODEL: 'stub-words', DOCSEARCH_EMBEDDER_DIMENSION: String(DIM), DOCSEARCH_ALLOWED_PRIVATE_HOSTS: '127.0.0.1',
    } });
    try {
      const described = (await api(server.baseUrl, key, 'GET', '/v3/docsearch/index')).body as any;
      assert.equal(described.needs_reindex, true, JSON.stringify(described));
      assert.match(described.reasons[0], /^embedder builtin\/.* \(100-d\), running http\/stub-words \(16-d\)$/);
      assert.equal(described.built_with.embedder.dimension, 100);
      assert.equal(((await api(server.baseUrl, key, 'GET', '/v3/project')).body as any).index.needs_reindex, true);
      const readyz = await api(server.baseUrl, undefined, 'GET', '/readyz');
      assert.equal(readyz.status, 200, 'a namespace needing a reindex never makes the process unready');
      assert.equal((readyz.body as any).index_builds.needs_reindex, 1, JSON.stringify((readyz.body as any).index_builds));
      assert.equal((readyz.body as any).index_builds.examples[0].namespace, described.namespace);
      // It still answers (BM25 alone).
      const search = async (q: string) => {
        const r = await api(server.baseUrl, key, 'POST', '/v3/docsearch/search', { query: q, format: 'json', min_relevance: 0 });
        assert.equal(r.status, 200, JSON.stringify(r.body));
        return (r.body as any).results as any[];
      };
      const before = await search(markerOf(2));
      assert.ok(before.length > 0 && before.every((h) => h.scores.ann === null), JSON.stringify(before.map((h) => h.scores)));
      const job = (await api(server.baseUrl, key, 'POST', '/v3/docsearch/reindex')).body as any;
      const done = await waitForJob(server.baseUrl, key, job.job_id, 180_000);
      assert.equal(done.status, 'done', JSON.stringify(done));
      const after = (await api(server.baseUrl, key, 'GET', '/v3/docsearch/index')).body as any;
      assert.deepEqual([after.generation, after.needs_reindex, after.built_with.embedder.model, after.chunks], [1, false, 'stub-words', described.chunks]);
      const hits = await search(markerOf(2));
      assert.ok(hits.some((h) => h.scores.ann !== null), 'vector search answers again');
      assert.ok(hits[0].content.includes(markerOf(2)));
      await uploadText(server.baseUrl, key, syntheticDoc(markerOf(9), 9, 2), 'after.md');
      // The summary is recomputed at most every 10 s; the description is current at once.
      assert.equal(((await api(server.baseUrl, key, 'GET', '/v3/project')).body as any).index.needs_reindex, false);
    } finally {
      await server.close();
    }
  } finally {
    await new Promise((r) => stub.close(r));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
