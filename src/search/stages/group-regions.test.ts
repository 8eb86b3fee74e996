import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { StoredChunk } from '../../storage/namespace-index.ts';
import type { FusedChunk } from '../types.ts';
import { groupRegions, MAX_MERGE_GAP, MAX_REGION_TOKENS } from './group-regions.ts';

const fc = (doc: string, i: number, set: number, rrf: number, ann: number | null, bm25: number | null): FusedChunk => ({
  chunk: { id: `${doc}:${i}`, doc_id: doc, source_job_id: 'j', chunk_index: i, chunkset_index: set, page_start: i + 1, page_end: i + 1, heading_path: '', content: `c${i}`, token_count: 10 } satisfies StoredChunk,
  ann, bm25, annRank: ann === null ? null : 1, bm25Rank: bm25 === null ? null : 1, rrf, vector: null, anchor: null, tokens: null, termHashes: null, coverage: null,
});

test('adjacent and one-gap chunks of one chunkset merge; wider gaps and other chunksets do not', () => {
  const fused = [
    fc('a', 4, 1, 0.030, 0.8, null),
    fc('a', 6, 1, 0.029, null, 7),
    fc('a', 5, 1, 0.020, 0.7, 3), // fills the middle
    fc('a', 10, 1, 0.018, 0.6, null), // gap of 3 -> own region
    fc('a', 11, 2, 0.017, 0.5, null), // next chunkset -> own region even though adjacent
    fc('b', 0, 0, 0.016, 0.4, 1),
  ];
  const regions = groupRegions(fused);
  assert.deepEqual(regions.map((r) => [r.docId, r.from, r.to, r.chunksetIndex]), [
    ['a', 4, 6, 1], ['a', 10, 10, 1], ['a', 11, 11, 2], ['b', 0, 0, 0],
  ]);
  const first = regions[0];
  assert.equal(first.fusedRank, 1);
  assert.deepEqual(first.signals, { ann: 0.8, bm25: 7, rrf: 0.030, reranker: null });
  assert.deepEqual(first.chunks.map((c) => c.chunk_index), [4, 5, 6]);
  assert.equal(first.members.length, 3);
});

test('a gap of exactly one missing chunk is bridged; the hole is left for expansion to fill', () => {
  const regions = groupRegions([fc('d', 2, 0, 0.02, 0.9, null), fc('d', 4, 0, 0.01, null, 2)]);
  assert.equal(regions.length, 1);
  assert.deepEqual([regions[0].from, regions[0].to, regions[0].chunks.length], [2, 4, 2]);
  assert.equal(regions[0].signals.bm25, 2);
  assert.equal(groupRegions([fc('d', 2, 0, 0.02, 0.9, null), fc('d', 4, 0, 0.01, null, 2)], 0).length, 2);
});

test('regions are ordered by their best member, and signals missing everywhere stay null', () => {
  const regions = groupRegions([fc('x', 9, 0, 0.03, null, 5), fc('y', 0, 0, 0.02, null, 4), fc('x', 0, 0, 0.01, null, 1)]);
  assert.deepEqual(regions.map((r) => `${r.docId}:${r.from}`), ['x:9', 'y:0', 'x:0']);
  assert.equal(regions[0].signals.ann, null);
  assert.deepEqual(groupRegions([]), []);
});

test('with a strength predicate, strong chunks group only with strong ones and weak only with weak', () => {
  // 0..6 of one chunkset: strong 2, 3 and 6; weak 0, 1, 4, 5. Without the predicate it is one region.
  const fused = [2, 3, 6, 0, 1, 4, 5].map((i, k) => fc('s', i, 0, 0.03 - k * 0.001, 0.5, 1));
  const strong = (f: FusedChunk) => [2, 3, 6].includes(f.chunk.chunk_index);
  assert.equal(groupRegions(fused).length, 1);
  const regions = groupRegions(fused, 1, strong);
  assert.deepEqual(regions.map((r) => [r.from, r.to]), [[2, 3], [6, 6], [0, 1], [4, 5]]);
  // A weak chunk never bridges two strong ones: 2 and 4 around weak 3 stay apart even with a gap of one.
  const bridged = groupRegions([fc('t', 2, 0, 0.03, 0.5, 1), fc('t', 4, 0, 0.02, 0.5, 1), fc('t', 3, 0, 0.01, 0.5, 1)], 1, (f) => f.chunk.chunk_index !== 3);
  assert.deepEqual(bridged.map((r) => [r.from, r.to]), [[2, 2], [4, 4], [3, 3]]);
});

test('a run of retrieved chunks longer than maxTokens is cut into regions of at most that many tokens', () => {
  const run = [0, 1, 2, 3, 4, 5, 6].map((i) => fc('a', i, 0, 0.01 * (10 - i), 0.5, 1));
  // 10 tokens a chunk: at most 30 a region.
  assert.deepEqual(groupRegions(run, MAX_MERGE_GAP, undefined, 30).map((r) => [r.from, r.to]), [[0, 2], [3, 5], [6, 6]]);
  assert.deepEqual(groupRegions(run).map((r) => [r.from, r.to]), [[0, 6]], 'the default (MAX_REGION_TOKENS) keeps 70 tokens whole');
  assert.ok(MAX_REGION_TOKENS >= 70);
});
