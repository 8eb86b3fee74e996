import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IndexHit, StoredChunk } from '../../storage/namespace-index.ts';
import { fuseRrf, queryStats, RRF_K } from './fuse.ts';

const chunk = (doc: string, i: number): StoredChunk => ({
  id: `${doc}:${i}`, doc_id: doc, source_job_id: 'j', chunk_index: i, chunkset_index: 0,
  page_start: 1, page_end: 1, heading_path: '', content: `${doc} ${i}`, token_count: 10,
});
const hits = (ids: Array<[string, number]>, scores: number[]): IndexHit[] => ids.map(([d, i], n) => ({ chunk: chunk(d, i), score: scores[n] }));

test('RRF sums 1/(k+rank) over both lists with k = 60', () => {
  const v = hits([['a', 0], ['b', 0], ['c', 0]], [0.9, 0.8, 0.7]);
  const b = hits([['b', 0], ['d', 0]], [12, 3]);
  const fused = fuseRrf(v, b);
  assert.equal(RRF_K, 60);
  assert.deepEqual(fused.map((f) => f.chunk.id), ['b:0', 'a:0', 'd:0', 'c:0']);
  const bEntry = fused[0];
  assert.equal(bEntry.rrf, 1 / 62 + 1 / 61);
  assert.equal(bEntry.annRank, 2);
  assert.equal(bEntry.bm25Rank, 1);
  assert.equal(bEntry.ann, 0.8);
  assert.equal(bEntry.bm25, 12);
  const a = fused[1];
  assert.equal(a.bm25, null);
  assert.equal(a.bm25Rank, null);
  assert.equal(a.rrf, 1 / 61);
});

test('equal RRF ties are broken by BM25 rank, deterministically', () => {
  const fused = fuseRrf(hits([['a', 0]], [0.5]), hits([['b', 0]], [1]));
  assert.deepEqual(fused.map((f) => f.chunk.id), ['b:0', 'a:0']);
});

test('a list that did not run (null) is treated as empty', () => {
  const fused = fuseRrf(null, hits([['x', 1], ['y', 2]], [5, 4]));
  assert.deepEqual(fused.map((f) => [f.chunk.id, f.annRank, f.bm25Rank]), [['x:1', null, 1], ['y:2', null, 2]]);
  assert.deepEqual(fuseRrf(null, null), []);
});

test('duplicate rows in a list keep their best rank only', () => {
  const fused = fuseRrf(hits([['a', 0], ['a', 0]], [0.9, 0.9]), null);
  assert.equal(fused.length, 1);
  assert.equal(fused[0].rrf, 1 / 61);
});

test('queryStats: maxima, floors and BM25 completeness', () => {
  const v = hits([['a', 0], ['b', 0]], [0.9, 0.4]);
  const b = hits([['a', 0], ['c', 0]], [10, 2]);
  assert.deepEqual(queryStats(v, b, true, 3, 50), { termCount: 3, matchable: 3, chunkCount: 50, maxBm25: 10, maxAnn: 0.9, annFloor: 0.4, bm25Floor: 0 });
  assert.equal(queryStats(v, b, false, 3, 50).bm25Floor, 2);
  assert.deepEqual(queryStats(null, null, true, 0, 0), { termCount: 0, matchable: 0, chunkCount: 1, maxBm25: 0, maxAnn: null, annFloor: null, bm25Floor: 0 });
});
