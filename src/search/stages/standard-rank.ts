// The standard tier's ranking as one function: fuse (RRF) -> lexical-anchor cosine -> group into hits ->
// relevance score, best first. The search service and the scripts that fit models on its output
// (bench/fit-reranker.ts, bench/lib/scifact-candidates.ts) call this, so a stage added here reaches all of
// them — a model fitted on a different chain than the one that serves would be miscalibrated.
import type { IndexHit } from '../../storage/namespace-index.ts';
import type { FusedChunk, QueryStats, Region } from '../types.ts';
import type { QuerySentence } from './analyze-query.ts';
import { withAnchorSimilarity } from './anchor.ts';
import { withCoverage } from './coverage.ts';
import { fuseRrf } from './fuse.ts';
import { GROUP_MIN_SCORE, groupRegions, MAX_MERGE_GAP } from './group-regions.ts';
import { chunkScore, scoreRegions } from './score.ts';

/**
 * Rank the candidates of one query.
 * @param vector vector hits best first (visible documents only), or null when vector search did not run
 * @param bm25   BM25 hits best first (visible documents only), or null
 * @param stats  query statistics (fuse.ts queryStats) of the same lists; `matchable` and `denseOk` are set here
 * @param opts.anchor false when the query embedding is unreliable (denseCoverageOk): no lexical anchor
 *                    (every hit's anchor_cos 0) and no cosine features (dense_off = 1)
 * @param opts.groups the query's word groups (analyze-query.ts) for the coverage feature; absent = none
 * @param opts.weights the groups' query weights (analyze-query.ts); absent = 1 each
 * @param opts.segments group indices per query segment (analyze-query.ts), for segment matchability
 * @param opts.sentences the query's sentences (analyze-query.ts), for the sentence drop (coverage.ts)
 * @param opts.titles doc_id → analysed title terms (title-terms.ts) for `title_cov`; absent = 0 for every hit
 * @param opts.pairs  the query's phrase pairs (analyze-query.ts) for `pair_cov`; absent = none (every hit's
 *                    pair_cov is its coverage)
 * @param opts.pairTerms per pair, the stored term pairs that hold it (analyze-query.ts `pairTerms`)
 * @returns scored regions, best first (score.ts scoreRegions order), and the statistics they were scored
 *          with (later stages such as the reranker compute features from the same)
 */
export function rankStandard(vector: IndexHit[] | null, bm25: IndexHit[] | null, stats: QueryStats, opts: { anchor?: boolean; groups?: string[][]; weights?: number[]; segments?: number[][]; sentences?: QuerySentence[]; titles?: ReadonlyMap<string, string>; pairs?: Array<[number, number]>; pairTerms?: Array<Array<[string, string]>> } = {}): { regions: Region[]; stats: QueryStats } {
  const dense = opts.anchor !== false;
  const { fused, matchable } = withCoverage(withAnchorSimilarity(fuseRrf(vector, bm25), dense ? bm25 : null), opts.groups ?? [], opts.weights, opts.segments, opts.sentences, opts.titles, opts.pairs, opts.pairTerms);
  const maxCoverage = fused.reduce((m, f) => Math.max(m, f.coverage ?? 0), 0);
  const scored = { ...stats, matchable: opts.groups ? matchable : stats.matchable, denseOk: dense, maxCoverage };
  // A chunk joins a region only with chunks on its side of GROUP_MIN_SCORE (group-regions.ts): in a small
  // namespace every chunk is a candidate, and without this a document's weak chunks glued its few strong
  // ones into whole sections that filled the budget.
  const strong = (f: FusedChunk): boolean => chunkScore(f, scored) >= GROUP_MIN_SCORE;
  return { regions: scoreRegions(groupRegions(fused, MAX_MERGE_GAP, strong), scored), stats: scored };
}

/** Least Embedder.coverage of the query for the lexical anchor to be used (a prior, see denseCoverageOk). */
export const MIN_ANCHOR_COVERAGE = 0.5;

/**
 * Whether passage-to-passage embedding similarity means anything for this query: the embedder knows at
 * least MIN_ANCHOR_COVERAGE of its words (embedders without a coverage method: always). Measured with the
 * English GloVe embedder on XQuAD (share of queries at ≥ 0.5: en 1.00, es 0.99, de 0.89, ro 0.71, tr 0.32,
 * el 0.21, ar 0.01): on ar, MRR@10 0.9170 with the anchor (vectors made of the digits and Latin names GloVe
 * knows) and 0.9191 without; on de, where most words are covered, the anchor helps (0.9261 vs 0.9226).
 */
export function denseCoverageOk(embedder: { coverage?(text: string): number }, query: string): boolean {
  return !embedder.coverage || embedder.coverage(query) >= MIN_ANCHOR_COVERAGE;
}
