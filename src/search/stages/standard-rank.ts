// The standard tier's ranking as one function: fuse (RRF) -> lexical-anchor cosine -> group into hits ->
// relevance score -> the documents the query names scored again among their own candidates, best first.
// The search service and the scripts that fit models on its output (bench/fit-reranker.ts,
// bench/lib/scifact-candidates.ts) call this, so a stage added here reaches all of
// them — a model fitted on a different chain than the one that serves would be miscalibrated.
import type { IndexHit } from '../../storage/namespace-index.ts';
import type { FusedChunk, QueryStats, Region } from '../types.ts';
import type { AnalysedQuery, QuerySentence } from './analyze-query.ts';
import type { RelevanceModel } from './relevance-model.ts';
import { withAnchorSimilarity } from './anchor.ts';
import { withCoverage } from './coverage.ts';
import { fuseRrf } from './fuse.ts';
import { GROUP_MIN_SCORE, groupRegions, MAX_MERGE_GAP } from './group-regions.ts';
import { byScore, chunkScore, scoreRegions } from './score.ts';

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
 * @param opts.model, opts.fallback the relevance model (DOCSEARCH_RELEVANCE_MODEL) and its no-pairs
 *                    fallback; absent = the shipped RELEVANCE_MODEL / RELEVANCE_MODEL_NO_PAIRS
 * @returns scored regions, best first (score.ts scoreRegions order), and the statistics they were scored
 *          with (later stages such as the reranker compute features from the same)
 */
export function rankStandard(vector: IndexHit[] | null, bm25: IndexHit[] | null, stats: QueryStats, opts: RankOptions = {}): { regions: Region[]; stats: QueryStats } {
  const dense = opts.anchor !== false;
  const { fused, matchable, named, counted } = withCoverage(withAnchorSimilarity(fuseRrf(vector, bm25), dense ? bm25 : null), opts.groups ?? [], opts.weights, opts.segments, opts.sentences, opts.titles, opts.pairs, opts.pairTerms);
  const maxCoverage = fused.reduce((m, f) => Math.max(m, f.coverage ?? 0), 0);
  const scored = { ...stats, matchable: opts.groups ? matchable : stats.matchable, denseOk: dense, maxCoverage, ...(opts.groups ? { countedWords: counted } : {}) };
  // A chunk joins a region only with chunks on its side of GROUP_MIN_SCORE (group-regions.ts): in a small
  // namespace every chunk is a candidate, and without this a document's weak chunks glued its few strong
  // ones into whole sections that filled the budget.
  const strong = (f: FusedChunk): boolean => chunkScore(f, scored, opts.model, opts.fallback) >= GROUP_MIN_SCORE;
  const regions = scoreRegions(groupRegions(fused, MAX_MERGE_GAP, strong), scored, opts.model, opts.fallback);
  if (!named || opts.scoped) return { regions, stats: scored };
  // Each named document on its own: two filings of one company ("AMCOR" names its 10-K and its earnings
  // release) are two searches in a document, not one search over both, where the 10-K's words set the bar
  // for the release's passages.
  const counts = new Map<string, number>();
  for (const f of fused) if (named.has(f.chunk.doc_id)) counts.set(f.chunk.doc_id, (counts.get(f.chunk.doc_id) ?? 0) + 1);
  const scoped = new Set([...named].filter((doc) => (counts.get(doc) ?? 0) >= MIN_SCOPE_CANDIDATES));
  if (scoped.size === 0) return { regions, stats: scored };
  const rescored = [...scoped].flatMap((doc) => scopeOf(regions, doc, vector, bm25, stats, opts));
  return { regions: [...regions.filter((r) => !scoped.has(r.docId)), ...rescored].sort(byScore), stats: scored };
}

/**
 * Fewest candidates of a named document for it to be scored again among its own. A scope of few
 * passages is degenerate: their words are then the whole matchable query, so each covers much of it
 * whatever it holds. Without a minimum, a SciFact abstract whose title alone held a rare word of the
 * claim scored as if it answered it (SciFact test nDCG@10 0.6911 → 0.6884). Chosen on the training rows
 * (`fit-relevance.ts --collect --shipped`): with 2, SciFact over 5 183 abstracts nDCG@10 was 0.7007 → 0.6993;
 * with 5 it was unchanged (0.7007; wrapped 0.6889 → 0.6894). FinanceBench's named filings have far more
 * candidates than that (MGM's release: 14 of 30 either way).
 */
export const MIN_SCOPE_CANDIDATES = 5;

/**
 * The ranking options a query analysis gives (its word groups, weights, segments, sentences and phrase pairs).
 * @param analysed the query's analysis (analyze-query.ts)
 * @param anchor   denseCoverageOk of the query's embedder and dense text
 */
export function queryRankOptions(analysed: AnalysedQuery, anchor: boolean): RankOptions {
  return { anchor, groups: analysed.groups, weights: analysed.weights, segments: analysed.segments, sentences: analysed.sentences, pairs: analysed.pairs, pairTerms: analysed.pairTerms };
}

/** Options of rankStandard (see its parameters). */
export interface RankOptions {
  anchor?: boolean;
  groups?: string[][];
  weights?: number[];
  segments?: number[][];
  sentences?: QuerySentence[];
  titles?: ReadonlyMap<string, string>;
  pairs?: Array<[number, number]>;
  pairTerms?: Array<Array<[string, string]>>;
  /** Set on the ranking of a named scope itself (no second scoping). */
  scoped?: boolean;
  /** Relevance model and its no-pairs fallback (score.ts modelFor); absent = the shipped ones. */
  model?: RelevanceModel;
  fallback?: RelevanceModel;
}

/**
 * The regions of a document the query names (coverage.ts namedDocuments) scored as a search in that
 * document (`searchInDoc`) would score them: among its own candidates, whose words set the matchable query
 * length, pool IDF and document coverage. Called once per named document (rankStandard). Over a namespace
 * of ten filings, "What was MGM's interest coverage ratio using FY2022 Adjusted EBIT …" spreads its words
 * over every filing ("numerator" and "EBIT" are 10-K words),
 * so each chunk covers little of the query and MGM's evidence scored 0.025 (rank 15); scoped to MGM's
 * release, it scores as `searchInDoc` scores it. A named document's region keeps the better of its two scores;
 * other documents' regions keep theirs. The scoped ranking reads the same candidate lists (no engine call);
 * a chunk of a named document that a full list left out is imputed the whole list's floor, as before.
 * Scored together instead, the documents a query names compete: "AMCOR" names its 10-K and its
 * release, and the 10-K's words then set the bar for the release's passages: "How much was the
 * Real change in Sales for AMCOR in FY 2023 vs FY 2022 …" scored the release's evidence 0.15 (empty
 * context), 0.47 in `searchInDoc`. Cost: the named documents' candidates partition the scoped pool, so
 * the scoped rankings together read each candidate once, as the joint one did; rankStandard merges them
 * with the other documents' regions in one sort.
 * @returns this document's regions from its scoped ranking (with `stats` set)
 */
function scopeOf(regions: Region[], doc: string, vector: IndexHit[] | null, bm25: IndexHit[] | null, stats: QueryStats, opts: RankOptions): Region[] {
  const inScope = (hits: IndexHit[] | null) => hits && hits.filter((h) => h.chunk.doc_id === doc);
  const v = inScope(vector);
  const b = inScope(bm25);
  const base: QueryStats = {
    ...stats,
    maxBm25: b && b.length ? Math.max(...b.map((h) => h.score)) : 0,
    maxAnn: v && v.length ? Math.max(...v.map((h) => h.score)) : null,
  };
  const scoped = rankStandard(v, b, base, { ...opts, scoped: true });
  const global = new Map(regions.filter((r) => r.docId === doc).map((r) => [`${r.docId}:${r.chunksetIndex}:${r.from}`, r.score]));
  for (const r of scoped.regions) {
    r.stats = scoped.stats;
    r.score = Math.max(r.score, global.get(`${r.docId}:${r.chunksetIndex}:${r.from}`) ?? 0);
  }
  return scoped.regions;
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
