// Ingest-side rules of typed attributes over real HTTP, on SQLite and PostgreSQL: every
// limit and error code of the attribute and unencrypted-string headers (a rejected request leaves no
// job, no blob and no registered name behind), inference and declaration through the API, the 64-name
// cap, concurrent first uses of a name resolving to one type, and GET /v3/docsearch/attributes'
// 401 / 403 / 410 / 503 answers.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { startTestServer, createProject, BACKENDS, type TestServer } from './helpers/start-test-server.ts';
import { api, waitForJob } from './helpers/api.ts';

for (const backend of BACKENDS) {
  describe(`attribute ingest rules (${backend})`, () => {
    let server: TestServer;
    before(async () => { server = await startTestServer({ backend }); });
    after(async () => server?.close());

    const ingest = async (key: string, headers: Record<string, string>) => {
      const res = await fetch(server.baseUrl + '/v3/docsearch/ingest', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="note.txt"', ...headers },
        body: 'A short note about attribute handling in docsearch.',
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    };
    const attrs = (key: string) => api(server.baseUrl, key, 'GET', '/v3/docsearch/attributes')
      .then((r) => Object.fromEntries((r.body as { attributes: Array<{ name: string; type: string }> }).attributes.map((a) => [a.name, a.type])));
    const jobCount = async (projectId: string) => Number((await server.services.cp.db.selectFrom('jobs')
      .select((eb) => eb.fn.countAll<number>().as('n')).where('project_id', '=', projectId).executeTakeFirstOrThrow()).n);
    const blobFiles = (projectId: string) => {
      const dir = path.join(server.dataDir, 'blobs', 'projects', projectId);
      return fs.existsSync(dir) ? fs.readdirSync(dir, { recursive: true }).filter((f) => fs.statSync(path.join(dir, String(f))).isFile()).length : 0;
    };

    test('every bad attribute or unencrypted-strings header: its code, and nothing left behind', async () => {
      const { apiKey: key, projectId } = await createProject(server);
      const ok = await ingest(key, { 'x-attributes': JSON.stringify({ n: 5, tags: ['a'] }), 'x-unencrypted-strings': JSON.stringify({ k: 'v' }) });
      assert.equal(ok.status, 201, JSON.stringify(ok.body));
      await waitForJob(server.baseUrl, key, ok.body.job_id);
      const jobs = await jobCount(projectId);
      const blobs = blobFiles(projectId);
      const json = (v: unknown) => JSON.stringify(v);
      const names65 = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`a${i}`, 0]));
      const cases: Array<[string, Record<string, string>, string]> = [
        ['declaration contradicts the fixed type', { 'x-attributes': json({ n: 6, fresh: 1 }), 'x-attribute-schema': json({ n: { type: 'float' } }) }, 'attribute_type_conflict'],
        ['labels declared with another type', { 'x-attribute-schema': json({ labels: { type: '[]string' } }) }, 'attribute_type_conflict'],
        ['value does not fit the fixed type', { 'x-attributes': json({ n: 'five', fresh: 1 }) }, 'attribute_invalid_value'],
        ['array value for a scalar type', { 'x-attributes': json({ n: [5] }) }, 'attribute_invalid_value'],
        ['undeclared datetime-looking value for []string', { 'x-attributes': json({ tags: 'a' }) }, 'attribute_invalid_value'],
        ['declared datetime with a bad value', { 'x-attributes': json({ fresh: 'tomorrow' }), 'x-attribute-schema': json({ fresh: { type: 'datetime' } }) }, 'attribute_invalid_value'],
        ['null cannot be inferred', { 'x-attributes': json({ fresh: null }) }, 'attribute_invalid_value'],
        ['empty array cannot be inferred', { 'x-attributes': json({ fresh: [] }) }, 'attribute_invalid_value'],
        ['mixed array', { 'x-attributes': json({ fresh: [1, 'a'] }) }, 'attribute_invalid_value'],
        ['legacy meta int not an integer', { 'x-meta-int-1': 'ten' }, 'attribute_invalid_value'],
        ['bad name', { 'x-attributes': json({ 'Fresh-Name': 1 }) }, 'attribute_invalid_name'],
        ['bad name in the schema', { 'x-attribute-schema': json({ ['x'.repeat(65)]: { type: 'int' } }) }, 'attribute_invalid_name'],
        ['unknown declared type', { 'x-attribute-schema': json({ fresh: { type: 'timestamp' } }) }, 'attribute_invalid_type'],
        ['X-Attributes over 2048 characters', { 'x-attributes': json({ fresh: 'x'.repeat(2041) }) }, 'attribute_header_too_long'],
        ['X-Attribute-Schema over 2048 characters', { 'x-attribute-schema': json(Object.fromEntries(Array.from({ length: 90 }, (_, i) => [`name_${i}`, { type: 'string' }]))) }, 'attribute_header_too_long'],
        ['X-Labels over 2048 characters', { 'x-labels': 'x,'.repeat(1025) }, 'attribute_header_too_long'],
        ['65 names in one request', { 'x-attributes': json(names65) }, 'attribute_limit_reached'],
        ['X-Attributes not an object', { 'x-attributes': '[1,2]' }, 'invalid_header'],
        ['unencrypted strings: 33 keys', { 'x-unencrypted-strings': json(Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, 'v']))) }, 'unencrypted_strings_invalid'],
        ['unencrypted strings: 65-character key', { 'x-unencrypted-strings': json({ ['k'.repeat(65)]: 'v' }) }, 'unencrypted_strings_invalid'],
        ['unencrypted strings: 1025-character value', { 'x-unencrypted-strings': json({ k: 'v'.repeat(1025) }) }, 'unencrypted_strings_invalid'],
        ['unencrypted strings: 16385 characters in total', { 'x-unencrypted-strings': json(Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${String(i).padStart(2, '0')}`, 'v'.repeat(i < 16 ? 1021 : 17)]))) }, 'unencrypted_strings_invalid'],
        ['unencrypted strings: non-string value', { 'x-unencrypted-strings': json({ k: 1 }) }, 'unencrypted_strings_invalid'],
        ['unencrypted strings: key twice (case-insensitive)', { 'x-unencrypted-strings': '{"Key":"a","kEY":"b"}' }, 'unencrypted_strings_invalid'],
      ];
      for (const [name, headers, code] of cases) {
        const r = await ingest(key, headers);
        assert.equal(r.status, 400, `${name}: ${JSON.stringify(r.body)}`);
        assert.equal(r.body.code, code, name);
        assert.ok(!JSON.stringify(r.body).includes('tomorrow'), `${name}: the value is not echoed`);
      }
      assert.equal(await jobCount(projectId), jobs);
      assert.equal(blobFiles(projectId), blobs);
      assert.deepEqual(await attrs(key), { n: 'int', tags: '[]string' }, 'no name of a rejected request was registered');
    });

    test('limits are inclusive: 2048-character headers and 16384 characters of unencrypted strings are accepted', async () => {
      const { apiKey: key } = await createProject(server);
      const strings = Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`k${String(i).padStart(2, '0')}`, 'v'.repeat(1021)]));
      const attributes = JSON.stringify({ long: 'x'.repeat(2048 - 11) });
      assert.equal(attributes.length, 2048);
      // X-Attribute-Schema of exactly 2048 characters: 29 names of 50 characters, then one padded name.
      const decl = Array.from({ length: 29 }, (_, i) => `"${`d${i}`.padEnd(50, '_')}":{"type":"int"}`);
      const rest = 2048 - 2 - decl.join(',').length - 1 - 17; // braces, comma, quotes + :{"type":"int"}
      const schema = `{${[...decl, `"${'p'.repeat(rest)}":{"type":"int"}`].join(',')}}`;
      assert.equal(schema.length, 2048);
      const r = await ingest(key, { 'x-unencrypted-strings': JSON.stringify(strings), 'x-attributes': attributes, 'x-attribute-schema': schema });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      const done = await waitForJob(server.baseUrl, key, r.body.job_id);
      assert.equal(done.status, 'done', JSON.stringify(done));
      assert.equal(Object.keys(await attrs(key)).length, 31);
    });

    test('inference and declaration through the API; the 64th name is accepted, the 65th refused', async () => {
      const { apiKey: key } = await createProject(server);
      const r = await ingest(key, {
        'x-attributes': JSON.stringify({ s: 'x', when_text: '2024-01-01', i: 1, f: 1.5, b: true, ls: ['a'], li: [1], lf: [1, 2.5], lb: [false], labels: ['k'], d: '2024-01-01T00:00:00Z', e: 'secret' }),
        'x-attribute-schema': JSON.stringify({ d: { type: 'datetime' }, e: { type: 'encrypted_text' }, ld: { type: '[]datetime' }, le: { type: '[]encrypted_text' } }),
      });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      assert.deepEqual(await attrs(key), {
        s: 'string', when_text: 'string', i: 'int', f: 'float', b: 'bool', ls: '[]string', li: '[]int', lf: '[]float', lb: '[]bool',
        labels: '[]encrypted_text', d: 'datetime', e: 'encrypted_text', ld: '[]datetime', le: '[]encrypted_text',
      });
      const fill = Object.fromEntries(Array.from({ length: 64 - 14 }, (_, i) => [`fill_${i}`, i]));
      assert.equal((await ingest(key, { 'x-attributes': JSON.stringify(fill) })).status, 201);
      assert.equal(Object.keys(await attrs(key)).length, 64);
      const over = await ingest(key, { 'x-attributes': JSON.stringify({ one_more: 1 }) });
      assert.equal(over.status, 400);
      assert.equal(over.body.code, 'attribute_limit_reached');
      assert.equal(over.body.details.max_names, 64);
      assert.equal((await ingest(key, { 'x-attributes': JSON.stringify({ fill_3: 7, s: 'reuse' }) })).status, 201, 'reusing names at the cap is fine');
      assert.equal((await ingest(key, { 'x-attributes': JSON.stringify({ i: null }) })).status, 201, 'clearing a value is fine');
      assert.equal(Object.keys(await attrs(key)).length, 64, 'and does not free the name');
    });

    test('concurrent first uses of a name resolve to one type; the cap holds under concurrency', async () => {
      const { apiKey: key } = await createProject(server);
      const racers = Array.from({ length: 8 }, (_, i) => ingest(key, i % 2 ? { 'x-attributes': JSON.stringify({ race: i }) } : { 'x-attributes': JSON.stringify({ race: `v${i}` }) }));
      const declared = Array.from({ length: 6 }, (_, i) => ingest(key, { 'x-attribute-schema': JSON.stringify({ when: { type: i % 2 ? 'datetime' : 'string' } }) }));
      const results = await Promise.all([...racers, ...declared]);
      const types = await attrs(key);
      assert.ok(types.race === 'int' || types.race === 'string', JSON.stringify(types));
      results.slice(0, 8).forEach((r, i) => {
        const wins = (i % 2 ? 'int' : 'string') === types.race;
        assert.equal(r.status, wins ? 201 : 400, `racer ${i}: ${JSON.stringify(r.body)}`);
        if (!wins) assert.equal(r.body.code, 'attribute_invalid_value');
      });
      results.slice(8).forEach((r, i) => {
        const wins = (i % 2 ? 'datetime' : 'string') === types.when;
        assert.equal(r.status, wins ? 201 : 400, `declarer ${i}: ${JSON.stringify(r.body)}`);
        if (!wins) assert.equal(r.body.code, 'attribute_type_conflict');
      });
      const base = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`b${i}`, i]));
      assert.equal((await ingest(key, { 'x-attributes': JSON.stringify(base) })).status, 201); // 62 names now
      const capped = await Promise.all(Array.from({ length: 6 }, (_, i) => ingest(key, { 'x-attributes': JSON.stringify({ [`new_${i}`]: i }) })));
      assert.equal(capped.filter((r) => r.status === 201).length, 2);
      assert.ok(capped.filter((r) => r.status !== 201).every((r) => r.body.code === 'attribute_limit_reached'));
      assert.equal(Object.keys(await attrs(key)).length, 64);
    });

    test('GET /v3/docsearch/attributes: empty list, 401, 403 (altproduct), 410 (purged), 503 when unreadable', async () => {
      const p = await createProject(server);
      const empty = await api(server.baseUrl, p.apiKey, 'GET', '/v3/docsearch/attributes') as { status: number; body: any };
      assert.equal(empty.status, 200);
      assert.deepEqual(empty.body.attributes, []);
      assert.equal(empty.body.max_names, 64);
      assert.equal((await api(server.baseUrl, undefined, 'GET', '/v3/docsearch/attributes')).status, 401);
      assert.equal((await api(server.baseUrl, 'svc_prod_ds_notakey', 'GET', '/v3/docsearch/attributes')).status, 401);
      const alt = await createProject(server, { product: 'altproduct' });
      const altRes = await api(server.baseUrl, server.accountKey, 'GET', '/v3/docsearch/attributes', undefined, { 'x-project-id': alt.projectId });
      assert.equal(altRes.status, 403);
      const gone = await createProject(server);
      assert.equal((await api(server.baseUrl, server.accountKey, 'DELETE', `/v3/projects/${gone.projectId}`)).status < 300, true);
      const purged = await api(server.baseUrl, server.accountKey, 'GET', '/v3/docsearch/attributes', undefined, { 'x-project-id': gone.projectId }) as { status: number; body: any };
      assert.equal(purged.status, 410);
      assert.equal(purged.body.code, 'namespace_purged');
      // Make the registry unreadable for a moment: 503 with Retry-After, never an empty list.
      const db = server.services.cp.db;
      await sql`ALTER TABLE project_attributes RENAME TO project_attributes_away`.execute(db);
      try {
        const r = await api(server.baseUrl, p.apiKey, 'GET', '/v3/docsearch/attributes') as { status: number; body: any; headers: Headers };
        assert.equal(r.status, 503);
        assert.equal(r.body.code, 'backend_unavailable');
        assert.ok(Number(r.headers.get('retry-after')) > 0);
        const s = await api(server.baseUrl, p.apiKey, 'POST', '/v3/docsearch/search', { query: 'x', attribute_filters: [{ attr: 'a', op: 'eq', value: 1 }] });
        assert.equal(s.status, 503);
      } finally {
        await sql`ALTER TABLE project_attributes_away RENAME TO project_attributes`.execute(db);
      }
      assert.equal((await api(server.baseUrl, p.apiKey, 'GET', '/v3/docsearch/attributes')).status, 200);
    });
  });
}
