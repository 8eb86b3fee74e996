// Coefficients of the relevance model (DESIGN.md §5 "Relevance score"): a logistic regression over the
// fused per-signal features of a hit, so `score` reads as the probability that the hit is relevant and
// `min_relevance` = 0.3 drops what is probably irrelevant. This file is the one place the constants live.
//
// PROVENANCE: fitted by `npx tsx bench/fit-relevance.ts` (Newton's method, L2 = 1) on BEIR SciFact
// TRAIN qrels only (809 queries, 142 090 candidates from the real retrieve/fuse/anchor/group stages over
// the 5 183-document corpus in LanceDB, 866 relevant), with the builtin GloVe-SIF embedder. The feature
// set is the one with the best 5-fold cross-validated train nDCG@10 in bench/fusion-study.ts. Train
// calibration: predicted 0.3–0.4 → observed 0.36, 0.4–0.5 → 0.45, 0.5–0.6 → 0.64, 0.6–0.7 → 0.75
// (train nDCG@10 by score 0.709 vs 0.512 by RRF order); a 71-document namespace keeps 73 % of relevant
// candidates above 0.3 (0.2 % of irrelevant ones). Re-run the script (and paste its output here)
// whenever the embedder, the analyser or a feature definition changes: the weights belong to that
// combination. With the weak builtin embedder the query cosine gets little weight (0.44); its signal
// enters through the lexical-anchor cosine (5.29) instead.

/** Feature names, in the order of `RELEVANCE_MODEL.weights`. See stages/score.ts for definitions. */
export const RELEVANCE_FEATURES = ['bm25_rel', 'bm25_per_term', 'anchor_cos', 'cos'] as const;

export interface RelevanceModel {
  intercept: number;
  weights: Record<(typeof RELEVANCE_FEATURES)[number], number>;
  /** Where the numbers come from (data set, split, examples, date). */
  source: string;
}

export const RELEVANCE_MODEL: RelevanceModel = {
  intercept: -15.0459,
  weights: { bm25_rel: 7.4668, bm25_per_term: 6.4466, anchor_cos: 5.2891, cos: 0.4367 },
  source: 'logistic regression on BEIR SciFact train qrels (809 queries, 142090 candidates, 866 relevant), builtin embedder + LanceDB BM25, bench/fit-relevance.ts, 2026-11-21',
};
