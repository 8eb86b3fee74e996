import { test } from 'node:test';
import assert from 'node:assert/strict';
import { termHashSet } from '../../analysis/term-hash.ts';
import { dropNearDuplicates, jaccard, MAX_DEDUPLICATED, NEAR_DUPLICATE_JACCARD } from './near-duplicates.ts';
import type { FusedChunk, Region } from '../types.ts';

const region = (docId: string, score: number, ...texts: string[]): Region => ({
  docId, chunksetIndex: 0, from: 0, to: texts.length - 1, score, fusedRank: 1, anchor: null, coverage: null, chunks: [],
  signals: { ann: null, bm25: null, rrf: 0, reranker: null },
  members: texts.map((t) => ({ termHashes: termHashSet(t) }) as FusedChunk),
});
const paragraph = 'the company may repurchase shares of its common stock from time to time in open market transactions under the program approved by the board';

test('jaccard of ascending hash sets', () => {
  const a = termHashSet('a b c d');
  assert.equal(jaccard(a, a), 1);
  assert.equal(jaccard(a, termHashSet('a b x y')), 2 / 6);
  assert.equal(jaccard(new Uint32Array(0), new Uint32Array(0)), 0);
});

test('near-duplicates: another document\'s copy of a better hit is left out; the same document\'s hits and different passages stay', () => {
  const kept = dropNearDuplicates([
    region('d2019', 0.9, `${paragraph} 2019`),
    region('d2018', 0.88, `${paragraph} 2018`), // last year's filing: the same paragraph with another year
    region('d2019', 0.8, `${paragraph} 2020`), // the same document: never merged here
    region('d2018', 0.7, 'net sales rose in every segment while operating margin fell on higher freight costs'),
  ]);
  assert.deepEqual(kept.kept.map((r) => `${r.docId}:${r.score}`), ['d2019:0.9', 'd2019:0.8', 'd2018:0.7']);
  assert.equal(kept.dropped, 1);
  assert.ok(NEAR_DUPLICATE_JACCARD >= 0.8);
});

test('near-duplicates: regions without stored hashes, and hits past MAX_DEDUPLICATED, are kept', () => {
  const noHashes = { ...region('x', 0.5, paragraph), members: [{ termHashes: null } as FusedChunk] };
  const many = Array.from({ length: MAX_DEDUPLICATED + 2 }, (_, i) => region(`d${i}`, 1 - i / 100, paragraph));
  assert.equal(dropNearDuplicates([region('a', 0.9, paragraph), noHashes]).kept.length, 2);
  assert.equal(dropNearDuplicates(many).kept.length, 3, 'the first, and the two past the examined ones');
});
