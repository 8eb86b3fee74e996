// Coefficients of the relevance model (DESIGN.md §5 "Relevance score"): a logistic regression over the
// fused per-signal features of a hit, so `score` reads as the probability that the hit is relevant and
// `min_relevance` = 0.3 drops what is probably irrelevant. This file is the one place the constants live.
//
// PROVENANCE: fitted by `npx tsx bench/fit-relevance.ts` (Newton's method, L2 = 1) on BEIR SciFact
// TRAIN qrels only (809 queries, 142 090 candidates from the real stages of stages/standard-rank.ts over
// the 5 183-document corpus in LanceDB, 866 relevant), with the builtin GloVe-SIF embedder. anchor_cos
// joined the five earlier features because it raises 5-fold cross-validated train nDCG@10 from 0.7034 to
// 0.7081 (bench/fusion-study.ts). Train calibration: predicted 0.3–0.4 → observed 0.39, 0.4–0.5 → 0.42,
// 0.5–0.6 → 0.57, 0.6–0.7 → 0.78 (train nDCG@10 by score 0.708 vs 0.512 by RRF order); a 71-document
// namespace keeps 71 % of relevant candidates above 0.3 (0.25 % of irrelevant ones). Re-run the script
// (and paste its output here) whenever the embedder, the analyser or a feature definition changes: the
// weights belong to that combination.

/** Feature names, in the order of `RELEVANCE_MODEL.weights`. See stages/score.ts for definitions. */
export const RELEVANCE_FEATURES = ['cos', 'cos_gap', 'bm25_rel', 'bm25_per_term', 'rrf', 'anchor_cos'] as const;

export interface RelevanceModel {
  intercept: number;
  weights: Record<(typeof RELEVANCE_FEATURES)[number], number>;
  /** Where the numbers come from (data set, split, examples, date). */
  source: string;
}

export const RELEVANCE_MODEL: RelevanceModel = {
  intercept: -13.4901,
  weights: { cos: -1.0226, cos_gap: 1.4412, bm25_rel: 6.7412, bm25_per_term: 5.6302, rrf: 1.7496, anchor_cos: 4.3812 },
  source: 'logistic regression on BEIR SciFact train qrels (809 queries, 142090 candidates, 866 relevant), builtin embedder + LanceDB BM25, bench/fit-relevance.ts, 2026-11-21',
};
