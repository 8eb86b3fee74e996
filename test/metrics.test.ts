// GET /metrics: Prometheus text with HTTP latency by route pattern and status, job queue depth and job
// durations by kind and outcome, search stage timings, index sizes and the default process metrics
// (event-loop lag among them), after real traffic against the service.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createProject, repoRoot, request, startTestServer, type TestServer } from './helpers/index.ts';

/** Value of one sample line `name{labels} value`, matching every given label. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const m = /^([a-z_:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = Object.fromEntries([...(m[2] ?? '').matchAll(/([a-z_]+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(m[3]);
  }
  return undefined;
}

describe('Prometheus /metrics', () => {
  let server: TestServer;

  before(async () => { server = await startTestServer(); });
  after(async () => server?.close());

  test('exposes HTTP, job, queue, search-stage, index and process series after real traffic', async () => {
    const { apiKey } = await createProject(server);
    const pdf = fs.readFileSync(path.resolve(repoRoot, '../shared/data/docs/pdf/layout-parser-paper-with-table.pdf'));
    const ingest = await request(server, 'POST', '/v3/docsearch/ingest', {
      token: apiKey, body: pdf, headers: { 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="p.pdf"' },
    });
    assert.equal(ingest.status, 201);
    const jobId = ingest.body.job_id;
    let status = '';
    for (let i = 0; i < 600 && status !== 'done' && status !== 'failed'; i++) {
      status = (await request(server, 'GET', `/v3/jobs/${jobId}/status`, { token: apiKey })).body.status;
      if (status !== 'done') await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(status, 'done');
    const search = await request(server, 'POST', '/v3/docsearch/search', { token: apiKey, body: { query: 'layout detection models' } });
    assert.equal(search.status, 200);
    assert.equal((await request(server, 'GET', '/v3/docsearch/docs/missing', { token: apiKey })).status, 404);

    const res = await fetch(`${server.baseUrl}/metrics`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    const text = await res.text();

    const http = 'docsearch_http_request_duration_seconds_count';
    assert.ok(sample(text, http, { method: 'POST', route: '/v3/docsearch/ingest', status_code: '201' })! >= 1);
    assert.ok(sample(text, http, { method: 'GET', route: '/v3/docsearch/docs/:docId', status_code: '404' })! >= 1, 'route pattern, not the id');
    assert.ok(sample(text, http, { method: 'POST', route: '/v3/docsearch/search', status_code: '200' })! >= 1);
    assert.doesNotMatch(text, /route="\/v3\/docsearch\/docs\/missing"/);

    assert.equal(sample(text, 'docsearch_job_duration_seconds_count', { kind: 'ingest', outcome: 'done' }), 1);
    assert.ok(sample(text, 'docsearch_job_duration_seconds_sum', { kind: 'ingest', outcome: 'done' })! > 0);
    assert.match(text, /^# TYPE docsearch_jobs_queued gauge$/m);
    assert.equal(sample(text, 'docsearch_jobs_queued', { kind: 'ingest', status: 'pending' }), undefined, 'nothing left waiting');

    for (const stage of ['scope', 'embed', 'retrieve', 'rank', 'rerank', 'expand']) {
      assert.ok(sample(text, 'docsearch_search_stage_duration_seconds_count', { stage })! >= 1, stage);
    }
    assert.equal(sample(text, 'docsearch_index_documents'), 1);
    assert.ok(sample(text, 'docsearch_index_chunks')! >= 1);
    assert.ok(sample(text, 'nodejs_eventloop_lag_seconds')! >= 0, 'event-loop lag (default metrics)');
    assert.ok(sample(text, 'process_resident_memory_bytes')! > 0);
  });

  test('queue depth counts pending jobs by kind while no worker runs', async () => {
    const idle = await startTestServer({ workers: false });
    try {
      const { apiKey } = await createProject(idle);
      for (const name of ['a.txt', 'b.txt']) {
        const r = await request(idle, 'POST', '/v3/docsearch/ingest', {
          token: apiKey, body: 'some text', headers: { 'content-type': 'application/octet-stream', 'content-disposition': `attachment; filename="${name}"` },
        });
        assert.equal(r.status, 201);
      }
      const text = await (await fetch(`${idle.baseUrl}/metrics`)).text();
      assert.equal(sample(text, 'docsearch_jobs_queued', { kind: 'ingest', status: 'pending' }), 2);
      assert.equal(sample(text, 'docsearch_index_documents'), 0);
    } finally {
      await idle.close();
    }
  });
});
