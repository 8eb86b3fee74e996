// The advanced tier end to end with the external reranker providers (docs/models.md): a real server whose
// reranker is an HTTP /v1/rerank service started by this test, and one whose reranker is the tiny ONNX
// cross-encoder from test/fixtures/models. Checks `mode`, `scores.reranker`, the calibrated blend and the
// fallback to the standard tier when the reranker fails.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { startTestServer, createProject, repoRoot, type TestServer } from './helpers/start-test-server.ts';
import { dataPath, ingestFile, waitForJob, api } from './helpers/api.ts';

type Hit = { doc_id: string; score: number; scores: { reranker: number | null } };

async function serverWithDoc(env: Record<string, string>): Promise<{ server: TestServer; key: string }> {
  const server = await startTestServer({ backend: 'sqlite', env });
  const { apiKey: key } = await createProject(server, { product: 'docsearch' });
  const job = await ingestFile(server.baseUrl, key, dataPath('docs', 'txt', 'norwich-city.txt'));
  assert.equal(job.status, 201, JSON.stringify(job.body));
  const done = await waitForJob(server.baseUrl, key, (job.body as { job_id: string }).job_id);
  assert.equal(done.status, 'done', JSON.stringify(done));
  return { server, key };
}

describe('advanced tier with an HTTP rerank service', () => {
  let rerankService: http.Server;
  let failing = false;
  let calls = 0;
  let server: TestServer;
  let key: string;

  before(async () => {
    rerankService = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => { raw += c; });
      req.on('end', () => {
        calls++;
        if (failing) { res.writeHead(500).end('model crashed'); return; }
        const { documents } = JSON.parse(raw) as { documents: string[] };
        // Relevance by keyword, so the expected order is known.
        const results = documents.map((d, index) => ({ index, relevance_score: /stadium|Carrow Road/i.test(d) ? 0.95 : 0.02 }));
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ results }));
      });
    });
    await new Promise<void>((r) => rerankService.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(rerankService.address() as AddressInfo).port}`;
    ({ server, key } = await serverWithDoc({ DOCSEARCH_RERANKER: 'http', DOCSEARCH_RERANKER_URL: url, DOCSEARCH_ALLOWED_PRIVATE_HOSTS: '127.0.0.1', DOCSEARCH_RERANK_DEPTH: '10' }));
  });
  after(async () => {
    await server?.close();
    await new Promise<void>((r) => rerankService.close(() => r()));
  });

  test('reranker values are exposed and blended with the standard score; mode is advanced', async () => {
    const body = { query: 'Where does Norwich City play its home matches?', format: 'json', min_relevance: 0 };
    const std = (await api(server.baseUrl, key, 'POST', '/v3/docsearch/search', body)).body as { results: Hit[] };
    const before = calls;
    const adv = (await api(server.baseUrl, key, 'POST', '/v3/docsearch/search', { ...body, retrieval_tier: 'advanced' })).body as { results: Hit[] };
    assert.equal(calls, before + 1);
    const reranked = adv.results.filter((h) => h.scores.reranker !== null);
    assert.ok(reranked.length > 0 && reranked.length <= 10);
    assert.ok(reranked.every((h) => h.scores.reranker === 0.95 || h.scores.reranker === 0.02));
    // Blend: σ(0.5·logit(r) + 0.5·logit(standard)) puts the 0.95 passages above every 0.02 passage.
    const firstLow = adv.results.findIndex((h) => h.scores.reranker === 0.02);
    const lastHigh = adv.results.map((h) => h.scores.reranker).lastIndexOf(0.95);
    if (firstLow >= 0 && lastHigh >= 0) assert.ok(lastHigh < firstLow);
    assert.ok(std.results.every((h) => h.scores.reranker === null));
    const ctx = (await api(server.baseUrl, key, 'POST', '/v3/docsearch/search', { query: body.query, premium: true })).body as { mode: string; search_units: number; tokens_estimated: number };
    assert.equal(ctx.mode, 'advanced');
    assert.equal(ctx.search_units, 1 + Math.ceil(ctx.tokens_estimated / 1000));
  });

  test('a failing reranker answers with the standard tier (mode says so)', async () => {
    failing = true;
    try {
      const r = await api(server.baseUrl, key, 'POST', '/v3/docsearch/search', { query: 'Norwich City stadium', retrieval_tier: 'advanced' });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const body = r.body as { mode: string; search_units: number; result_count: number };
      assert.deepEqual([body.mode, body.search_units], ['standard', 1]);
      assert.ok(body.result_count > 0);
      const json = (await api(server.baseUrl, key, 'POST', '/v3/docsearch/search', { query: 'Norwich City stadium', retrieval_tier: 'advanced', format: 'json' })).body as { results: Hit[] };
      assert.ok(json.results.every((h) => h.scores.reranker === null));
    } finally {
      failing = false;
    }
  });
});

describe('advanced tier with a local ONNX cross-encoder', () => {
  let server: TestServer;
  let key: string;
  before(async () => {
    ({ server, key } = await serverWithDoc({ DOCSEARCH_RERANKER: 'onnx', DOCSEARCH_RERANKER_MODEL_DIR: path.join(repoRoot, 'test', 'fixtures', 'models', 'tiny-bert-reranker') }));
  });
  after(async () => server?.close());

  test('raw logits in scores.reranker; score is the calibrated blend in 0..1', async () => {
    const r = await api(server.baseUrl, key, 'POST', '/v3/docsearch/search', { query: 'Norwich City football club', retrieval_tier: 'advanced', format: 'json', min_relevance: 0 });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const hits = (r.body as { results: Hit[] }).results;
    assert.ok(hits.length > 0);
    assert.ok(hits.every((h) => h.score >= 0 && h.score <= 1));
    assert.ok(hits.some((h) => h.scores.reranker !== null && Number.isFinite(h.scores.reranker)));
    for (let i = 1; i < hits.length; i++) assert.ok(hits[i - 1].score >= hits[i].score);
  });
});
