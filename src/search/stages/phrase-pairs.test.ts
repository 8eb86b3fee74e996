import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FusedChunk } from '../types.ts';
import { pairHoldings, pairShares } from './phrase-pairs.ts';
import { pairHashSet } from '../../analysis/term-hash.ts';

const chunk = (id: string, tokens: string | null): FusedChunk => ({
  chunk: { id, doc_id: id, source_job_id: 'j', chunk_index: 0, chunkset_index: 0, page_start: 1, page_end: 1, heading_path: '', content: '', token_count: 1 },
  ann: null, bm25: null, annRank: null, bm25Rank: null, rrf: 0, vector: null, anchor: null, tokens, termHashes: null, coverage: null,
  pairHashes: tokens === null ? null : pairHashSet(tokens, new Set()),
});

test('a pair is held through any combination of its groups\' alternatives; rows without pairs are unknown', () => {
  const groups = [['cash'], ['flow', 'flows'], ['statement']];
  const got = pairHoldings(groups, [[0, 1], [1, 2], [2, 0]], [chunk('a', 'cash flows statement'), chunk('b', 'statement cash'), chunk('c', null)], () => true);
  assert.deepEqual(got.held.map((h) => h && [...h]), [[1, 1, 0], [0, 0, 1], null]);
  assert.deepEqual([...got.inPool], [1, 1, 1]);
  // A pair with a word no candidate holds is not looked up (it cannot be held).
  const some = pairHoldings(groups, [[0, 1], [1, 2], [2, 0]], [chunk('a', 'cash flows statement')], (w) => w !== 2);
  assert.deepEqual([...some.held[0]!], [1, 0, 0]);
});

test('shares: all counted pairs, or only those the pool holds; weights and unmatchable words', () => {
  const u = (xs: number[]) => Uint8Array.from(xs);
  const held = { held: [u([1, 0, 0]), u([0, 1, 0]), null], inPool: u([1, 1, 0]) };
  const idf = [1, 1, 1, 0];
  const pairs: Array<[number, number]> = [[0, 1], [1, 2], [2, 3]];
  const shares = pairShares(pairs, idf, () => 1, held)!;
  // (2, 3) has an unmatchable word: it does not count; the other two weigh 1 each and both are in the pool.
  assert.deepEqual(shares, [{ all: 0.5, inPool: 0.5 }, { all: 0.5, inPool: 0.5 }, null]);
  // A pair no candidate holds counts in `all` only; a word of weight 0 takes its pairs out.
  assert.deepEqual(pairShares(pairs, [1, 1, 1, 1], () => 1, { held: [u([1, 0, 0])], inPool: u([1, 0, 0]) }), [{ all: 1 / 3, inPool: 1 }]);
  assert.deepEqual(pairShares(pairs, idf, (w) => (w === 2 ? 0 : 1), held)![0], { all: 1, inPool: 1 });
  assert.equal(pairShares(pairs, [1, 0, 0, 0], () => 1, { held: held.held, inPool: u([0, 0, 0]) }), null, 'no counted pair');
});

test('a compound on the left of a pair is looked up by its last part, as a document stores it', async () => {
  const { analyseQuery } = await import('./analyze-query.ts');
  const { analyze, initAnalysis } = await import('../../analysis/analyzer.ts');
  await initAnalysis();
  const q = analyseQuery('FY2023 revenue growth', 'en');
  const fy = q.groups.findIndex((g) => g[0] === 'fy2023');
  const pair = q.pairs.findIndex(([a, b]) => a === fy && q.groups[b][0] === 'revenu');
  assert.ok(pair >= 0);
  assert.deepEqual(q.pairTerms[pair], [['2023', 'revenu'], ['2023', 'revenue']]);
  const stored = chunk('a', analyze('Our FY2023 revenue grew', 'en').join(' '));
  const spaced = chunk('b', analyze('Our FY 2023 revenue grew', 'en').join(' '));
  const fiscal = chunk('c', analyze('Our fiscal 2023 revenue grew', 'en').join(' '));
  const held = pairHoldings(q.groups, q.pairs, [stored, spaced, fiscal], () => true, q.pairTerms).held.map((h) => [...h!]);
  assert.deepEqual(held.map((h) => h[pair]), [1, 1, 1]);
  // Without the pair terms (the compound itself on the left) the stored pair (2023, revenu) is missed.
  assert.equal(pairHoldings(q.groups, q.pairs, [stored], () => true).held[0]![pair], 0);
  // The compound's own phrase (fy, 2023): held by "FY2023" and "FY 2023", not by "fiscal 2023".
  const inner = q.pairs.findIndex(([a, b]) => a === fy && b === fy);
  assert.deepEqual(q.pairTerms[inner], [['fy', '2023']]);
  assert.deepEqual(held.map((h) => h[inner]), [1, 1, 0]);
});
