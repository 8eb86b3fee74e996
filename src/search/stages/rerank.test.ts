import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { RerankCandidate, Reranker, RerankerInfo, RerankQuery } from '../../models/reranker.ts';
import type { StoredChunk } from '../../storage/namespace-index.ts';
import type { QueryStats, Region } from '../types.ts';
import { advancedScore, DEFAULT_RERANK_CALIBRATION, rerankCandidate, rerankQueryTerms, rerankRegions } from './rerank.ts';
import { analyseQuery } from './analyze-query.ts';
import { initAnalysis } from '../../analysis/analyzer.ts';

before(() => initAnalysis());

const stats: QueryStats = { termCount: 3, matchable: 3, chunkCount: 500, maxBm25: 12, maxAnn: 0.8, annFloor: 0.2, bm25Floor: 0 };

const chunk = (docId: string, i: number, content: string, heading = 'Doc > Section'): StoredChunk => ({
  id: `${docId}:${i}`, doc_id: docId, source_job_id: 'j', chunk_index: i, chunkset_index: 0, page_start: 1, page_end: 1,
  heading_path: heading, content, token_count: 10,
});

const region = (docId: string, score: number, fusedRank: number, content = `text of ${docId}`): Region => ({
  docId, chunksetIndex: 0, from: 0, to: 1, members: [], fusedRank, score, anchor: null, coverage: null,
  chunks: [chunk(docId, 1, `${content} (second)`), chunk(docId, 0, content)],
  signals: { ann: 0.5, bm25: 6, rrf: 1 / 61, reranker: null },
});

/** A reranker that scores by a fixed table of passage -> value, recording what it was given. */
class TableReranker implements Reranker {
  calls: Array<{ query: RerankQuery; candidates: RerankCandidate[] }> = [];
  constructor(readonly info: RerankerInfo, private readonly table: (c: RerankCandidate) => number) {}
  async rerank(query: RerankQuery, candidates: RerankCandidate[]): Promise<number[]> {
    this.calls.push({ query, candidates });
    return candidates.map(this.table);
  }
}

test('advanced score: probability outputs pass through; logits and 0..1 values are blended with the standard score', () => {
  assert.equal(advancedScore('probability', 0.73, 0.2), 0.73);
  assert.equal(advancedScore('probability', 1.2, 0.2), 1);
  // Equal log-odds blend: a neutral reranker (logit 0) halves the standard log-odds.
  const std = 0.8;
  const expected = 1 / (1 + Math.exp(-0.5 * Math.log(std / (1 - std))));
  assert.ok(Math.abs(advancedScore('logit', 0, std) - expected) < 1e-12);
  assert.ok(Math.abs(advancedScore('unit', 0.5, std) - expected) < 1e-9);
  assert.ok(advancedScore('logit', 4, 0.3) > advancedScore('logit', -4, 0.3));
  assert.equal(advancedScore('logit', 2, 0.5, { intercept: 0, reranker: 1, standard: 0 }), 1 / (1 + Math.exp(-2)));
  assert.deepEqual(DEFAULT_RERANK_CALIBRATION, { intercept: 0, reranker: 0.5, standard: 0.5 });
});

test('candidate: chunks in document order, heading path as title, first-stage features attached', () => {
  const c = rerankCandidate(region('d1', 0.4, 1, 'alpha'), stats, 'Fallback');
  assert.equal(c.title, 'Doc > Section');
  assert.equal(c.text, 'alpha\n\nalpha (second)');
  assert.equal(c.first.score, 0.4);
  for (const k of ['cov', 'bm25_pm', 'bm25_per_term', 'cos', 'rrf', 'anchor_cos']) assert.ok(k in c.first.features, k);
  const bare = region('d2', 0.4, 1);
  bare.chunks = bare.chunks.map((ch) => ({ ...ch, heading_path: '' }));
  assert.equal(rerankCandidate(bare, stats, 'Fallback').title, 'Fallback');
});

test('rerankRegions reorders the head, exposes the raw value, and keeps the tail below it', async () => {
  const regions = [region('a', 0.9, 1), region('b', 0.8, 2), region('c', 0.7, 3), region('d', 0.6, 4)];
  const rr = new TableReranker({ provider: 'builtin', model: 't', output: 'probability' }, (c) => (c.text.includes('text of c') ? 0.95 : c.text.includes('text of a') ? 0.1 : 0.5));
  const out = await rerankRegions(rr, 'the query', regions, stats, { lang: 'en', depth: 3 });
  assert.deepEqual(out.map((r) => r.docId), ['c', 'b', 'a', 'd']);
  assert.deepEqual(out.map((r) => r.signals.reranker), [0.95, 0.5, 0.1, null]);
  assert.deepEqual(out.map((r) => r.score), [0.95, 0.5, 0.1, 0.1]);
  assert.equal(rr.calls.length, 1);
  assert.equal(rr.calls[0].candidates.length, 3);
  assert.deepEqual(rr.calls[0].query, { text: 'the query', lang: 'en' });
});

test('a reranker answering the wrong number of values is an error (the caller falls back)', async () => {
  const bad: Reranker = { info: { provider: 'http', model: 'x', output: 'unit' }, rerank: async () => [0.5] };
  const regions = [region('a', 0.9, 1), region('b', 0.8, 2)];
  await assert.rejects(rerankRegions(bad, 'q', regions, stats, { lang: null }), /returned 1 values for 2/);
  assert.deepEqual(regions.map((r) => [r.score, r.signals.reranker]), [[0.9, null], [0.8, null]]);
  assert.deepEqual(await rerankRegions(bad, 'q', [], stats, { lang: null }), []);
});

test('the reranker gets the query words the standard tier counted: no stopwords, prompt words or dropped instructions', async () => {
  const a = analyseQuery('Assume you are an analyst preparing a briefing. When was the cutover of the billing system? Answer using the details in the provided documents.', 'en');
  // The coverage stage dropped the two instruction sentences' words (as withCoverage reports them).
  const question = new Set(a.sentences.filter((s) => s.question).flatMap((s) => s.groups));
  const counted: QueryStats = { ...stats, countedWords: a.groups.map((_, w) => question.has(w)) };
  assert.deepEqual(rerankQueryTerms(a.groups, counted), ['cutov', 'bill', 'system'], '"when" is a query stopword (Orama\'s English list)');
  assert.ok(rerankQueryTerms(a.groups, stats).includes('analyst'), 'absent countedWords: every content word');
  const rr = new TableReranker({ provider: 'builtin', model: 't', output: 'probability' }, () => 0.5);
  await rerankRegions(rr, 'q', [region('a', 0.9, 1)], stats, { lang: 'en', terms: ['cutov'] });
  assert.deepEqual(rr.calls[0].query, { text: 'q', lang: 'en', terms: ['cutov'] });
});
