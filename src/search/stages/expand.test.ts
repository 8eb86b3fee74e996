import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { NamespaceIndex, StoredChunk } from '../../storage/namespace-index.ts';
import type { Region } from '../types.ts';
import { expandRegions, loadChunkset, planExpansion } from './expand.ts';

const ch = (i: number, set: number, tokens = 10): StoredChunk => ({
  id: `d:${i}`, doc_id: 'd', source_job_id: 'j', chunk_index: i, chunkset_index: set,
  page_start: 1, page_end: 1, heading_path: '', content: `c${i}`, token_count: tokens,
});
// Chunkset 0 = chunks 0..2, chunkset 1 = chunks 3..42 (long, to force window growth), chunkset 2 = 43..45.
const doc: StoredChunk[] = Array.from({ length: 46 }, (_, i) => ch(i, i < 3 ? 0 : i < 43 ? 1 : 2));

/** getChunkRanges over an in-memory document (one call = one engine read); other methods are unused. */
function memoryIndex(calls: Array<[number, number]>): NamespaceIndex {
  return {
    async getChunkRanges(_ns: string, ranges: Array<{ docId: string; from: number; to: number }>) {
      for (const r of ranges) calls.push([r.from, r.to]);
      const rows = ranges.flatMap((r) => (r.docId === 'd' ? doc.filter((c) => c.chunk_index >= r.from && c.chunk_index <= r.to) : []));
      return rows.reverse(); // unordered, as the contract allows
    },
  } as unknown as NamespaceIndex;
}

test('planExpansion: 0 keeps the core, 1 takes the whole chunkset, between takes nearest neighbours', () => {
  const set = doc.filter((c) => c.chunkset_index === 1);
  assert.deepEqual(planExpansion({ from: 20, to: 20 }, set, new Set(), 0), { from: 20, to: 20 });
  assert.deepEqual(planExpansion({ from: 20, to: 20 }, set, new Set(), 1), { from: 3, to: 42 });
  // 39 other chunks of 10 tokens; 0.1 allows 39 tokens = 3 chunks: after, before, after.
  assert.deepEqual(planExpansion({ from: 20, to: 20 }, set, new Set(), 0.1), { from: 19, to: 22 });
});

test('planExpansion stops at chunks claimed by other hits and at the chunkset edge', () => {
  const set = doc.filter((c) => c.chunkset_index === 1);
  assert.deepEqual(planExpansion({ from: 20, to: 21 }, set, new Set([18, 24]), 1), { from: 19, to: 23 });
  assert.deepEqual(planExpansion({ from: 3, to: 3 }, set, new Set(), 0.1), { from: 3, to: 6 });
});

test('loadChunkset widens its window until both ends of a long chunkset are found', async () => {
  const calls: Array<[number, number]> = [];
  const set = await loadChunkset(memoryIndex(calls), 'ns', 'd', 1, { from: 20, to: 20 });
  assert.deepEqual(set.map((c) => c.chunk_index), Array.from({ length: 40 }, (_, i) => i + 3));
  assert.ok(calls.length >= 2);
  const small = await loadChunkset(memoryIndex([]), 'ns', 'd', 2, { from: 44, to: 44 });
  assert.deepEqual(small.map((c) => c.chunk_index), [43, 44, 45]);
});

const region = (from: number, to: number, set: number, members: number[]): Region => ({
  docId: 'd', chunksetIndex: set, from, to, score: 0.5, fusedRank: 1, anchor: null, coverage: null,
  members: members.map((i) => ({ chunk: doc[i], ann: 0.5, bm25: null, annRank: 1, bm25Rank: null, rrf: 0.01, vector: null, anchor: null, tokens: null, termHashes: null, coverage: null })),
  signals: { ann: 0.5, bm25: null, rrf: 0.01, reranker: null },
  chunks: members.map((i) => doc[i]),
});

test('expandRegions: bridged holes are filled even at tightness 0', async () => {
  const r = region(10, 12, 1, [10, 12]);
  await expandRegions(memoryIndex([]), 'ns', [r], new Map([['d', new Set([10, 11, 12])]]), 0);
  assert.deepEqual(r.chunks.map((c) => c.chunk_index), [10, 11, 12]);
});

test('expandRegions reads every region of a batch in one engine read per round', async () => {
  const reads: number[] = [];
  const index = { async getChunkRanges(_ns: string, ranges: Array<{ docId: string; from: number; to: number }>) {
    reads.push(ranges.length);
    return ranges.flatMap((r) => doc.filter((c) => c.chunk_index >= r.from && c.chunk_index <= r.to));
  } } as unknown as NamespaceIndex;
  const regions = [region(0, 0, 0, [0]), region(44, 44, 2, [44]), region(20, 20, 1, [20])];
  await expandRegions(index, 'ns', regions, new Map([['d', new Set([0, 20, 44])]]), 1);
  assert.deepEqual(reads[0], 3); // the first round asks for all three chunksets at once
  assert.ok(reads.length >= 2 && reads.slice(1).every((n) => n === 1)); // only the long chunkset grows
  assert.deepEqual(regions.map((r) => [r.from, r.to]), [[0, 2], [43, 45], [3, 42]]);
});

test('expandRegions: the better hit expands first and never swallows another hit', async () => {
  const better = region(0, 0, 0, [0]);
  const a = region(10, 10, 1, [10]);
  const b = region(12, 12, 1, [12]);
  const claimed = new Map([['d', new Set([0, 10, 12])]]);
  await expandRegions(memoryIndex([]), 'ns', [better, a, b], claimed, 1);
  assert.deepEqual([better.from, better.to], [0, 2]);
  assert.deepEqual([a.from, a.to], [3, 11]);
  assert.deepEqual([b.from, b.to], [12, 42]);
  assert.deepEqual(b.chunks.length, 31);
});
