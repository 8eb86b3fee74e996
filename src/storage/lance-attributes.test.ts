// Attribute columns on a real LanceDB table: columns added to a live table (older rows read NULL and
// never match), every literal escaped (quotes, LIKE metacharacters, backslashes, injection attempts),
// float/int literal forms, Unicode case-insensitive globs, and the AND/OR/false simplification.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openLanceIndex, type LanceNamespaceIndex } from './lance-index.ts';
import { compileAttrExpr, globToLike } from './lance-attributes.ts';
import type { AttrExpr, AttrValue, ChunkRecord } from './namespace-index.ts';

const NS = 'ns_attr_test';
const SIG = { provider: 'test', model: 'unit', dimension: 2 };
let dir: string;
let index: LanceNamespaceIndex;

const row = (docId: string, attributes: Record<string, AttrValue> = {}): ChunkRecord => ({
  id: `${docId}:0`, doc_id: docId, source_job_id: 'job', chunk_index: 0, chunkset_index: 0, page_start: 1, page_end: 1,
  heading_path: '', content: 'alpha beta', tokens: 'alpha beta', token_count: 2, vector: new Float32Array([1, 0]), attributes,
});
const s = (value: string | null): AttrValue => ({ storage: 'string', value });

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lance-attr-'));
  index = await openLanceIndex({ uri: dir, autoOptimizeEveryWrites: 0 });
  await index.addChunks(NS, [row('old')], SIG); // written before any attribute column exists
  await index.addChunks(NS, [
    row('quote', { s: s("it's"), n: { storage: 'int', value: 2 ** 53 - 1 }, f: { storage: 'float', value: 1e21 }, b: { storage: 'bool', value: true } }),
    row('pct', { s: s('100%'), n: { storage: 'int', value: -5 }, f: { storage: 'float', value: 1e-7 }, b: { storage: 'bool', value: false } }),
    row('pctx', { s: s('100x'), ls: { storage: 'string_list', value: [] }, lb: { storage: 'bool_list', value: [false] } }),
    row('under', { s: s('a_b'), ls: { storage: 'string_list', value: ['x', "y'z"] }, li: { storage: 'int_list', value: [3, -1] } }),
    row('underx', { s: s('axb'), lf: { storage: 'float_list', value: [0.25] } }),
    row('slash', { s: s('c:\\dir\n2') }),
    row('umlaut', { s: s('Zürich') }),
    row('none', { s: s(null) }),
  ], SIG);
});
after(async () => {
  await index?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function match(expr: AttrExpr): Promise<string> {
  const [vec, bm] = await Promise.all([
    index.vectorSearch(NS, new Float32Array([1, 0]), 100, { attributes: expr }),
    index.bm25Search(NS, ['alpha'], 100, { attributes: expr }),
  ]);
  const a = vec.map((h) => h.chunk.doc_id).sort().join(',');
  assert.equal(bm.map((h) => h.chunk.doc_id).sort().join(','), a, 'vector and BM25 prefilters agree');
  return a;
}
const eq = (attr: string, storage: AttrValue['storage'], value: string | number | boolean): AttrExpr => ({ kind: 'cmp', attr, storage, op: 'eq', value });
const like = (pattern: string, caseInsensitive = false): AttrExpr => ({ kind: 'like', attr: 's', storage: 'string', caseInsensitive, pattern });

test('literals are escaped: quotes, injection attempts, backslashes, newlines', async () => {
  assert.equal(await match(eq('s', 'string', "it's")), 'quote');
  assert.equal(await match(eq('s', 'string', "x' OR 1=1 OR s <> 'x")), '');
  assert.equal(await match(eq('s', 'string', 'c:\\dir\n2')), 'slash');
  assert.equal(await match({ kind: 'has', attr: 'ls', storage: 'string_list', value: "y'z" }), 'under');
});

test('globs: * and ? are the only wildcards; %, _ and \\ are literal; iglob folds Unicode case', async () => {
  assert.equal(globToLike('a%b_c\\d*e?'), 'a\\%b\\_c\\\\d%e_');
  assert.equal(await match(like('100%')), 'pct');
  assert.equal(await match(like('100?')), 'pct,pctx');
  assert.equal(await match(like('a_b')), 'under');
  assert.equal(await match(like('c:\\dir*')), 'slash');
  assert.equal(await match(like("it'*")), 'quote');
  assert.equal(await match(like('*')), 'pct,pctx,quote,slash,umlaut,under,underx');
  assert.equal(await match(like('zürich')), '');
  assert.equal(await match(like('ZÜRICH', true)), 'umlaut');
});

test('numbers: Int64 precision, float exponents, bools stored as Int8', async () => {
  assert.equal(await match(eq('n', 'int', 2 ** 53 - 1)), 'quote');
  assert.equal(await match({ kind: 'cmp', attr: 'n', storage: 'int', op: 'lt', value: 0 }), 'pct');
  assert.equal(await match(eq('f', 'float', 1e21)), 'quote');
  assert.equal(await match({ kind: 'cmp', attr: 'f', storage: 'float', op: 'lt', value: 1e-6 }), 'pct');
  assert.equal(await match(eq('b', 'bool', true)), 'quote');
  assert.equal(await match({ kind: 'cmp', attr: 'b', storage: 'bool', op: 'ne', value: true }), 'pct');
  assert.equal(await match({ kind: 'has', attr: 'lb', storage: 'bool_list', value: false }), 'pctx');
  assert.equal(await match({ kind: 'min_lt', attr: 'li', storage: 'int_list', value: 0 }), 'under');
  assert.equal(await match({ kind: 'max_gt', attr: 'lf', storage: 'float_list', value: 0.2 }), 'underx');
});

test('rows without a value (older fragments, explicit null, other documents) never match', async () => {
  assert.equal(await match({ kind: 'cmp', attr: 's', storage: 'string', op: 'ne', value: 'nothing' }), 'pct,pctx,quote,slash,umlaut,under,underx');
  assert.equal(await match({ kind: 'has_all', attr: 'ls', storage: 'string_list', values: ['x'] }), 'under');
  assert.equal(await match({ kind: 'list_eq', attr: 'ls', storage: 'string_list', values: [] }), 'pctx');
  assert.equal(await match({ kind: 'in', attr: 'n', storage: 'int', negate: true, values: [1] }), 'pct,quote');
});

test('unknown columns, storage mismatches and false compile to FALSE; AND/OR simplify', async () => {
  const cols = new Map([['n', 'int' as const]]);
  assert.equal(compileAttrExpr(eq('missing', 'int', 1), cols), 'FALSE');
  assert.equal(compileAttrExpr(eq('n', 'string', 'x'), cols), 'FALSE');
  assert.equal(compileAttrExpr({ kind: 'and', items: [eq('n', 'int', 1), { kind: 'false' }] }, cols), 'FALSE');
  assert.equal(compileAttrExpr({ kind: 'or', items: [eq('n', 'int', 1), eq('missing', 'int', 1)] }, cols), '(attr_n IS NOT NULL AND attr_n = 1)');
  assert.equal(await match({ kind: 'or', items: [eq('s', 'string', 'axb'), eq('n', 'int', -5)] }), 'pct,underx');
  assert.equal(await match({ kind: 'and', items: [like('100*'), eq('n', 'int', -5)] }), 'pct');
  assert.equal(await match(eq('nope', 'int', 1)), '');
  assert.throws(() => compileAttrExpr(eq('n', 'int', 1.5), cols), /does not fit/);
});
