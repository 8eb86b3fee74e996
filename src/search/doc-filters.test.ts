import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileUnencryptedMatch, hasAttributeConditions, matchesUnencryptedStrings } from './doc-filters.ts';
import { resolveMode, searchUnits } from './units.ts';

test('unencrypted strings: keys case-insensitive, all keys must match', () => {
  const s = { Team: 'Search', region: 'eu-west-1' };
  assert.ok(matchesUnencryptedStrings(s, { team: 'search', REGION: 'eu-*' }));
  assert.ok(!matchesUnencryptedStrings(s, { team: 'search', region: 'us-*' }));
  assert.ok(!matchesUnencryptedStrings(s, { owner: '*' }));
});

test('unencrypted strings: a match naming more keys than a document may carry matches nothing', () => {
  const strings = Object.fromEntries(Array.from({ length: 32 }, (_, i) => [`k${i}`, 'v']));
  const match32 = Object.fromEntries(Object.keys(strings).map((k) => [k, '*']));
  assert.ok(compileUnencryptedMatch(match32)(strings));
  assert.ok(!compileUnencryptedMatch({ ...match32, k32: '*' })({ ...strings, k32: 'v' }));
});

test('attribute conditions (typed or legacy) are detected; empty lists are no condition', () => {
  assert.equal(hasAttributeConditions({ query: 'q' }), false);
  assert.equal(hasAttributeConditions({ query: 'q', attribute_filters: [], meta_tags_any: [] }), false);
  assert.equal(hasAttributeConditions({ query: 'q', attribute_filters: [{ attr: 'x', op: 'eq', value: 1 }] }), true);
  assert.equal(hasAttributeConditions({ query: 'q', meta_int_2_lte: 0 }), true);
  assert.equal(hasAttributeConditions({ query: 'q', meta_tags_all: ['a'] }), true);
});

test('mode: advanced (or legacy premium) without a reranker answers standard with a reason', () => {
  assert.deepEqual(resolveMode({}), { mode: 'standard', reason: null });
  assert.equal(resolveMode({ retrieval_tier: 'advanced' }).mode, 'standard');
  assert.match(resolveMode({ premium: true }).reason ?? '', /no reranker/);
  assert.deepEqual(resolveMode({ retrieval_tier: 'advanced' }, true), { mode: 'advanced', reason: null });
  assert.equal(resolveMode({ retrieval_tier: 'standard', premium: true }).reason, null);
});

test('search_units: 1 per standard search; advanced adds 1 per started 1,000 context tokens', () => {
  assert.equal(searchUnits('standard', 0), 1);
  assert.equal(searchUnits('standard', 12345), 1);
  assert.equal(searchUnits('advanced', 0), 1);
  assert.equal(searchUnits('advanced', 1), 2);
  assert.equal(searchUnits('advanced', 1000), 2);
  assert.equal(searchUnits('advanced', 1001), 3);
});
