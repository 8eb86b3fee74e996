// DOCSEARCH_RELEVANCE_MODEL end to end (docs/models.md): a real server scores the standard tier with the
// model the file holds, and refuses at start-up a model fitted with another embedder.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestServer, createProject, type TestServer } from './helpers/start-test-server.ts';
import { dataPath, ingestFile, waitForJob, api } from './helpers/api.ts';
import { RELEVANCE_MODEL_FORMAT } from '../src/search/relevance-model-file.ts';

type Hit = { score: number };
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'relevance-model-test-'));
const modelFile = (name: string, intercept: number, extra: Record<string, unknown> = {}): string => {
  const p = path.join(dir, name);
  fs.writeFileSync(p, JSON.stringify({ format: RELEVANCE_MODEL_FORMAT, model: { intercept, weights: { cov: 0.5 }, source: 'test: a constant score' }, ...extra }));
  return p;
};

async function serverWithDoc(env: Record<string, string>): Promise<{ server: TestServer; key: string }> {
  const server = await startTestServer({ backend: 'sqlite', env });
  const { apiKey: key } = await createProject(server, { product: 'docsearch' });
  const job = await ingestFile(server.baseUrl, key, dataPath('docs', 'txt', 'norwich-city.txt'));
  assert.equal(job.status, 201, JSON.stringify(job.body));
  assert.equal((await waitForJob(server.baseUrl, key, (job.body as { job_id: string }).job_id)).status, 'done');
  return { server, key };
}

describe('a relevance model from DOCSEARCH_RELEVANCE_MODEL', () => {
  let sure: { server: TestServer; key: string };
  let doubtful: { server: TestServer; key: string };
  before(async () => {
    sure = await serverWithDoc({ DOCSEARCH_RELEVANCE_MODEL: modelFile('sure.json', 12) });
    doubtful = await serverWithDoc({ DOCSEARCH_RELEVANCE_MODEL: modelFile('doubtful.json', -12) });
  });
  after(async () => {
    await sure?.server.close();
    await doubtful?.server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('scores the standard tier: every hit near 1 under one model, below the default threshold under the other', async () => {
    const q = { query: 'Norwich City football club stadium', format: 'json' };
    const high = await api(sure.server.baseUrl, sure.key, 'POST', '/v3/docsearch/search', q);
    assert.equal(high.status, 200, JSON.stringify(high.body));
    const hits = (high.body as { results: Hit[] }).results;
    assert.ok(hits.length > 0 && hits.every((h) => h.score > 0.99), JSON.stringify(hits.map((h) => h.score)));
    const low = await api(doubtful.server.baseUrl, doubtful.key, 'POST', '/v3/docsearch/search', q);
    assert.deepEqual((low.body as { results: Hit[] }).results, []);
    const all = await api(doubtful.server.baseUrl, doubtful.key, 'POST', '/v3/docsearch/search', { ...q, min_relevance: 0 });
    const weak = (all.body as { results: Hit[] }).results;
    assert.ok(weak.length > 0 && weak.every((h) => h.score < 0.01), JSON.stringify(weak.map((h) => h.score)));
  });

  test('a model fitted with another embedder stops the start-up, naming the key and both embedders', async () => {
    const other = modelFile('other.json', 0, { embedder: { provider: 'onnx', model: 'multilingual-e5-small', dimension: 384 } });
    await assert.rejects(startTestServer({ backend: 'sqlite', env: { DOCSEARCH_RELEVANCE_MODEL: other } }), /DOCSEARCH_RELEVANCE_MODEL was fitted with the embedder onnx\/multilingual-e5-small \(384-d\), but the configured embedder is builtin\//);
  });
});
