// Typed attributes end to end over real HTTP: documents ingested with every one of the 12
// types, then one table-driven search per (type, operator) pair of the spec's operator table, each
// with matching and non-matching documents; every type's unsupported operators; unknown names; filters
// combined with doc_ids / exclude_doc_ids / doc_filter / unencrypted_strings_match; the legacy headers
// and search fields; GET /v3/docsearch/attributes; and no encrypted_text plaintext anywhere on disk.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startTestServer, createProject, type TestServer } from './helpers/start-test-server.ts';
import { api, dataPath, ingestFile, waitForJob } from './helpers/api.ts';
import { OPERATORS, ATTRIBUTE_TYPES, ALL_OPERATORS, type AttributeType } from '../src/attributes/types.ts';

const FILE = dataPath('docs', 'md', 'codeblock.md');
const QUERY = 'HTML example code block';
const SECRET = 'Zanzibarquux';
/** An unencrypted string (stored in plaintext by design): the scan must find it, or it proves nothing. */
const CONTROL = 'Quokkasearch';

/** One attribute per type, named after it (t_string, t_arr_int, ...). */
const nameOf = (t: AttributeType) => (t.startsWith('[]') ? `t_arr_${t.slice(2)}` : `t_${t}`);
const SCHEMA = Object.fromEntries(ATTRIBUTE_TYPES.map((t) => [nameOf(t), { type: t }]));

const DOCS: Record<'A' | 'B' | 'C', Record<string, unknown>> = {
  A: {
    t_string: 'Alpha Report', t_int: 5, t_float: 1.5, t_bool: true, t_datetime: '2024-01-15T10:00:00Z',
    t_encrypted_text: `Project Nightingale budget ${SECRET}`, t_arr_string: ['red', 'blue'], t_arr_int: [1, 7],
    t_arr_float: [0.5, 2.5], t_arr_bool: [true], t_arr_datetime: ['2024-01-01', '2024-06-01T00:00:00Z'],
    t_arr_encrypted_text: ['alpha team', 'Berlin'],
  },
  B: {
    t_string: 'beta notes', t_int: 10, t_float: 2.5, t_bool: false, t_datetime: '2024-06-01T00:00:00Z',
    t_encrypted_text: 'Project Falcon', t_arr_string: ['green'], t_arr_int: [3], t_arr_float: [9.5], t_arr_bool: [false],
    t_arr_datetime: ['2023-03-03T00:00:00Z'], t_arr_encrypted_text: ['beta team'],
  },
  C: {
    t_string: 'gamma', t_int: -3, t_float: -1, t_bool: false, t_datetime: '2025-01-01', t_encrypted_text: 'nightingale',
    t_arr_string: ['red'], t_arr_int: [], t_arr_float: [], t_arr_bool: [true, false], t_arr_datetime: [],
    t_arr_encrypted_text: ['Paris'],
  },
};

/** [type, op, value, documents that must match]; every other document (A, B, C, D without attributes) must not. */
const CASES: Array<[AttributeType, string, unknown, string]> = [
  ['string', 'eq', 'gamma', 'C'], ['string', 'eq', 'Gamma', ''], ['string', 'ne', 'gamma', 'AB'],
  ['string', 'in', ['gamma', 'beta notes'], 'BC'], ['string', 'nin', ['gamma'], 'AB'],
  ['string', 'glob', '*Report', 'A'], ['string', 'glob', '?eta*', 'B'], ['string', 'glob', 'beta notes', 'B'], ['string', 'glob', '*report', ''],
  ['string', 'iglob', 'ALPHA*', 'A'], ['string', 'iglob', '*E*', 'AB'],
  ['int', 'eq', 5, 'A'], ['int', 'ne', 5, 'BC'], ['int', 'in', [5, 10], 'AB'], ['int', 'nin', [5], 'BC'],
  ['int', 'lt', 5, 'C'], ['int', 'lte', 5, 'AC'], ['int', 'gt', 5, 'B'], ['int', 'gte', 10, 'B'],
  ['float', 'eq', 2.5, 'B'], ['float', 'ne', 2.5, 'AC'], ['float', 'lt', 1.5, 'C'], ['float', 'lte', 1.5, 'AC'],
  ['float', 'gt', 1.5, 'B'], ['float', 'gte', -1, 'ABC'],
  ['datetime', 'eq', '2024-06-01T02:00:00+02:00', 'B'], ['datetime', 'ne', '2024-06-01T00:00:00Z', 'AC'],
  ['datetime', 'lt', '2024-06-01', 'A'], ['datetime', 'lte', '2024-06-01', 'AB'], ['datetime', 'gt', '2024-06-01', 'C'],
  ['datetime', 'gte', '2024-01-15T10:00:00Z', 'ABC'],
  ['bool', 'eq', true, 'A'], ['bool', 'eq', false, 'BC'], ['bool', 'ne', true, 'BC'],
  ['[]string', 'contains', 'red', 'AC'], ['[]string', 'contains_any', ['green', 'blue'], 'AB'], ['[]string', 'eq', 'red', 'AC'],
  ['[]string', 'eq', ['red', 'blue'], 'A'], ['[]string', 'eq', ['blue', 'red'], ''], ['[]string', 'in', ['green', 'x'], 'B'],
  ['[]int', 'contains', 7, 'A'], ['[]int', 'contains_any', [3, 100], 'B'], ['[]int', 'any_lt', 2, 'A'], ['[]int', 'any_gt', 2, 'AB'],
  ['[]float', 'contains', 9.5, 'B'], ['[]float', 'contains_any', [0.5, 100], 'A'], ['[]float', 'any_lt', 1, 'A'], ['[]float', 'any_gt', 5, 'B'],
  ['[]datetime', 'contains', '2023-03-03', 'B'], ['[]datetime', 'any_lt', '2024-01-02', 'AB'], ['[]datetime', 'any_gt', '2024-03-01', 'A'],
  ['[]bool', 'contains', true, 'AC'], ['[]bool', 'contains', false, 'BC'], ['[]bool', 'contains_any', [false], 'BC'],
  ['encrypted_text', 'has_all_tokens', 'project NIGHTINGALE', 'A'], ['encrypted_text', 'has_all_tokens', 'nightingale', 'AC'],
  ['encrypted_text', 'has_any_tokens', ['falcon', 'nightingale'], 'ABC'], ['encrypted_text', 'has_any_tokens', 'nighting', ''],
  ['[]encrypted_text', 'has_all_tokens', 'alpha team', 'A'], ['[]encrypted_text', 'has_any_tokens', 'team', 'AB'],
  ['[]encrypted_text', 'has_all_tokens', ['team', 'berlin'], 'A'], ['[]encrypted_text', 'has_any_tokens', 'paris', 'C'],
];

describe('typed attributes over HTTP', () => {
  let server: TestServer;
  let key: string;
  const ids: Record<string, string> = {};
  const label = (docIds: string[]) => docIds.map((d) => Object.keys(ids).find((k) => ids[k] === d) ?? d).sort().join('');
  const search = async (body: Record<string, unknown>) => api(server.baseUrl, key, 'POST', '/v3/docsearch/search', { query: QUERY, format: 'json', min_relevance: 0, ...body });
  const matched = async (body: Record<string, unknown>) => {
    const r = await search(body);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return label([...new Set((r.body as { results: Array<{ doc_id: string }> }).results.map((h) => h.doc_id))]);
  };
  const ingest = async (headers: Record<string, string>) => {
    const r = await ingestFile(server.baseUrl, key, FILE, headers);
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const done = await waitForJob(server.baseUrl, key, (r.body as { job_id: string }).job_id);
    assert.equal(done.status, 'done', JSON.stringify(done));
    return done.doc_id as string;
  };

  before(async () => {
    server = await startTestServer({ backend: 'sqlite' });
    ({ apiKey: key } = await createProject(server));
    for (const [k, attrs] of Object.entries(DOCS)) {
      ids[k] = await ingest({ 'x-attributes': JSON.stringify(attrs), 'x-attribute-schema': JSON.stringify(k === 'A' ? SCHEMA : {}), 'x-unencrypted-strings': JSON.stringify({ Team: k === 'A' ? CONTROL : 'other' }) });
    }
    ids.D = await ingest({});
    ids.L = await ingest({ 'x-labels': 'Urgent, finance', 'x-meta-int-1': '3', 'x-meta-int-2': '100' });
    ids.M = await ingest({ 'x-labels': '["finance"]', 'x-meta-int-1': '1' });
  });
  after(async () => server?.close());

  test('without filters every document is found (the baseline of the table)', async () => {
    assert.equal(await matched({}), 'ABCDLM');
  });

  test('every (type, operator) pair of the spec matches exactly the expected documents', async () => {
    const covered = new Set<string>();
    for (const [type, op, value, expected] of CASES) {
      covered.add(`${type} ${op}`);
      assert.equal(await matched({ attribute_filters: [{ attr: nameOf(type), op, value }] }), expected, `${type} ${op} ${JSON.stringify(value)}`);
    }
    const missing = ATTRIBUTE_TYPES.flatMap((t) => OPERATORS[t].map((op) => `${t} ${op}`)).filter((p) => !covered.has(p));
    assert.deepEqual(missing, [], 'pairs without a case');
  });

  test('after optimize the attribute columns carry scalar indexes and every pair matches the same documents', async () => {
    const ns = ((await api(server.baseUrl, key, 'GET', '/v3/docsearch/docs')).body as { namespace: string }).namespace;
    await server.services.index.optimize(ns);
    const lancedb = await import('@lancedb/lancedb');
    const db = await lancedb.connect(path.join(server.dataDir, 'lance'));
    const table = await db.openTable(ns);
    const indexed = (await table.listIndices()).flatMap((i) => i.columns).filter((c) => c.startsWith('attr_'));
    table.close();
    db.close();
    assert.ok(indexed.length >= 6, `indexed attribute columns: ${indexed.join(', ')}`);
    for (const [type, op, value, expected] of CASES) {
      assert.equal(await matched({ attribute_filters: [{ attr: nameOf(type), op, value }] }), expected, `${type} ${op} ${JSON.stringify(value)} (indexed)`);
    }
  });

  test('an operator the type does not offer is 400 unsupported_operator naming the offered ones', async () => {
    for (const type of ATTRIBUTE_TYPES) {
      for (const op of ALL_OPERATORS.filter((o) => !OPERATORS[type].includes(o))) {
        const r = await search({ attribute_filters: [{ attr: nameOf(type), op, value: 1 }] });
        assert.equal(r.status, 400, `${type} ${op}`);
        const body = r.body as { code: string; message: string; details: { allowed: string[] } };
        assert.equal(body.code, 'unsupported_operator');
        assert.deepEqual(body.details.allowed, OPERATORS[type]);
        assert.ok(OPERATORS[type].every((o) => body.message.includes(o)), body.message);
      }
    }
    const unknownOp = await search({ attribute_filters: [{ attr: 't_int', op: 'between', value: 1 }] });
    assert.equal((unknownOp.body as { code: string }).code, 'unsupported_operator');
  });

  test('operands that do not fit the type are 400 attribute_invalid_value', async () => {
    const bad: Array<[string, string, unknown]> = [
      ['t_int', 'eq', '5'], ['t_int', 'eq', 1.5], ['t_int', 'in', []], ['t_string', 'glob', 5], ['t_datetime', 'lt', 'soon'],
      ['t_bool', 'eq', 'true'], ['t_arr_int', 'contains_any', 3], ['t_encrypted_text', 'has_all_tokens', ' - '], ['t_arr_string', 'in', 'red'],
    ];
    for (const [attr, op, value] of bad) {
      const r = await search({ attribute_filters: [{ attr, op, value }] });
      assert.equal(r.status, 400, `${attr} ${op} ${JSON.stringify(value)}`);
      assert.equal((r.body as { code: string }).code, 'attribute_invalid_value');
    }
    const tooMany = await search({ attribute_filters: Array.from({ length: 33 }, () => ({ attr: 't_int', op: 'eq', value: 1 })) });
    assert.equal(tooMany.status, 400);
  });

  test('clauses are ANDed; a name never used matches nothing; filters combine with the other scopes', async () => {
    assert.equal(await matched({ attribute_filters: [{ attr: 't_int', op: 'gte', value: 5 }, { attr: 't_bool', op: 'eq', value: false }] }), 'B');
    assert.equal(await matched({ attribute_filters: [{ attr: 'never_used', op: 'eq', value: 1 }] }), '');
    assert.equal(await matched({ attribute_filters: [{ attr: 't_int', op: 'gte', value: -100 }, { attr: 'never_used', op: 'ne', value: 'x' }] }), '');
    assert.equal(await matched({ attribute_filters: [{ attr: 't_int', op: 'gte', value: -100 }], doc_ids: [ids.A, ids.C, ids.D] }), 'AC');
    assert.equal(await matched({ attribute_filters: [{ attr: 't_int', op: 'gte', value: -100 }], exclude_doc_ids: [ids.B] }), 'AC');
    assert.equal(await matched({ attribute_filters: [{ attr: 't_int', op: 'gte', value: -100 }], doc_filter: ids.C }), 'C');
    assert.equal(await matched({ attribute_filters: [{ attr: 't_int', op: 'gte', value: -100 }], unencrypted_strings_match: { TEAM: 'oth?r' } }), 'BC');
    const inDoc = await api(server.baseUrl, key, 'POST', '/v3/docsearch/searchInDoc', { query: QUERY, format: 'json', min_relevance: 0, doc_filter: ids.A, attribute_filters: [{ attr: 't_int', op: 'eq', value: 10 }] });
    assert.equal(inDoc.status, 200);
    assert.equal((inDoc.body as { result_count: number }).result_count, 0);
  });

  test('legacy search fields map onto labels and meta_int_1 / meta_int_2', async () => {
    assert.equal(await matched({ meta_tags_any: ['urgent'] }), 'L');
    assert.equal(await matched({ meta_tags_any: ['FINANCE', 'nothing'] }), 'LM');
    assert.equal(await matched({ meta_tags_all: ['urgent', 'finance'] }), 'L');
    assert.equal(await matched({ meta_tags_all: ['finance'] }), 'LM');
    assert.equal(await matched({ meta_int_1_gte: 2 }), 'L');
    assert.equal(await matched({ meta_int_1_lte: 2 }), 'M');
    assert.equal(await matched({ meta_int_1_gte: 1, meta_int_1_lte: 3, meta_tags_any: ['finance'] }), 'LM');
    assert.equal(await matched({ meta_int_2_gte: 100, meta_int_2_lte: 100 }), 'L');
    assert.equal(await matched({ meta_int_2_lte: 99 }), '');
    assert.equal(await matched({ attribute_filters: [{ attr: 'labels', op: 'has_any_tokens', value: 'urgent' }] }), 'L');
  });

  test('GET /v3/docsearch/attributes lists every name with its type, max_names and a note', async () => {
    const r = await api(server.baseUrl, key, 'GET', '/v3/docsearch/attributes');
    assert.equal(r.status, 200);
    const body = r.body as { attributes: Array<{ name: string; type: string }>; max_names: number; note: string };
    assert.equal(body.max_names, 64);
    assert.match(body.note, /\S/);
    const types = Object.fromEntries(body.attributes.map((a) => [a.name, a.type]));
    assert.deepEqual(types, { ...Object.fromEntries(ATTRIBUTE_TYPES.map((t) => [nameOf(t), t])), labels: '[]encrypted_text', meta_int_1: 'int', meta_int_2: 'int' });
  });

  test('no encrypted_text plaintext in the data directory, the job payload or any response', async () => {
    await server.services.index.optimize(((await api(server.baseUrl, key, 'GET', '/v3/docsearch/docs')).body as { namespace: string }).namespace);
    const needles = [SECRET, SECRET.toLowerCase(), 'Nightingale', 'nightingale', 'Berlin', 'berlin', 'urgent', 'Urgent'].map((s) => Buffer.from(s));
    const hits: string[] = [];
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) { if (p !== path.join(server.dataDir, 'models')) walk(p); } // models: the GloVe vocabulary
        else if (e.isFile()) {
          const data = fs.readFileSync(p);
          for (const n of needles) if (data.includes(n)) hits.push(`${path.relative(server.dataDir, p)}: ${n}`);
        }
      }
    };
    needles.push(Buffer.from(CONTROL));
    walk(server.dataDir);
    assert.ok(hits.some((h) => h.endsWith(CONTROL)), 'positive control: the plaintext unencrypted string is found');
    assert.deepEqual(hits.filter((h) => !h.endsWith(CONTROL)), []);
    const payloads = await server.services.cp.db.selectFrom('jobs').select('payload').execute();
    assert.ok(payloads.length >= 6 && payloads.every((p) => !p.payload.includes('ightingale') && !p.payload.includes(SECRET)));
    for (const p of ['/v3/docsearch/docs', `/v3/docsearch/docs/${ids.A}`, '/v3/docsearch/attributes']) {
      assert.ok(!JSON.stringify((await api(server.baseUrl, key, 'GET', p)).body).includes('ightingale'), p);
    }
  });
});
