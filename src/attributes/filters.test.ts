// Unit tests of the search-side filter builder: the operator table per type, operand checks, unknown
// names, legacy field mapping, and that query tokens hash exactly like ingested ones.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildAttributeFilter } from './filters.ts';
import { parseAttributeHeaders } from './ingest-headers.ts';
import { resolveAttributes, toStored } from './resolve.ts';
import { TokenHasher } from './tokens.ts';
import { ALL_OPERATORS, ATTRIBUTE_TYPES, OPERATORS, type AttributeType } from './types.ts';

const hasher = new TokenHasher('s'.repeat(32));
const fixed = new Map<string, AttributeType>([['n', 'int'], ['tags', '[]string'], ['note', 'encrypted_text'], ['labels', '[]encrypted_text'], ['meta_int_1', 'int'], ['s', 'string']]);
const build = (req: object) => buildAttributeFilter('p', req, fixed, hasher);
const code = (fn: () => unknown) => { try { fn(); } catch (e) { return (e as { code: string }).code; } return 'no error'; };

test('the operator table is the spec table, and every type has operators', () => {
  assert.equal(ATTRIBUTE_TYPES.length, 12);
  assert.deepEqual([...ALL_OPERATORS].sort(), ['any_gt', 'any_lt', 'contains', 'contains_any', 'eq', 'glob', 'gt', 'gte', 'has_all_tokens', 'has_any_tokens', 'iglob', 'in', 'lt', 'lte', 'ne', 'nin']);
  assert.deepEqual(OPERATORS['[]datetime'], ['contains', 'any_lt', 'any_gt']);
  assert.deepEqual(OPERATORS.bool, ['eq', 'ne']);
});

test('no conditions -> undefined; unknown name -> false (after validating the known clauses)', () => {
  assert.equal(build({}), undefined);
  assert.equal(build({ attribute_filters: [], meta_tags_any: [] }), undefined);
  assert.deepEqual(build({ attribute_filters: [{ attr: 'ghost', op: 'eq', value: 1 }] }), { kind: 'false' });
  assert.equal(code(() => build({ attribute_filters: [{ attr: 'ghost', op: 'eq', value: 1 }, { attr: 'n', op: 'glob', value: '*' }] })), 'unsupported_operator');
  assert.equal(code(() => build({ attribute_filters: [{ attr: 'ghost', op: 'like', value: 1 }] })), 'unsupported_operator');
  assert.deepEqual(build({ meta_int_2_gte: 1 }), { kind: 'false' });
});

test('clauses become typed predicates, ANDed', () => {
  assert.deepEqual(build({ attribute_filters: [{ attr: 'n', op: 'gte', value: 3 }, { attr: 'tags', op: 'eq', value: ['a', 'b'] }] }), {
    kind: 'and', items: [
      { kind: 'cmp', attr: 'n', storage: 'int', op: 'gte', value: 3 },
      { kind: 'list_eq', attr: 'tags', storage: 'string_list', values: ['a', 'b'] },
    ],
  });
  assert.deepEqual(build({ attribute_filters: [{ attr: 'tags', op: 'in', value: ['a'] }] }), { kind: 'has_any', attr: 'tags', storage: 'string_list', values: ['a'] });
  assert.deepEqual(build({ attribute_filters: [{ attr: 's', op: 'iglob', value: 'A*' }] }), { kind: 'like', attr: 's', storage: 'string', caseInsensitive: true, pattern: 'A*' });
  assert.equal(code(() => build({ attribute_filters: [{ attr: 'n', op: 'in', value: Array(1001).fill(1) }] })), 'attribute_invalid_value');
  assert.equal(code(() => build({ attribute_filters: Array(33).fill({ attr: 'n', op: 'eq', value: 1 }) })), 'validation_failed');
});

test('query tokens hash exactly like ingested values (same tokenizer, key and attribute)', () => {
  const stored = toStored('p', resolveAttributes(parseAttributeHeaders({
    attributes: JSON.stringify({ note: 'The Quarterly Budget' }), attributeSchema: JSON.stringify({ note: { type: 'encrypted_text' } }),
  }), new Map()), hasher);
  const f = build({ attribute_filters: [{ attr: 'note', op: 'has_all_tokens', value: 'budget QUARTERLY' }] }) as { values: string[] };
  assert.ok(f.values.every((h) => (stored.note.value as string[]).includes(h)));
  assert.equal(f.values.length, 2);
});

test('legacy fields: meta_tags_any = any tag whole, meta_tags_all = every tag, meta_int_* = gte/lte', () => {
  const any = build({ meta_tags_any: ['big deal', 'x'] }) as { kind: string; items: Array<{ kind: string; values: string[] }> };
  assert.equal(any.kind, 'or');
  assert.deepEqual(any.items.map((i) => [i.kind, i.values.length]), [['has_all', 2], ['has_all', 1]]);
  const all = build({ meta_tags_all: ['big deal', 'x'] }) as { kind: string; values: string[] };
  assert.deepEqual([all.kind, all.values.length], ['has_all', 3]);
  assert.deepEqual(build({ meta_int_1_gte: 1, meta_int_1_lte: 5 }), {
    kind: 'and', items: [
      { kind: 'cmp', attr: 'meta_int_1', storage: 'int', op: 'gte', value: 1 },
      { kind: 'cmp', attr: 'meta_int_1', storage: 'int', op: 'lte', value: 5 },
    ],
  });
  assert.equal(code(() => build({ meta_tags_all: [' ', '-'] })), 'attribute_invalid_value');
  const typedMeta = new Map<string, AttributeType>([['meta_int_1', 'string']]);
  assert.equal(code(() => buildAttributeFilter('p', { meta_int_1_gte: 1 }, typedMeta, hasher)), 'unsupported_operator');
});
