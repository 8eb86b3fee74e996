// The OpenAPI document declares what the service answers: each operation is driven into the error
// statuses its layers give (bad or missing credentials, another project, no X-Project-ID with an account
// key, a NUL in the URL, a rate limit, an ingest body that is not the file), then every (operation,
// status) the server recorded in its own request metrics must be a declared response of that operation.
// The ingest operation describes its upload: a binary octet-stream body and every header as a parameter.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, createProject, request, type TestServer } from './helpers/index.ts';

/** Observed (method, route pattern, status) triples from the server's Prometheus request histogram. */
async function observedStatuses(server: TestServer): Promise<Array<{ method: string; route: string; status: number }>> {
  const text = await (await fetch(`${server.baseUrl}/metrics`)).text();
  const out: Array<{ method: string; route: string; status: number }> = [];
  for (const m of text.matchAll(/^docsearch_http_request_duration_seconds_count\{([^}]*)\}/gm)) {
    const labels = Object.fromEntries([...m[1].matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    out.push({ method: labels.method, route: labels.route, status: Number(labels.status_code) });
  }
  return out;
}

/** Fastify's route pattern as an OpenAPI path (`:docId` → `{docId}`). */
const toOpenApiPath = (route: string) => route.replace(/:([A-Za-z_]\w*)/g, '{$1}');

describe('OpenAPI document covers every status the service answers', () => {
  let server: TestServer;
  let doc: any;
  let key: string;
  let projectId: string;
  let otherProjectId: string;
  let jobId: string;

  before(async () => {
    server = await startTestServer({ backend: 'sqlite', workers: false, env: { DOCSEARCH_RATE_LIMIT_SEARCH_PER_MIN: '2' } });
    ({ apiKey: key, projectId } = await createProject(server));
    ({ projectId: otherProjectId } = await createProject(server));
    doc = await (await fetch(`${server.v3Url}/openapi.json`)).json();
    const r = await request(server, 'POST', '/v3/docsearch/ingest', {
      token: key, body: 'coverage', headers: { 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="c.txt"' },
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    jobId = r.body.job_id;
  });
  after(async () => server?.close());

  async function jobCount(): Promise<number> {
    const r = await server.handle.services.cp.db.selectFrom('jobs').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return Number(r.n);
  }

  test('ingest documents a binary body and every header it reads', () => {
    const op = doc.paths['/v3/docsearch/ingest'].post;
    assert.deepEqual(op.requestBody.content, { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } });
    assert.equal(op.requestBody.required, false, 'optional: X-Remote-URL ingests send no body');
    const headers = op.parameters.filter((p: any) => p.in === 'header').map((p: any) => p.name);
    for (const h of ['Content-Disposition', 'X-Remote-URL', 'X-Attributes', 'X-Attribute-Schema', 'X-Unencrypted-Strings', 'X-Completion',
      'X-Base-URL', 'Idempotency-Key', 'X-Labels', 'X-Meta-Int-1', 'X-Meta-Int-2', 'X-Project-ID']) {
      assert.ok(headers.includes(h), `ingest declares ${h}: ${headers.join(', ')}`);
    }
    for (const p of op.parameters) assert.equal(p.schema.type, 'string', p.name);
  });

  test('every project-scoped operation declares X-Project-ID', () => {
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      if (!/^\/v3\/(docsearch|jobs|status|webhooks)\//.test(path)) continue;
      for (const [method, op] of Object.entries<any>(item)) {
        const names = (op.parameters ?? []).filter((p: any) => p.in === 'header').map((p: any) => p.name.toLowerCase());
        assert.ok(names.includes('x-project-id'), `${method.toUpperCase()} ${path}`);
      }
    }
  });

  test('an ingest body that is not the file is refused with 400 and creates nothing', async () => {
    const before = await jobCount();
    const file = Buffer.from('## Heading\n\nSome text.\n');
    const disposition = { 'content-disposition': 'attachment; filename="notes.md"' };
    const cases: Array<[string, Record<string, string>, string]> = [
      ['JSON content type', { ...disposition, 'content-type': 'application/json' }, JSON.stringify(file)],
      ['serialised Buffer as octet-stream', { ...disposition, 'content-type': 'application/octet-stream' }, JSON.stringify(file)],
      ['serialised Uint8Array as octet-stream', { ...disposition, 'content-type': 'application/octet-stream' }, JSON.stringify(new Uint8Array(file))],
      ['form content type', { ...disposition, 'content-type': 'application/x-www-form-urlencoded' }, 'a=b'],
    ];
    for (const [what, headers, body] of cases) {
      const r = await request(server, 'POST', '/v3/docsearch/ingest', { token: key, headers, body });
      assert.equal(r.status, 400, `${what}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.code, 'unsupported_media_type', what);
      assert.match(r.body.message, /application\/octet-stream/, what);
    }
    assert.equal(await jobCount(), before);
    // The same bytes sent raw are accepted.
    const ok = await request(server, 'POST', '/v3/docsearch/ingest', { token: key, headers: { ...disposition, 'content-type': 'application/octet-stream' }, body: file });
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
  });

  test('a 429 body carries retry_after_seconds beside details.retry_after_s', async () => {
    let limited: Awaited<ReturnType<typeof request<any>>> | undefined;
    for (let i = 0; i < 4 && !limited; i++) {
      const r = await request(server, 'POST', '/v3/docsearch/search', { token: key, body: { query: 'coverage' } });
      if (r.status === 429) limited = r;
      else assert.equal(r.status, 200, JSON.stringify(r.body));
    }
    assert.ok(limited, 'the per-project search limit of 2 per minute answered 429');
    assert.equal(limited.body.code, 'rate_limited');
    const seconds = Number(limited.headers.get('retry-after'));
    assert.ok(seconds >= 1, `Retry-After ${seconds}`);
    assert.equal(limited.body.retry_after_seconds, seconds);
    assert.equal(limited.body.details.retry_after_s, seconds);
  });

  test('each observed (operation, status) is declared in the document', async () => {
    const account = server.accountKey;
    const wrong = 'svc_prod_ds_' + 'x'.repeat(40);
    const calls: Array<[string, string, Parameters<typeof request>[3]]> = [
      // 400: a NUL in the URL; no X-Project-ID with an account key
      ['GET', '/v3/docsearch/docs?q=%00', { token: key }],
      ['GET', '/v3/docsearch/docs', { token: account }],
      ['GET', '/v3/docsearch/attributes', { token: account }],
      ['GET', `/v3/jobs/${jobId}%00/status`, { token: key }],
      ['DELETE', '/v3/jobs/x%00', { token: key }],
      ['GET', '/v3/webhooks/secret', { token: account }],
      ['GET', '/v3/docsearch/ingestBucket/x/failures?limit=%00', { token: key }],
      ['GET', '/v3/jobs', { token: account }],
      ['GET', '/v3/jobs?cursor=x', { token: key }],
      ['GET', '/v3/project', { token: account }],
      // 401: no or an unknown key
      ['GET', '/v3/docsearch/docs/some-doc', {}],
      ['DELETE', '/v3/docsearch/docs/some-doc', { token: wrong }],
      ['GET', `/v3/jobs/${jobId}/status`, {}],
      ['DELETE', `/v3/jobs/${jobId}`, { token: wrong }],
      ['GET', `/v3/status/v1/jobs/${jobId}`, {}],
      ['GET', '/v3/docsearch/ingestBucket/x', {}],
      ['POST', '/v3/docsearch/ingestBucket/x/pause', { token: wrong }],
      ['GET', '/v3/docsearch/attributes', {}],
      ['GET', '/v3/projects', {}],
      ['GET', '/v3/jobs', {}],
      ['GET', '/v3/project', { token: wrong }],
      // 403: a project key naming another project; a project key on the account routes
      ['GET', `/v3/jobs/${jobId}/status`, { token: key, projectId: otherProjectId }],
      ['GET', `/v3/status/v1/jobs/${jobId}`, { token: key, projectId: otherProjectId }],
      ['GET', '/v3/docsearch/ingestBucket/x', { token: key, projectId: otherProjectId }],
      ['POST', '/v3/docsearch/ingestBucket/x/resume', { token: key, projectId: otherProjectId }],
      ['GET', '/v3/docsearch/docs', { token: key, projectId: otherProjectId }],
      ['GET', '/v3/projects', { token: key }],
      // 404 and the answers of the routes themselves
      ['GET', '/v3/docsearch/docs/some-doc', { token: key }],
      ['GET', '/v3/jobs/00000000-0000-4000-8000-000000000000/status', { token: key }],
      ['GET', '/v3/docsearch/ingestBucket/x', { token: key }],
      ['GET', `/v3/jobs/${jobId}/status`, { token: account }],
      ['GET', '/v3/docsearch/docs', { token: key, projectId }],
      ['GET', '/v3/docsearch/attributes', { token: key }],
      ['GET', '/v3/jobs', { token: key }],
      ['GET', '/v3/project', { token: key }],
    ];
    for (const [method, path, opts] of calls) await request(server, method, path, opts);

    const undeclared: string[] = [];
    const seen = new Set<string>();
    for (const o of await observedStatuses(server)) {
      if (!o.route.startsWith('/v3/')) continue;
      const op = doc.paths[toOpenApiPath(o.route)]?.[o.method.toLowerCase()];
      if (!op) continue; // routes left out of the document (the document itself, the reference UI)
      seen.add(`${o.method} ${o.route} ${o.status}`);
      if (!(String(o.status) in op.responses)) undeclared.push(`${o.method} ${toOpenApiPath(o.route)} -> ${o.status}`);
    }
    assert.deepEqual(undeclared, []);
    for (const expected of [
      'GET /v3/docsearch/docs 400', 'GET /v3/docsearch/docs/:docId 401', 'GET /v3/jobs/:job_id/status 401', 'GET /v3/jobs/:job_id/status 403',
      'GET /v3/docsearch/ingestBucket/:id 401', 'GET /v3/docsearch/ingestBucket/:id 403', 'GET /v3/docsearch/attributes 400',
      'GET /v3/webhooks/secret 400', 'POST /v3/docsearch/ingest 400', 'POST /v3/docsearch/search 429',
    ]) {
      assert.ok(seen.has(expected), `driven: ${expected}; seen ${[...seen].join('; ')}`);
    }
    // Every declared error response is the one error body.
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        for (const [status, r] of Object.entries<any>(op.responses)) {
          if (Number(status) < 400) continue;
          assert.equal(r.content?.['application/json']?.schema?.$ref, '#/components/schemas/ErrorBody', `${method} ${path} ${status}`);
        }
      }
    }
  });
});
