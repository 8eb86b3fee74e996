// utf8Data builds the same Utf8 column as Arrow's builder (multi-byte characters, empty strings, nulls).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import type * as ArrowNS from 'apache-arrow';
import { utf8Data } from './lance-arrow.ts';

const arrow = createRequire(import.meta.url)('apache-arrow') as typeof ArrowNS;

test('utf8Data equals vectorFromArray for unicode, empty and null values', () => {
  const values = ['ACGT'.repeat(1000), '', 'Grüße 😀 中文', null, 'x', undefined, '\u202e'];
  const ours = arrow.makeVector(utf8Data(values));
  const theirs = arrow.vectorFromArray(values.map((v) => v ?? null), new arrow.Utf8());
  assert.equal(ours.length, values.length);
  assert.equal(ours.nullCount, 2);
  assert.deepEqual(ours.toArray(), theirs.toArray());
  assert.equal(ours.get(2), 'Grüße 😀 中文');
  assert.equal(ours.get(3), null);
});
