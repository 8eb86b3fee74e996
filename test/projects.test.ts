// The projects API (DESIGN.md §6) over real HTTP on SQLite and PostgreSQL: create (key shown once, with
// the product's prefix), list (never a key), delete (key revoked, idempotent, 404 for others' projects),
// validation, name reuse after delete, keys stored only as sha256, and an idempotent bootstrap.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { BACKENDS, startTestServer, type TestServer } from './helpers/server.ts';
import { createProject, request } from './helpers/http.ts';

const sha256 = (s: string) => crypto.createHash('sha256').update(s).digest('hex');

for (const backend of BACKENDS) {
  describe(`projects API (${backend})`, () => {
    let server: TestServer;

    before(async () => { server = await startTestServer({ backend, workers: false }); });
    after(async () => server?.close());

    test('create returns the project and its key once; list never shows a key', async () => {
      const res = await request(server, 'POST', '/v3/projects', { token: server.accountKey, body: { name: 'alpha', product: 'docsearch' } });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const p = res.body;
      assert.deepEqual(Object.keys(p).sort(), ['api_key', 'created_at', 'id', 'name', 'namespace', 'product', 'protected']);
      assert.equal(p.name, 'alpha');
      assert.equal(p.product, 'docsearch');
      assert.equal(p.protected, false);
      assert.match(p.namespace, /^ns_[0-9a-f]{32}$/);
      assert.match(p.api_key, /^svc_prod_ds_[A-Za-z0-9_-]{43}$/);
      assert.ok(!Number.isNaN(Date.parse(p.created_at)));
      assert.equal(res.headers.get('cache-control'), 'no-store');

      const alt = await request(server, 'POST', '/v3/projects', { token: server.accountKey, body: { name: 'beta', product: 'altproduct', protected: true } });
      assert.equal(alt.status, 201);
      assert.match(alt.body.api_key, /^svc_prod_alt_/);
      assert.equal(alt.body.protected, true);

      const list = await request(server, 'GET', '/v3/projects', { token: server.accountKey });
      assert.equal(list.status, 200);
      const text = JSON.stringify(list.body);
      assert.ok(!text.includes(p.api_key) && !text.includes(alt.body.api_key), 'keys never listed');
      const mine = list.body.projects.find((x: { id: string }) => x.id === p.id);
      assert.deepEqual(mine, { id: p.id, name: 'alpha', product: 'docsearch', protected: false, namespace: p.namespace, created_at: p.created_at });
      assert.ok(list.body.projects.some((x: { id: string; protected: boolean }) => x.id === alt.body.id && x.protected));
    });

    test('keys are stored only as sha256 hashes', async () => {
      const p = await createProject(server, { product: 'docsearch' });
      const rows = await server.services.cp.db.selectFrom('api_keys').selectAll().execute();
      for (const row of rows) {
        const values = Object.values(row).map(String);
        assert.ok(!values.includes(p.apiKey) && !values.includes(server.accountKey), 'no plaintext column');
        assert.ok(!values.some((v) => v.length > 20 && (p.apiKey.includes(v) || server.accountKey.includes(v))), 'no long key fragment');
        assert.match(row.key_hash, /^[0-9a-f]{64}$/);
      }
      const own = rows.find((r) => r.key_hash === sha256(p.apiKey));
      assert.ok(own, 'project key found by its hash');
      assert.equal(own!.kind, 'project');
      assert.equal(own!.project_id, p.projectId);
      assert.equal(own!.revoked_at, null);
      assert.equal(own!.display_prefix, p.apiKey.slice(0, 16));
      const acc = rows.find((r) => r.key_hash === sha256(server.accountKey));
      assert.equal(acc?.kind, 'account');
      const users = await server.services.cp.db.selectFrom('users').select('password_hash').execute();
      assert.ok(users.every((u) => u.password_hash.startsWith('$argon2id$') && !u.password_hash.includes(server.password)));
    });

    test('validation: name length, product, unknown fields, duplicate active names', async () => {
      const bad: Array<[unknown, string]> = [
        [{ name: '', product: 'docsearch' }, 'empty name'],
        [{ name: 'x'.repeat(129), product: 'docsearch' }, 'long name'],
        [{ name: 'ok', product: 'other' }, 'bad product'],
        [{ name: 'ok' }, 'no product'],
        [{ name: 'ok', product: 'docsearch', protected: 'yes' }, 'protected not boolean'],
        [{ name: 'ok', product: 'docsearch', extra: 1 }, 'unknown field'],
      ];
      for (const [body, what] of bad) {
        const r = await request(server, 'POST', '/v3/projects', { token: server.accountKey, body });
        assert.equal(r.status, 400, `${what}: ${JSON.stringify(r.body)}`);
        assert.equal(r.body.code, 'validation_failed', what);
      }
      const okMax = await request(server, 'POST', '/v3/projects', { token: server.accountKey, body: { name: 'n'.repeat(128), product: 'docsearch' } });
      assert.equal(okMax.status, 201);
      const dup = await request(server, 'POST', '/v3/projects', { token: server.accountKey, body: { name: 'n'.repeat(128), product: 'altproduct' } });
      assert.equal(dup.status, 409);
      assert.equal(dup.body.code, 'project_name_taken');
    });

    test('delete revokes the key, hides the project, is idempotent; a new project with the same name gets a new key and namespace', async () => {
      const p = await createProject(server, { product: 'docsearch', name: 'rotating' });
      const del = await request(server, 'DELETE', `/v3/projects/${p.projectId}`, { token: server.accountKey });
      assert.equal(del.status, 200, JSON.stringify(del.body));
      assert.deepEqual(del.body, { id: p.projectId, deleted: true });
      const row = await server.services.cp.db.selectFrom('api_keys').select(['revoked_at']).where('key_hash', '=', sha256(p.apiKey)).executeTakeFirstOrThrow();
      assert.ok(row.revoked_at, 'key revoked');
      const proj = await server.services.cp.db.selectFrom('projects').select(['status', 'deleted_at']).where('id', '=', p.projectId).executeTakeFirstOrThrow();
      assert.equal(proj.status, 'purged');
      const list = await request(server, 'GET', '/v3/projects', { token: server.accountKey });
      assert.ok(!list.body.projects.some((x: { id: string }) => x.id === p.projectId));
      assert.deepEqual((await request(server, 'DELETE', `/v3/projects/${p.projectId}`, { token: server.accountKey })).body, { id: p.projectId, deleted: true });

      const again = await createProject(server, { product: 'docsearch', name: 'rotating' });
      assert.notEqual(again.projectId, p.projectId);
      assert.notEqual(again.apiKey, p.apiKey);
      assert.notEqual(again.namespace, p.namespace);
      const docs = await request(server, 'GET', '/v3/docsearch/docs', { token: again.apiKey });
      assert.equal(docs.status, 200);
      assert.equal(docs.body.namespace, again.namespace);
      assert.equal((await request(server, 'GET', '/v3/docsearch/docs', { token: p.apiKey })).status, 401);
    });

    test('delete of an unknown or another account\'s project is 404 and changes nothing', async () => {
      const acc = await server.services.projects.createAccount({ name: 'o', email: `o-${crypto.randomUUID()}@test.invalid`, password: 'pw-123456789' });
      const theirs = await createProject(server, { product: 'docsearch', token: acc.accountKey });
      const r = await request(server, 'DELETE', `/v3/projects/${theirs.projectId}`, { token: server.accountKey });
      assert.equal(r.status, 404);
      assert.equal(r.body.code, 'project_not_found');
      assert.equal((await request(server, 'DELETE', '/v3/projects/nope', { token: server.accountKey })).status, 404);
      assert.equal((await request(server, 'GET', '/v3/docsearch/docs', { token: theirs.apiKey })).status, 200);
      const theirList = await request(server, 'GET', '/v3/projects', { token: acc.accountKey });
      assert.deepEqual(theirList.body.projects.map((x: { id: string }) => x.id), [theirs.projectId], 'accounts see only their own projects');
    });

    test('a protected project cannot be deleted with an account key, only with a session', async () => {
      const p = await createProject(server, { product: 'docsearch', protected: true });
      const r = await request(server, 'DELETE', `/v3/projects/${p.projectId}`, { token: server.accountKey });
      assert.equal(r.status, 403, JSON.stringify(r.body));
      assert.equal(r.body.code, 'project_access_denied');
      assert.equal((await request(server, 'GET', '/v3/docsearch/docs', { token: p.apiKey })).status, 200, 'still alive');
      const login = await request(server, 'POST', '/v3/auth/login', { body: { email: server.email, password: server.password } });
      assert.equal((await request(server, 'DELETE', `/v3/projects/${p.projectId}`, { token: login.body.token })).status, 200);
      assert.equal((await request(server, 'GET', '/v3/docsearch/docs', { token: p.apiKey })).status, 401);
    });

    test('a login session can create, list and delete projects', async () => {
      const login = await request(server, 'POST', '/v3/auth/login', { body: { email: server.email, password: server.password } });
      const token = login.body.token as string;
      const created = await request(server, 'POST', '/v3/projects', { token, body: { name: 'via-session', product: 'docsearch' } });
      assert.equal(created.status, 201);
      const list = await request(server, 'GET', '/v3/projects', { token });
      assert.ok(list.body.projects.some((x: { id: string }) => x.id === created.body.id));
      assert.equal((await request(server, 'DELETE', `/v3/projects/${created.body.id}`, { token })).status, 200);
    });

    test('bootstrap is idempotent and keeps the configured account key', async () => {
      const before = await server.services.cp.db.selectFrom('api_keys').select('id').execute();
      const accounts = await server.services.cp.db.selectFrom('accounts').select('id').execute();
      const r = await server.services.projects.bootstrap();
      assert.equal(r.created, false);
      assert.equal(r.generatedAccountKey, undefined);
      assert.equal(r.generatedPassword, undefined);
      assert.equal((await server.services.cp.db.selectFrom('api_keys').select('id').execute()).length, before.length);
      assert.equal((await server.services.cp.db.selectFrom('accounts').select('id').execute()).length, accounts.length);
      assert.equal((await request(server, 'GET', '/v3/projects', { token: server.accountKey })).status, 200);
    });

    test('the endpoints are in the OpenAPI document', async () => {
      const r = await request(server, 'GET', '/v3/openapi.json');
      assert.equal(r.status, 200);
      for (const p of ['/v3/projects', '/v3/projects/{id}', '/v3/auth/login']) assert.ok(r.body.paths[p], p);
      assert.ok(r.body.paths['/v3/projects'].post.requestBody, 'create has a body schema');
      assert.ok(r.body.paths['/v3/projects'].post.responses['201'], 'create has a 201 schema');
    });
  });
}
