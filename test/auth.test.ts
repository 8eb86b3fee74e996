// Every outcome of the spec's "Authentication" section, over real HTTP against the real application, on
// SQLite and on PostgreSQL: 401 (missing / malformed / unknown / revoked / forged / expired token),
// 403 (altproduct project, protected project with an account key, another account's project, a project
// key naming a different project), 400 (X-Project-ID missing with account credentials), 410 (purged
// project), and the working paths (project key alone, account key + X-Project-ID, login session).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BACKENDS, startTestServer, type TestServer } from './helpers/server.ts';
import { createProject, request } from './helpers/http.ts';
import { SessionTokens } from '../src/projects/session-tokens.ts';

const DOCS = '/v3/docsearch/docs';

function assertError(res: { status: number; body: any }, status: number, code: string, what: string): void {
  assert.equal(res.status, status, `${what}: ${JSON.stringify(res.body)}`);
  assert.equal(res.body.code, code, what);
  assert.equal(res.body.status, status, what);
  assert.equal(typeof res.body.message, 'string', what);
  assert.ok(res.body.message.length > 10, what);
}

for (const backend of BACKENDS) {
  describe(`authentication (${backend})`, () => {
    let server: TestServer;
    let ds: Awaited<ReturnType<typeof createProject>>;
    let alt: Awaited<ReturnType<typeof createProject>>;
    let prot: Awaited<ReturnType<typeof createProject>>;
    let other: { accountKey: string; project: Awaited<ReturnType<typeof createProject>> };
    let session: string;

    before(async () => {
      server = await startTestServer({ backend, workers: false });
      ds = await createProject(server, { product: 'docsearch' });
      alt = await createProject(server, { product: 'altproduct' });
      prot = await createProject(server, { product: 'docsearch', protected: true });
      const acc = await server.services.projects.createAccount({ name: 'other', email: 'other@test.invalid', password: 'other-password-123' });
      other = { accountKey: acc.accountKey, project: await createProject(server, { product: 'docsearch', token: acc.accountKey }) };
      const login = await request(server, 'POST', '/v3/auth/login', { body: { email: server.email, password: server.password } });
      assert.equal(login.status, 200, JSON.stringify(login.body));
      session = login.body.token;
    });
    after(async () => server?.close());

    test('401 for a missing, non-Bearer, empty or garbage token', async () => {
      assertError(await request(server, 'GET', DOCS), 401, 'unauthorized', 'no header');
      assertError(await request(server, 'GET', DOCS, { headers: { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` } }), 401, 'unauthorized', 'basic');
      assertError(await request(server, 'GET', DOCS, { headers: { authorization: 'Bearer' } }), 401, 'unauthorized', 'empty bearer');
      assertError(await request(server, 'GET', DOCS, { token: 'garbage' }), 401, 'unauthorized', 'garbage');
      assertError(await request(server, 'GET', DOCS, { token: 'a.b.c' }), 401, 'unauthorized', 'jwt-shaped garbage');
    });

    test('401 for well-formed keys that were never issued', async () => {
      const unknownProjectKey = 'svc_prod_ds_' + 'A'.repeat(43);
      const unknownAccountKey = 'svc_acc_' + 'B'.repeat(43);
      assertError(await request(server, 'GET', DOCS, { token: unknownProjectKey }), 401, 'unauthorized', 'unknown project key');
      assertError(await request(server, 'GET', DOCS, { token: unknownAccountKey, projectId: ds.projectId }), 401, 'unauthorized', 'unknown account key');
      // a real key with its prefix swapped is not the same token
      const swapped = 'svc_acc_' + ds.apiKey.slice('svc_prod_ds_'.length);
      assertError(await request(server, 'GET', DOCS, { token: swapped, projectId: ds.projectId }), 401, 'unauthorized', 'swapped prefix');
    });

    test('401 for a forged, expired or orphaned session token', async () => {
      const user = await server.services.cp.db.selectFrom('users').select(['id', 'account_id']).where('email', '=', server.email).executeTakeFirstOrThrow();
      const claims = { userId: user.id, accountId: user.account_id };
      const forged = await new SessionTokens(server.services.cp.db, 'x'.repeat(48)).issue(claims);
      assertError(await request(server, 'GET', DOCS, { token: forged.token, projectId: ds.projectId }), 401, 'unauthorized', 'forged');
      const real = new SessionTokens(server.services.cp.db, server.services.config.serverSecret);
      const expired = await real.issue(claims, -60);
      const r = await request(server, 'GET', DOCS, { token: expired.token, projectId: ds.projectId });
      assertError(r, 401, 'unauthorized', 'expired');
      assert.match(r.body.message, /expired/);
      const orphan = await real.issue({ userId: 'no-such-user', accountId: user.account_id });
      assertError(await request(server, 'GET', DOCS, { token: orphan.token, projectId: ds.projectId }), 401, 'unauthorized', 'orphan');
      // sanity: the same construction with the right user is accepted
      const good = await real.issue(claims);
      assert.equal((await request(server, 'GET', DOCS, { token: good.token, projectId: ds.projectId })).status, 200);
    });

    test('project key works without X-Project-ID (and with its own id), not with another id', async () => {
      const r = await request(server, 'GET', DOCS, { token: ds.apiKey });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.namespace, ds.namespace);
      assert.equal((await request(server, 'GET', DOCS, { token: ds.apiKey, projectId: ds.projectId })).status, 200);
      assertError(await request(server, 'GET', DOCS, { token: ds.apiKey, projectId: prot.projectId }), 403, 'project_access_denied', 'other id');
    });

    test('account key needs X-Project-ID (400) and then works', async () => {
      const r = await request(server, 'GET', DOCS, { token: server.accountKey });
      assertError(r, 400, 'validation_failed', 'no header');
      assert.match(r.body.message, /X-Project-ID/);
      const ok = await request(server, 'GET', DOCS, { token: server.accountKey, projectId: ds.projectId });
      assert.equal(ok.status, 200, JSON.stringify(ok.body));
      assert.equal(ok.body.namespace, ds.namespace);
    });

    test('session JWT from login works with X-Project-ID and needs it', async () => {
      const r = await request(server, 'GET', DOCS, { token: session, projectId: ds.projectId });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.namespace, ds.namespace);
      assertError(await request(server, 'GET', DOCS, { token: session }), 400, 'validation_failed', 'session without header');
    });

    test('403 for an altproduct project on /docsearch, whatever the credential', async () => {
      assert.match(alt.apiKey, /^svc_prod_alt_/);
      assertError(await request(server, 'GET', DOCS, { token: alt.apiKey }), 403, 'product_not_enabled', 'alt project key');
      assertError(await request(server, 'GET', DOCS, { token: server.accountKey, projectId: alt.projectId }), 403, 'product_not_enabled', 'account key');
      assertError(await request(server, 'GET', DOCS, { token: session, projectId: alt.projectId }), 403, 'product_not_enabled', 'session');
    });

    test('403 for an altproduct project on the job and webhook-secret routes, known job id or not', async () => {
      // A job recorded for the altproduct project in the real queue, so a 403 cannot be a 404 in disguise.
      const job = await server.services.queue.enqueue({ projectId: alt.projectId, kind: 'ingest', filename: 'a.txt', size: 1, payload: {} });
      for (const id of [job.id, '00000000-0000-4000-8000-000000000000']) {
        for (const prefix of ['/v3', '']) {
          assertError(await request(server, 'GET', `${prefix}/jobs/${id}/status`, { token: alt.apiKey }), 403, 'product_not_enabled', `status ${prefix} ${id}`);
          assertError(await request(server, 'GET', `${prefix}/status/v1/jobs/${id}`, { token: alt.apiKey }), 403, 'product_not_enabled', `stream ${prefix} ${id}`);
          assertError(await request(server, 'DELETE', `${prefix}/jobs/${id}`, { token: alt.apiKey }), 403, 'product_not_enabled', `delete ${prefix} ${id}`);
          assertError(await request(server, 'GET', `${prefix}/jobs/${id}/status`, { token: server.accountKey, projectId: alt.projectId }), 403, 'product_not_enabled', `account key ${prefix} ${id}`);
        }
      }
      // Account credentials without X-Project-ID: the job names its (altproduct) project.
      assertError(await request(server, 'GET', `/v3/jobs/${job.id}/status`, { token: server.accountKey }), 403, 'product_not_enabled', 'implied project');
      assertError(await request(server, 'GET', '/v3/webhooks/secret', { token: alt.apiKey }), 403, 'product_not_enabled', 'webhook secret');
      assertError(await request(server, 'POST', '/v3/webhooks/secret/rotate', { token: alt.apiKey }), 403, 'product_not_enabled', 'webhook secret rotate');
      // The job is still there (the refusal deleted nothing), and docsearch keys still reach their jobs.
      assert.equal((await server.services.queue.get(job.id))?.status, 'pending');
      assertError(await request(server, 'GET', `/v3/jobs/${job.id}/status`, { token: ds.apiKey }), 404, 'job_not_found', 'docsearch key, foreign job');
    });

    test('protected project: account key 403, session and project key accepted', async () => {
      assertError(await request(server, 'GET', DOCS, { token: server.accountKey, projectId: prot.projectId }), 403, 'project_access_denied', 'account key');
      assert.equal((await request(server, 'GET', DOCS, { token: session, projectId: prot.projectId })).status, 200);
      assert.equal((await request(server, 'GET', DOCS, { token: prot.apiKey })).status, 200);
    });

    test('403 for another account\'s project and for a non-existent id (indistinguishable)', async () => {
      const foreign = await request(server, 'GET', DOCS, { token: server.accountKey, projectId: other.project.projectId });
      const missing = await request(server, 'GET', DOCS, { token: server.accountKey, projectId: '00000000-0000-4000-8000-000000000000' });
      assertError(foreign, 403, 'project_access_denied', 'foreign');
      assertError(missing, 403, 'project_access_denied', 'missing');
      assert.equal(foreign.body.message, missing.body.message);
      assertError(await request(server, 'GET', DOCS, { token: session, projectId: other.project.projectId }), 403, 'project_access_denied', 'session foreign');
      assertError(await request(server, 'GET', DOCS, { token: other.accountKey, projectId: ds.projectId }), 403, 'project_access_denied', 'reverse');
      // the other account's own credentials work on its project
      assert.equal((await request(server, 'GET', DOCS, { token: other.accountKey, projectId: other.project.projectId })).status, 200);
    });

    test('deleting a project revokes its key at once (401); account credentials get 410', async () => {
      const p = await createProject(server, { product: 'docsearch' });
      assert.equal((await request(server, 'GET', DOCS, { token: p.apiKey })).status, 200);
      const del = await request(server, 'DELETE', `/v3/projects/${p.projectId}`, { token: server.accountKey });
      assert.equal(del.status, 200, JSON.stringify(del.body));
      assertError(await request(server, 'GET', DOCS, { token: p.apiKey }), 401, 'unauthorized', 'revoked key');
      assertError(await request(server, 'GET', DOCS, { token: server.accountKey, projectId: p.projectId }), 410, 'namespace_purged', 'account key, purged');
      assertError(await request(server, 'GET', DOCS, { token: session, projectId: p.projectId }), 410, 'namespace_purged', 'session, purged');
    });

    test('login: wrong password and unknown e-mail give the same 401', async () => {
      const wrong = await request(server, 'POST', '/v3/auth/login', { body: { email: server.email, password: 'wrong-password' } });
      const unknown = await request(server, 'POST', '/v3/auth/login', { body: { email: 'nobody@test.invalid', password: 'whatever' } });
      assertError(wrong, 401, 'invalid_credentials', 'wrong password');
      assertError(unknown, 401, 'invalid_credentials', 'unknown email');
      assert.equal(wrong.body.message, unknown.body.message);
      assertError(await request(server, 'POST', '/v3/auth/login', { body: { email: server.email } }), 400, 'validation_failed', 'no password');
      const ok = await request(server, 'POST', '/v3/auth/login', { body: { email: server.email.toUpperCase(), password: server.password } });
      assert.equal(ok.status, 200);
      assert.equal(ok.body.token_type, 'Bearer');
      assert.equal(ok.body.expires_in, 12 * 3600);
      assert.equal(typeof ok.body.account_id, 'string');
      assert.equal(ok.headers.get('cache-control'), 'no-store');
    });

    test('the projects API refuses project keys (403) and anonymous callers (401)', async () => {
      assertError(await request(server, 'GET', '/v3/projects', { token: ds.apiKey }), 403, 'project_access_denied', 'project key list');
      assertError(await request(server, 'POST', '/v3/projects', { token: ds.apiKey, body: { name: 'x', product: 'docsearch' } }), 403, 'project_access_denied', 'project key create');
      assertError(await request(server, 'DELETE', `/v3/projects/${ds.projectId}`, { token: ds.apiKey }), 403, 'project_access_denied', 'project key delete');
      assertError(await request(server, 'GET', '/v3/projects'), 401, 'unauthorized', 'anonymous');
      assert.equal((await request(server, 'GET', DOCS, { token: ds.apiKey })).status, 200, 'the project survived');
    });
  });
}
