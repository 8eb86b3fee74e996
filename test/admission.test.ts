// Admission control: per-project search and ingest rate limits, a per-client-IP limit, login
// backoff per account and per IP, and a cap on open job status streams per project — each answered with
// 429 rate_limited, Retry-After and the one error body shape, and without touching other projects.
// Runs alone: counts requests in per-minute rate windows.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, createProject, request, type TestServer } from './helpers/start-test-server.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function assertLimited(res: { status: number; headers: Headers; body: any }, what: string): void {
  assert.equal(res.status, 429, `${what}: ${JSON.stringify(res.body)}`);
  assert.deepEqual(Object.keys(res.body).sort(), ['code', 'details', 'message', 'retry_after_seconds', 'status'], what);
  assert.equal(res.body.code, 'rate_limited', what);
  assert.equal(res.body.status, 429, what);
  const retry = Number(res.headers.get('retry-after'));
  assert.ok(Number.isInteger(retry) && retry >= 1 && retry <= 900, `${what}: Retry-After ${res.headers.get('retry-after')}`);
  assert.equal(res.body.retry_after_seconds, retry, `${what}: retry_after_seconds equals Retry-After`);
  assert.equal(res.body.details.retry_after_s, retry, what);
}

describe('admission control', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer({
      backend: 'sqlite', workers: false,
      env: {
        DOCSEARCH_RATE_LIMIT_SEARCH_PER_MIN: '3', DOCSEARCH_RATE_LIMIT_INGEST_PER_MIN: '2', DOCSEARCH_MAX_STREAMS_PER_PROJECT: '2',
        DOCSEARCH_LOGIN_FREE_FAILURES: '3', DOCSEARCH_LOGIN_IP_FREE_FAILURES: '6', DOCSEARCH_LOGIN_BACKOFF_BASE_MS: '1000',
      },
    });
  });
  after(async () => server?.close());

  const ingest = (key: string, name: string) => request(server, 'POST', '/v3/docsearch/ingest', {
    token: key, body: 'Some text to ingest.', headers: { 'content-type': 'application/octet-stream', 'content-disposition': `attachment; filename="${name}"` },
  });

  test('search: past the per-project rate 429 with Retry-After; another project is not affected', async () => {
    const a = await createProject(server);
    const b = await createProject(server);
    for (let i = 0; i < 3; i++) {
      const r = await request(server, 'POST', '/v3/docsearch/search', { token: a.apiKey, body: { query: 'anything' } });
      assert.equal(r.status, 200, JSON.stringify(r.body));
    }
    assertLimited(await request(server, 'POST', '/v3/docsearch/search', { token: a.apiKey, body: { query: 'anything' } }), 'search');
    assertLimited(await request(server, 'POST', '/v3/docsearch/searchInDoc', { token: a.apiKey, body: { query: 'anything', doc_filter: 'x' } }), 'searchInDoc');
    assert.equal((await request(server, 'POST', '/v3/docsearch/search', { token: b.apiKey, body: { query: 'anything' } })).status, 200);
  });

  test('ingest: past the per-project rate 429 before the upload is read, and no job is created', async () => {
    const a = await createProject(server);
    assert.equal((await ingest(a.apiKey, 'one.txt')).status, 201);
    assert.equal((await ingest(a.apiKey, 'two.txt')).status, 201);
    assertLimited(await ingest(a.apiKey, 'three.txt'), 'ingest');
    const jobs = await server.services.cp.db.selectFrom('jobs').select('id').where('project_id', '=', a.projectId).execute();
    assert.equal(jobs.length, 2);
  });

  test('job status streams: at most the cap per project are open; closing one admits the next', async () => {
    const a = await createProject(server);
    const b = await createProject(server);
    const job = (await ingest(a.apiKey, 'stream.txt')).body.job_id as string; // stays pending: no workers
    const jobB = (await ingest(b.apiKey, 'stream.txt')).body.job_id as string;
    const open = (key: string, id: string, path = '/v3/status/v1/jobs/') => {
      const ac = new AbortController();
      return fetch(`${server.baseUrl}${path}${id}`, { headers: { authorization: `Bearer ${key}` }, signal: ac.signal }).then((res) => ({ res, ac }));
    };
    const s1 = await open(a.apiKey, job);
    const s2 = await open(a.apiKey, job, '/status/v1/jobs/'); // the root mount counts too
    assert.equal(s1.res.status, 200);
    assert.equal(s2.res.status, 200);
    const third = await open(a.apiKey, job);
    const body = await third.res.json();
    assertLimited({ status: third.res.status, headers: third.res.headers, body }, 'third stream');
    const other = await open(b.apiKey, jobB);
    assert.equal(other.res.status, 200, 'another project is not affected');
    s1.ac.abort();
    let again;
    for (let i = 0; i < 50; i++) {
      again = await open(a.apiKey, job);
      if (again.res.status === 200) break;
      await again.res.body?.cancel();
      await sleep(50);
    }
    assert.equal(again!.res.status, 200, 'a closed stream frees its slot');
    for (const s of [s2, other, again!]) s.ac.abort();
  });

  test('login: exponential backoff per account, then per IP across accounts', async () => {
    const login = (email: string, password: string) => request(server, 'POST', '/v3/auth/login', { body: { email, password } });
    for (let i = 0; i < 4; i++) assert.equal((await login(server.email, 'wrong-password')).status, 401, `failure ${i + 1}`);
    assertLimited(await login(server.email, 'wrong-password'), 'fifth wrong password');
    assertLimited(await login(server.email, server.password), 'right password while waiting');
    await sleep(1100);
    assert.equal((await login(server.email, server.password)).status, 200, 'after the wait the right password works');
    assert.equal((await login(server.email, 'wrong-password')).status, 401, 'a success reset the account');
    // IP: 5 failures counted so far (4 + 1, the success took one back) out of 6 free.
    for (let i = 0; i < 2; i++) assert.equal((await login(`nobody${i}@test.invalid`, 'x')).status, 401);
    const ip = await login('someone-else@test.invalid', 'x');
    assertLimited(ip, 'per-IP backoff');
    assert.equal(ip.body.details.scope, 'ip');
  });
});

describe('per-client-IP rate limit', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ backend: 'sqlite', workers: false, env: { DOCSEARCH_RATE_LIMIT_IP_PER_MIN: '12' } });
  });
  after(async () => server?.close());

  test('every route counts (bad keys included); probes are exempt', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await request(server, 'GET', '/v3/jobs/x/status', { token: 'bad-key' })).status);
    assert.ok(statuses.every((s) => s === 401), statuses.join());
    assertLimited(await request(server, 'GET', '/v3/jobs/x/status', { token: server.accountKey }), 'request 13');
    assertLimited(await request(server, 'GET', '/v3/openapi.json'), 'openapi');
    assert.equal((await request(server, 'GET', '/healthz')).status, 200);
    assert.equal((await request(server, 'GET', '/readyz')).status, 200);
  });
});
