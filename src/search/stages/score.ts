// Stage 5 of retrieval: the relevance score (0..1) of each hit — a logistic function of per-hit features,
// with coefficients from relevance-model.ts (fitted on training splits of SciFact and XQuAD, never test).
// The shipped model uses only ABSOLUTE features, so a score means the same whatever the best hit
// of the query scored, the namespace's size and the query's length:
//   cov            IDF-weighted share of the query's matchable words the hit holds (stages/coverage.ts)
//   bm25_pm        bm25 / (matchable words · idf_max), idf_max = ln(1 + (N − 0.5) / 1.5) the BM25 IDF of a
//                  term found in one of the namespace's N chunks; matchable = weighted query words that occur
//                  in the candidate pool (instruction filler that no chunk holds does not dilute it)
//   cos            cosine of query and best chunk (absent from the vector list: that list's lowest cosine);
//                  0 when the embedder covers less than half of the query (dense_off = 1 then)
//   rrf            rrf · (k + 1) / 2: 1 for a chunk ranked first by both retrievers
//   bm25_rr, ann_rr (k + 1) / (k + rank) in each list (0 when absent): rank 2 is worth 0.98 of rank 1
//   doc_cov        coverage of the union of the candidates of the hit's document (a long document answers
//                  a question with several chunks); cov_doc = the hit's share of that (cov / doc_cov)
//   title_cov      the hit's document title's share of the same weighted query mass as cov (title-terms.ts)
//   pair_cov       the weighted share of the query's phrase pairs (adjacent content words) the hit holds
//                  adjacent (coverage.ts); unknown for rows stored without pair hashes: such a hit is scored
//                  by the model fitted without this feature (relevance-model.ts RELEVANCE_MODEL_NO_PAIRS)
//   anchor_cos     cosine, in embedding space, of the hit and the query's best BM25 chunk (stages/anchor.ts;
//                  0 when undefined): one-passage pseudo-relevance feedback
//   score = 1 / (1 + exp(−(intercept + Σ weight · feature)))
// Also computed, for the fitting scripts' comparisons only (relative, not used by the shipped model):
//   bm25_rel = bm25 / best BM25, cos_gap = cos − best cos, bm25_per_term = bm25 / (all words · idf_max),
//   q_cov_max / q_bm25_max = the query's best coverage / BM25 per matchable word.
import type { FusedChunk, QueryStats, Region } from '../types.ts';
import { RRF_K } from './fuse.ts';
import { RELEVANCE_MODEL, RELEVANCE_MODEL_NO_PAIRS, type RelevanceFeatures, type RelevanceModel } from './relevance-model.ts';
import { isBibliographyRegion } from './section-prior.ts';

// The feature vector's type lives with the model that weighs it; its definitions are in this file's header.
export type { RelevanceFeatures };

/** What the features of a hit are computed from: its raw signals, anchor cosine and term coverage. */
export interface FeatureInput {
  ann: number | null;
  bm25: number | null;
  rrf: number;
  anchor: number | null;
  coverage: number | null;
  docCoverage?: number | null;
  coverageInDoc?: number | null;
  titleCoverage?: number | null;
  /** Phrase-pair coverage (coverage.ts); null/absent = unknown (the row stores no pair hashes). */
  pairCoverage?: number | null;
  pairCoverageInPool?: number | null;
  /** Best 1-based rank of the hit in the BM25 / vector list (null = absent from it). */
  bm25Rank?: number | null;
  annRank?: number | null;
}

/**
 * Feature vector of a hit (definitions in the file header).
 * @param hit   the hit's cosine to the query (ann), BM25, RRF value, cosine to the lexical anchor, coverage
 * @param stats query-level statistics from fuse.ts queryStats() (matchable, denseOk set by standard-rank.ts)
 */
export function relevanceFeatures(hit: FeatureInput, stats: QueryStats): RelevanceFeatures {
  const dense = stats.denseOk !== false;
  const cos = dense ? hit.ann ?? stats.annFloor ?? 0 : 0;
  const bm25 = Math.max(0, hit.bm25 ?? stats.bm25Floor);
  return {
    cos,
    cos_gap: !dense || stats.maxAnn === null ? 0 : Math.min(0, cos - stats.maxAnn),
    bm25_rel: stats.maxBm25 > 0 ? Math.min(1, bm25 / stats.maxBm25) : 0,
    bm25_per_term: bm25 / (Math.max(1, stats.termCount) * idfMax(stats.chunkCount)),
    bm25_pm: bm25 / (Math.max(1, stats.matchable) * idfMax(stats.chunkCount)),
    cov: hit.coverage ?? 0,
    rrf: (hit.rrf * (RRF_K + 1)) / 2,
    anchor_cos: hit.anchor ?? 0,
    dense_off: dense ? 0 : 1,
    q_cov_max: stats.maxCoverage ?? 0,
    q_bm25_max: Math.max(0, stats.maxBm25) / (Math.max(1, stats.matchable) * idfMax(stats.chunkCount)),
    bm25_rr: hit.bm25Rank ? (RRF_K + 1) / (RRF_K + hit.bm25Rank) : 0,
    ann_rr: dense && hit.annRank ? (RRF_K + 1) / (RRF_K + hit.annRank) : 0,
    doc_cov: hit.docCoverage ?? hit.coverage ?? 0,
    cov_doc: hit.coverageInDoc ?? 1,
    title_cov: hit.titleCoverage ?? 0,
    pair_cov: hit.pairCoverage ?? 0,
    pair_cov_pool: hit.pairCoverageInPool ?? 0,
  };
}

/** The feature input of a region: its signals plus its anchor cosine and coverage. */
export function regionInput(r: Region): FeatureInput {
  const best = (xs: Array<number | null>) => xs.reduce<number | null>((m, x) => (x !== null && (m === null || x < m) ? x : m), null);
  return {
    ann: r.signals.ann, bm25: r.signals.bm25, rrf: r.signals.rrf, anchor: r.anchor, coverage: r.coverage,
    docCoverage: r.docCoverage, coverageInDoc: r.coverageInDoc, titleCoverage: r.titleCoverage, pairCoverage: r.pairCoverage, pairCoverageInPool: r.pairCoverageInPool,
    bm25Rank: best(r.members.map((m) => m.bm25Rank)), annRank: best(r.members.map((m) => m.annRank)),
  };
}

/** The relevance probability of one candidate chunk on its own (a one-chunk region's score, unrounded). */
export function chunkScore(f: FusedChunk, stats: QueryStats, model: RelevanceModel = RELEVANCE_MODEL, fallback: RelevanceModel = RELEVANCE_MODEL_NO_PAIRS): number {
  const input: FeatureInput = {
    ann: f.ann, bm25: f.bm25, rrf: f.rrf, anchor: f.anchor, coverage: f.coverage,
    docCoverage: f.docCoverage, coverageInDoc: f.coverageInDoc, titleCoverage: f.titleCoverage, pairCoverage: f.pairCoverage, pairCoverageInPool: f.pairCoverageInPool,
    bm25Rank: f.bm25Rank, annRank: f.annRank,
  };
  return relevanceProbability(relevanceFeatures(input, stats), modelFor(input, model, fallback));
}

/** BM25 IDF (Robertson–Spärck Jones with +1, as Lucene/tantivy) of a term occurring in 1 of N chunks. */
export function idfMax(chunkCount: number): number {
  return Math.log(1 + (Math.max(2, chunkCount) - 0.5) / 1.5);
}

/** Logistic relevance probability of a feature vector under `model`; `offset` is added to the log-odds (a prior). */
export function relevanceProbability(f: RelevanceFeatures, model: RelevanceModel = RELEVANCE_MODEL, offset = 0): number {
  const { names, weights } = compiled(model);
  let z = model.intercept + offset;
  for (let i = 0; i < names.length; i++) z += weights[i] * (f[names[i]] ?? 0);
  return 1 / (1 + Math.exp(-z));
}

/** A model's weights as parallel arrays, made once per model object (Object.entries per hit was ≈ 0.3 MB of garbage a filled search). */
const compiledModels = new WeakMap<RelevanceModel, { names: Array<keyof RelevanceFeatures>; weights: number[] }>();
function compiled(model: RelevanceModel): { names: Array<keyof RelevanceFeatures>; weights: number[] } {
  let c = compiledModels.get(model);
  if (!c) {
    const entries = Object.entries(model.weights) as Array<[keyof RelevanceFeatures, number]>;
    c = { names: entries.map(([n]) => n), weights: entries.map(([, w]) => w) };
    compiledModels.set(model, c);
  }
  return c;
}

/**
 * Log-odds subtracted from the score of a hit that is part of a reference list (section-prior.ts).
 * A prior, not fitted: no evaluation set here has bibliographies (SciFact abstracts have none, so its
 * numbers do not move). 1.5 divides the odds by ≈ 4.5: a reference list that is the best BM25 match
 * (typical score 0.5) drops to ≈ 0.2, below the default min_relevance, while a query that only a
 * reference list answers still finds it with min_relevance lowered.
 */
export const BIBLIOGRAPHY_PRIOR = 1.5;

/**
 * The model that scores a hit: `model`, or `fallback` when the hit's phrase-pair coverage is unknown (rows
 * stored before pair hashes existed) and `model` weighs `pair_cov` — an unknown is not a 0.
 */
export function modelFor(input: FeatureInput, model: RelevanceModel = RELEVANCE_MODEL, fallback: RelevanceModel = RELEVANCE_MODEL_NO_PAIRS): RelevanceModel {
  return (input.pairCoverage === null || input.pairCoverage === undefined) && (model.weights.pair_cov !== undefined || model.weights.pair_cov_pool !== undefined) ? fallback : model;
}

/**
 * Score every region (sets `region.score`, rounded to 4 decimals) and order them best first
 * (ties: better fused rank first). Hits whose phrase-pair coverage is unknown are scored by `fallback`
 * (modelFor).
 */
export function scoreRegions(regions: Region[], stats: QueryStats, model: RelevanceModel = RELEVANCE_MODEL, fallback: RelevanceModel = RELEVANCE_MODEL_NO_PAIRS): Region[] {
  for (const r of regions) {
    const input = regionInput(r);
    const p = relevanceProbability(relevanceFeatures(input, stats), modelFor(input, model, fallback), isBibliographyRegion(r) ? -BIBLIOGRAPHY_PRIOR : 0);
    r.score = Math.round(p * 1e4) / 1e4;
  }
  return [...regions].sort(byScore);
}

/** Region order: best score first; ties by better fused rank (scoreRegions, and merges of scored regions). */
export function byScore(a: Region, b: Region): number {
  return b.score - a.score || a.fusedRank - b.fusedRank;
}

/**
 * Apply the relevance thresholds.
 * @param regions scored, best first
 * @param minRelevance drop hits scoring below (spec default 0.3)
 * @param minTopRelevance when the best hit scores below it, the result is empty (undefined = no check)
 */
export function applyThresholds(regions: Region[], minRelevance: number, minTopRelevance: number | undefined): Region[] {
  if (regions.length === 0) return regions;
  if (minTopRelevance !== undefined && regions[0].score < minTopRelevance) return [];
  return regions.filter((r) => r.score >= minRelevance);
}
