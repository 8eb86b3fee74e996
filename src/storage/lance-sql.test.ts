// Unit tests of the LanceDB predicate builders (lance-sql.ts): grouping of multi-range reads and the exact
// row test that undoes a group's over-reach.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RANGE_GROUP_SPAN, rangesToWhere } from './lance-sql.ts';

test('rangesToWhere: nearby ranges share one term, far ones get their own, quotes are escaped', () => {
  const far = RANGE_GROUP_SPAN + 100;
  const { where } = rangesToWhere([
    { docId: 'a', from: 10, to: 12 },
    { docId: "o'b", from: 0, to: 3 },
    { docId: 'c', from: far, to: far + 2 },
  ]);
  assert.equal(where, `doc_id IN ('a', 'o''b', 'c') AND ((doc_id IN ('o''b', 'a') AND chunk_index >= 0 AND chunk_index <= 12) OR (doc_id IN ('c') AND chunk_index >= ${far} AND chunk_index <= ${far + 2}))`);
});

test('rangesToWhere: keep accepts exactly the rows inside a range of their own document', () => {
  const { keep } = rangesToWhere([{ docId: 'a', from: 10, to: 12 }, { docId: 'b', from: 0, to: 3 }, { docId: 'a', from: 20, to: 20 }]);
  assert.deepEqual([9, 10, 12, 13, 20, 21].map((i) => keep('a', i)), [false, true, true, false, true, false]);
  assert.deepEqual([0, 3, 4, 10].map((i) => keep('b', i)), [true, true, false, false]);
  assert.equal(keep('c', 0), false);
});
