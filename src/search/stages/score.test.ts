import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { QueryStats, Region } from '../types.ts';
import { RRF_K } from './fuse.ts';
import { applyThresholds, idfMax, modelFor, relevanceFeatures, relevanceProbability, scoreRegions } from './score.ts';
import { RELEVANCE_MODEL, RELEVANCE_MODEL_NO_PAIRS } from './relevance-model.ts';

const stats: QueryStats = { termCount: 4, matchable: 4, chunkCount: 1000, maxBm25: 20, maxAnn: 0.9, annFloor: 0.3, bm25Floor: 0 };
const top = 2 / (RRF_K + 1);

test('features: imputation of missing signals and normalisation', () => {
  const f = relevanceFeatures({ ann: null, bm25: 10, rrf: top, anchor: 0.7, coverage: 0.6 }, { ...stats, matchable: 2 });
  assert.equal(f.cos, 0.3);
  assert.ok(Math.abs(f.rrf - 1) < 1e-12);
  assert.equal(f.bm25_per_term, 10 / (4 * idfMax(1000)));
  assert.equal(f.bm25_pm, 10 / (2 * idfMax(1000)), 'normalised by the words that can match at all');
  assert.ok(Math.abs(idfMax(1000) - Math.log(1 + 999.5 / 1.5)) < 1e-12);
  assert.equal(f.anchor_cos, 0.7);
  assert.equal(f.cov, 0.6);
  assert.equal(f.dense_off, 0);
  const none = relevanceFeatures({ ann: 0.5, bm25: null, rrf: 0, anchor: null, coverage: null }, { termCount: 0, matchable: 0, chunkCount: 1, maxBm25: 0, maxAnn: null, annFloor: null, bm25Floor: 0, denseOk: false });
  assert.equal(none.cos, 0, 'an unreliable query embedding contributes no cosine');
  assert.equal(none.dense_off, 1);
  assert.equal(none.cov, 0);
  assert.equal(none.bm25_pm, 0);
});

test('a clear match scores at least 0.5, unrelated text below 0.3', () => {
  const clear = relevanceProbability(relevanceFeatures({ ann: 0.9, bm25: 4 * 0.6 * idfMax(1000), rrf: top, anchor: 1, coverage: 1 }, stats));
  const unrelated = relevanceProbability(relevanceFeatures({ ann: 0.35, bm25: null, rrf: 1 / (RRF_K + 80), anchor: 0.4, coverage: 0.1 }, stats));
  assert.ok(clear >= 0.5, `clear match ${clear}`);
  assert.ok(unrelated < 0.3, `unrelated ${unrelated}`);
});

test('score rises with coverage, BM25 and rank, and does not depend on the best hit', () => {
  const base = { ann: 0.6, bm25: 5, rrf: 1 / 70, anchor: 0.5, coverage: 0.5 };
  const p = relevanceProbability(relevanceFeatures(base, stats));
  assert.ok(relevanceProbability(relevanceFeatures({ ...base, coverage: 0.9 }, stats)) > p);
  assert.ok(relevanceProbability(relevanceFeatures({ ...base, bm25: 15 }, stats)) > p);
  assert.ok(relevanceProbability(relevanceFeatures({ ...base, rrf: 1 / 62 }, stats)) > p);
  // A second relevant passage is not pushed down because a stronger one exists.
  assert.equal(relevanceProbability(relevanceFeatures(base, { ...stats, maxBm25: 200, maxAnn: 0.99 })), p);
});

const reg = (docId: string, score: number, fusedRank = 1): Region => ({
  docId, chunksetIndex: 0, from: 0, to: 0, members: [], fusedRank, score, chunks: [], anchor: null, coverage: null,
  signals: { ann: null, bm25: null, rrf: 0, reranker: null },
});

test('scoreRegions orders by score, ties by fused rank, and stays within 0..1', () => {
  const a = { ...reg('a', 0, 2), anchor: 1, coverage: 1, signals: { ann: 0.9, bm25: 20, rrf: top, reranker: null } };
  const b = { ...reg('b', 0, 1), signals: { ann: 0.4, bm25: null, rrf: 1 / 90, reranker: null } };
  const out = scoreRegions([b, a], stats);
  assert.deepEqual(out.map((r) => r.docId), ['a', 'b']);
  for (const r of out) assert.ok(r.score >= 0 && r.score <= 1);
});

test('thresholds: min_relevance drops low hits; min_top_relevance empties the result', () => {
  const rs = [reg('a', 0.8), reg('b', 0.35), reg('c', 0.1)];
  assert.deepEqual(applyThresholds(rs, 0.3, undefined).map((r) => r.docId), ['a', 'b']);
  assert.deepEqual(applyThresholds(rs, 0.3, 0.9), []);
  assert.deepEqual(applyThresholds(rs, 0, 0.8).map((r) => r.docId), ['a', 'b', 'c']);
  assert.deepEqual(applyThresholds([], 0.3, 0.5), []);
});

test('a hit whose phrase pairs are unknown is scored by the model without pair_cov, not as pair_cov 0', () => {
  const base = { ann: 0.6, bm25: 8, rrf: top, anchor: 0.6, coverage: 0.7 };
  assert.equal(modelFor({ ...base, pairCoverage: null }), RELEVANCE_MODEL_NO_PAIRS);
  assert.equal(modelFor({ ...base }), RELEVANCE_MODEL_NO_PAIRS);
  assert.equal(modelFor({ ...base, pairCoverage: 0 }), RELEVANCE_MODEL);
  assert.equal(RELEVANCE_MODEL_NO_PAIRS.weights.pair_cov, undefined);
  // Holding one more pair raises both shares (pair_cov over all pairs, pair_cov_pool over those the pool
  // holds, here half of them): the score rises though pair_cov's own weight is negative.
  const p = (held: number) => relevanceProbability(relevanceFeatures({ ...base, pairCoverage: held / 4, pairCoverageInPool: held / 2 }, stats));
  assert.ok(p(0) < p(1) && p(1) < p(2), 'the phrase held adjacent raises the score');
});

test('chunkScore is the score of the chunk as a one-chunk region (unrounded)', async () => {
  const { groupRegions } = await import('./group-regions.ts');
  const { chunkScore } = await import('./score.ts');
  const f = {
    chunk: { id: 'd:3', doc_id: 'd', source_job_id: 'j', chunk_index: 3, chunkset_index: 0, page_start: 1, page_end: 1, heading_path: '', content: 'x', token_count: 5 },
    ann: 0.7, bm25: 6, annRank: 2, bm25Rank: 1, rrf: 2 / (RRF_K + 1.5), vector: null, anchor: 0.8, tokens: null, termHashes: null, coverage: 0.75,
    docCoverage: 0.8, coverageInDoc: 0.9, titleCoverage: 0.1, pairCoverage: 0.5, pairCoverageInPool: 0.5,
  };
  const [region] = scoreRegions(groupRegions([f]), stats);
  assert.equal(Math.round(chunkScore(f, stats) * 1e4) / 1e4, region.score);
  assert.ok(chunkScore({ ...f, pairCoverage: null }, stats) !== chunkScore(f, stats), 'unknown pairs: the fallback model');
});
