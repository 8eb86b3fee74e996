// Service-level behaviour: probes, the OpenAPI document generated from the route schemas, the uniform
// error body, request ids, and graceful shutdown releasing running jobs for the next start.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, createProject, type TestServer } from './helpers/start-test-server.ts';
import { api } from './helpers/api.ts';

describe('service', () => {
  let server: TestServer;
  before(async () => { server = await startTestServer({ backend: 'sqlite' }); });
  after(async () => server?.close());

  test('health and readiness probes', async () => {
    assert.equal((await api(server.baseUrl, undefined, 'GET', '/healthz')).status, 200);
    const r = await api(server.baseUrl, undefined, 'GET', '/readyz');
    assert.equal(r.status, 200);
    const body = r.body as { status: string; event_loop_lag: Record<string, unknown> };
    assert.equal(body.status, 'ready');
    for (const k of ['p50_ms', 'p99_ms', 'max_ms', 'samples']) assert.equal(typeof body.event_loop_lag[k], 'number', k);
  });

  test('OpenAPI 3.1 document lists the interface', async () => {
    const r = await api(server.baseUrl, undefined, 'GET', '/v3/openapi.json');
    assert.equal(r.status, 200);
    const doc = r.body as { openapi: string; paths: Record<string, Record<string, unknown>> };
    assert.equal(doc.openapi, '3.1.0');
    for (const [p, m] of [['/v3/docsearch/ingest', 'post'], ['/v3/docsearch/search', 'post'], ['/v3/docsearch/searchInDoc', 'post'],
      ['/v3/docsearch/docs', 'get'], ['/v3/docsearch/docs/{docId}', 'get'], ['/v3/docsearch/docs/{docId}', 'delete'],
      ['/v3/jobs/{job_id}/status', 'get'], ['/v3/projects', 'post']] as const) {
      assert.ok(doc.paths[p]?.[m], `${m.toUpperCase()} ${p} missing from OpenAPI`);
    }
  });

  test('unknown routes and bad JSON get the catalogue error body with a request id', async () => {
    const r = await api(server.baseUrl, undefined, 'GET', '/v3/nope');
    assert.equal(r.status, 404);
    assert.equal((r.body as { code: string }).code, 'not_found');
    assert.ok(r.headers.get('x-request-id'));
    const { apiKey } = await createProject(server, { product: 'docsearch' });
    const res = await fetch(server.baseUrl + '/v3/docsearch/search', { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: '{"query": ' });
    assert.equal(res.status, 400);
    const body = await res.json() as { code: string; status: number; message: string };
    assert.equal(body.code, 'validation_failed');
    assert.equal(body.status, 400);
  });
});

test('graceful shutdown releases a running job and the next start finishes it', async () => {
  const first = await startTestServer({ backend: 'sqlite', workers: false });
  const { apiKey } = await createProject(first, { product: 'docsearch' });
  const res = await fetch(first.baseUrl + '/v3/docsearch/ingest', { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="a.md"' }, body: '# Title\n\nSome text about graceful shutdown of workers.' });
  assert.equal(res.status, 201);
  const { job_id } = await res.json() as { job_id: string };
  const queue = first.handle.services.queue;
  // Claim it as the worker would, then shut down: the lease must be released back to pending.
  const claimed = await queue.claim(first.handle.worker.owner, 60_000);
  assert.equal(claimed?.id, job_id);
  await first.handle.worker.stop();
  const after = await queue.get(job_id);
  assert.equal(after?.status, 'pending');
  assert.equal(after?.lease_owner, null);
  // The same data dir is picked up by the next step of a worker.
  assert.equal(await first.handle.worker.step(), true);
  assert.equal((await queue.get(job_id))?.status, 'done');
  await first.close();
});
