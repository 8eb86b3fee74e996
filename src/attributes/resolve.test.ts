// Unit tests of the ingest-side attribute rules: header syntax (ingest-headers.ts), inference,
// declarations and the fixed-type/limit rules (resolve.ts), value checks and RFC 3339 parsing
// (values.ts), the tokenizer and the keyed hashing (tokens.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseAttributeHeaders, decodeHeaderUtf8 } from './ingest-headers.ts';
import { resolveAttributes, toStored, toChunkAttributes } from './resolve.ts';
import { tokenize, TokenHasher } from './tokens.ts';
import { inferType, parseDatetime } from './values.ts';
import { ATTRIBUTE_TYPES, INFERABLE, storageOf, type AttributeType } from './types.ts';

const code = (fn: () => unknown): string => {
  try { fn(); } catch (e) { return (e as { code: string }).code; }
  return 'no error';
};
const parse = (attributes?: unknown, schema?: unknown, legacy: Record<string, string> = {}) => parseAttributeHeaders({
  attributes: attributes === undefined ? undefined : JSON.stringify(attributes),
  attributeSchema: schema === undefined ? undefined : JSON.stringify(schema),
  ...legacy,
});
const resolve = (attributes: unknown, schema?: unknown, fixed: Record<string, AttributeType> = {}) =>
  resolveAttributes(parse(attributes, schema), new Map(Object.entries(fixed)));

test('inference: string, int, float, bool and their arrays; never datetime or encrypted_text', () => {
  const cases: Array<[unknown, AttributeType]> = [
    ['x', 'string'], ['2024-01-01T00:00:00Z', 'string'], [5, 'int'], [-0, 'int'], [1.5, 'float'], [true, 'bool'],
    [['a', 'b'], '[]string'], [[1, 2], '[]int'], [[1, 2.5], '[]float'], [[false], '[]bool'],
  ];
  for (const [v, t] of cases) {
    assert.equal(inferType('n', v), t, JSON.stringify(v));
    assert.ok(INFERABLE.has(t));
  }
  for (const bad of [null, [], [1, 'a'], [[1]], [{}], {}, [null]]) assert.equal(code(() => inferType('n', bad)), 'attribute_invalid_value', JSON.stringify(bad));
});

test('declarations: all 12 types accepted; datetime/encrypted_text only when declared; labels reserved', () => {
  const sample: Record<AttributeType, unknown> = {
    string: 's', int: 1, float: 1, bool: true, datetime: '2024-01-01', encrypted_text: 'secret words',
    '[]string': ['s'], '[]int': [1], '[]float': [1.5, 2], '[]bool': [true], '[]datetime': ['2024-01-01T00:00:00Z'], '[]encrypted_text': ['a b'],
  };
  for (const t of ATTRIBUTE_TYPES) {
    const r = resolve({ v: sample[t] }, { v: { type: t } });
    assert.equal(r.types.get('v'), t);
    assert.deepEqual([...r.newNames], [['v', t]]);
  }
  assert.equal(resolve({ when: '2024-01-01' }).types.get('when'), 'string');
  assert.equal(resolve({ labels: ['a'] }).types.get('labels'), '[]encrypted_text');
  assert.equal(code(() => parse({}, { labels: { type: '[]string' } })), 'attribute_type_conflict');
  assert.equal(code(() => parse({}, { x: { type: 'date' } })), 'attribute_invalid_type');
  assert.equal(code(() => parse({}, { x: 'int' })), 'invalid_header');
  assert.equal(code(() => parse({}, { x: { type: 'int', extra: 1 } })), 'invalid_header');
  // A declaration without a value registers the name too.
  assert.deepEqual([...resolve({}, { later: { type: 'datetime' } }).newNames], [['later', 'datetime']]);
});

test('fixed types win: contradicting declaration -> attribute_type_conflict; unfitting value -> attribute_invalid_value', () => {
  const fixed = { n: 'int' as const, f: 'float' as const, d: 'datetime' as const };
  assert.equal(code(() => resolve({ n: 1 }, { n: { type: 'float' } }, fixed)), 'attribute_type_conflict');
  assert.equal(code(() => resolve({ n: 'x' }, undefined, fixed)), 'attribute_invalid_value');
  assert.equal(code(() => resolve({ n: 1.5 }, undefined, fixed)), 'attribute_invalid_value');
  assert.equal(resolve({ f: 3 }, undefined, fixed).values.get('f'), 3); // an integer fits float
  assert.equal(resolve({ d: '2024-05-01T12:00:00+02:00' }, undefined, fixed).values.get('d'), Date.UTC(2024, 4, 1, 10));
  assert.equal(code(() => resolve({ d: 'yesterday' }, undefined, fixed)), 'attribute_invalid_value');
  assert.equal(resolve({ n: null }, undefined, fixed).values.get('n'), null); // clearing a value keeps the name
  assert.equal(resolve({ n: 2 }, { n: { type: 'int' } }, fixed).newNames.size, 0);
  assert.equal(code(() => resolve({ n: 2 ** 53 }, undefined, fixed)), 'attribute_invalid_value');
  assert.equal(code(() => resolve({ a: [1] }, { a: { type: '[]string' } })), 'attribute_invalid_value');
  assert.equal(code(() => resolve({ a: 'x' }, { a: { type: '[]string' } })), 'attribute_invalid_value');
});

test('limits: names, header length, 64 names per project', () => {
  assert.equal(code(() => parse({ 'Bad-Name': 1 })), 'attribute_invalid_name');
  assert.equal(code(() => parse({ ['x'.repeat(65)]: 1 })), 'attribute_invalid_name');
  assert.equal(code(() => parse({ '': 1 })), 'attribute_invalid_name');
  assert.equal(code(() => parse({ s: 'x'.repeat(2040) })), 'no error'); // exactly 2048 characters
  assert.equal(code(() => parse({ s: 'x'.repeat(2041) })), 'attribute_header_too_long');
  assert.equal(code(() => parse(undefined, { s: { type: 'string' }, t: { type: 'x'.repeat(2040) } })), 'attribute_header_too_long');
  assert.equal(code(() => parseAttributeHeaders({ attributes: '[1]' })), 'invalid_header');
  assert.equal(code(() => parseAttributeHeaders({ attributes: '{' })), 'invalid_header');
  const many = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`a${i}`, 0]));
  assert.equal(code(() => parse(many)), 'attribute_limit_reached');
  const fixed = Object.fromEntries(Array.from({ length: 63 }, (_, i) => [`f${i}`, 'int' as const]));
  assert.equal(resolve({ new1: 1 }, undefined, fixed).newNames.size, 1); // the 64th name
  assert.equal(code(() => resolve({ new1: 1, new2: 2 }, undefined, fixed)), 'attribute_limit_reached');
  assert.equal(resolve({ f1: 1, f2: 2 }, undefined, { ...fixed, x: 'int' }).newNames.size, 0); // reuse is fine at 64
  // `__proto__` is a valid name and must not touch prototypes.
  assert.deepEqual([...resolve({ __proto__x: 1, constructor: 'c' }).types.keys()].sort(), ['__proto__x', 'constructor']);
  const proto = parseAttributeHeaders({ attributes: '{"__proto__": 5}' });
  assert.equal(resolveAttributes(proto, new Map()).types.get('__proto__'), 'int');
});

test('legacy headers map onto labels, meta_int_1, meta_int_2', () => {
  const p = parse(undefined, undefined, { labels: 'Urgent, finance ,', metaInt1: '42', metaInt2: '-7' });
  const r = resolveAttributes(p, new Map());
  assert.deepEqual(Object.fromEntries(r.types), { labels: '[]encrypted_text', meta_int_1: 'int', meta_int_2: 'int' });
  assert.deepEqual(r.values.get('labels'), ['Urgent', 'finance']);
  assert.equal(r.values.get('meta_int_1'), 42);
  assert.deepEqual(parse(undefined, undefined, { labels: '["a,b", "c"]' }).values.labels, ['a,b', 'c']);
  assert.equal(code(() => parse(undefined, undefined, { metaInt1: '1.5' })), 'attribute_invalid_value');
  assert.equal(code(() => parse({ labels: ['x'] }, undefined, { labels: 'y' })), 'invalid_header');
  assert.equal(code(() => parse(undefined, undefined, { labels: 'x'.repeat(2049) })), 'attribute_header_too_long');
});

test('datetime parsing: RFC 3339 date-times and dates, invalid calendar dates refused', () => {
  assert.equal(parseDatetime('2024-01-01'), Date.UTC(2024, 0, 1));
  assert.equal(parseDatetime('2024-01-01T10:00:00.123456Z'), Date.UTC(2024, 0, 1, 10, 0, 0, 123));
  assert.equal(parseDatetime('2024-01-01T10:00:00-05:30'), Date.UTC(2024, 0, 1, 15, 30));
  assert.equal(parseDatetime('0001-01-01T00:00:00Z'), -62135596800000);
  for (const bad of ['2024-02-30', '2023-02-29', '2024-13-01', '2024-01-01T24:00:00Z', '2024-01-01T10:00:00', '01/02/2024', '2024-1-1']) {
    assert.equal(parseDatetime(bad), null, bad);
  }
  assert.equal(parseDatetime('2024-02-29'), Date.UTC(2024, 1, 29));
});

test('tokenizer: NFKC, lower-case, word segmentation; no stemming, no partial words', () => {
  assert.deepEqual(tokenize('Project NIGHTINGALE, phase-2!'), ['project', 'nightingale', 'phase', '2']);
  assert.deepEqual(tokenize('Running runs ran'), ['running', 'runs', 'ran']);
  assert.deepEqual(tokenize('Résumé ＡＢＣ'), ['résumé', 'abc']);
  assert.deepEqual(tokenize('a a A'), ['a']);
  assert.deepEqual(tokenize(' ,;- '), []);
});

test('hashing: per project and attribute, deterministic, no plaintext in the stored form', () => {
  const h = new TokenHasher('x'.repeat(32));
  const [a] = h.hashTokens('p1', 'labels', ['secret']);
  assert.match(a, /^[0-9a-f]{32}$/);
  assert.equal(h.hashTokens('p1', 'labels', ['secret'])[0], a);
  assert.notEqual(h.hashTokens('p2', 'labels', ['secret'])[0], a);
  assert.notEqual(h.hashTokens('p1', 'other', ['secret'])[0], a);
  assert.notEqual(new TokenHasher('y'.repeat(32)).hashTokens('p1', 'labels', ['secret'])[0], a);
  const r = resolve({ note: 'Top Secret plan', tags: ['Secret', 'x'] }, { note: { type: 'encrypted_text' }, tags: { type: '[]encrypted_text' } });
  const stored = toStored('p1', r, h);
  assert.equal((stored.note.value as string[]).length, 3);
  assert.deepEqual(stored.tags.value, h.hashTexts('p1', 'tags', ['secret', 'X']));
  assert.ok(!JSON.stringify(stored).toLowerCase().includes('secret'));
  const chunk = toChunkAttributes(JSON.parse(JSON.stringify(stored)));
  assert.equal(chunk.note.storage, 'string_list');
  assert.deepEqual(Object.keys(toChunkAttributes({ legacy: 5, bad: { type: 'nope', value: 1 } })), []);
});

test('storage kinds of the 12 types', () => {
  assert.deepEqual(ATTRIBUTE_TYPES.map(storageOf), ['string', 'int', 'float', 'bool', 'int', 'string_list', 'string_list', 'int_list', 'float_list', 'bool_list', 'int_list', 'string_list']);
});

test('header values sent as UTF-8 bytes are decoded', () => {
  const latin1 = Buffer.from('{"city":"Zürich"}', 'utf8').toString('latin1');
  assert.equal(decodeHeaderUtf8(latin1), '{"city":"Zürich"}');
  assert.equal(decodeHeaderUtf8('plain'), 'plain');
  assert.equal(decodeHeaderUtf8('caf\u00e9'), 'caf\u00e9'); // not valid UTF-8: kept as latin1
});
