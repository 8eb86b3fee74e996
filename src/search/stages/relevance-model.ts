// Coefficients of the relevance model (DESIGN.md §5 "Relevance score"): a logistic regression over the
// fused per-signal features of a hit, so `score` reads as the probability that the hit is relevant and
// `min_relevance` = 0.3 drops what is probably irrelevant. This file is the one place the constants live.
//
// PROVENANCE: fitted by `npx tsx bench/fit-relevance.ts` (Newton's method, L2 = 1) on BEIR SciFact
// TRAIN qrels only (809 queries, 142 090 candidates from the real retrieve/fuse/group stages over the
// 5 183-document corpus in LanceDB, 866 relevant), with the builtin GloVe-SIF embedder. Train calibration:
// predicted 0.3–0.4 → observed 0.34, 0.4–0.5 → 0.47, 0.5–0.6 → 0.63 (train nDCG@10 by score 0.703 vs
// 0.512 by RRF order); a 71-document namespace keeps 73 % of relevant candidates above 0.3 (0.3 % of
// irrelevant ones). Re-run the script (and paste its
// output here) whenever the embedder, the analyser or a feature definition changes: the weights belong
// to that combination. With the weak builtin embedder the fit leans on BM25 (cos weight ≈ 0).

/** Feature names, in the order of `RELEVANCE_MODEL.weights`. See stages/score.ts for definitions. */
export const RELEVANCE_FEATURES = ['cos', 'cos_gap', 'bm25_rel', 'bm25_per_term', 'rrf'] as const;

export interface RelevanceModel {
  intercept: number;
  weights: Record<(typeof RELEVANCE_FEATURES)[number], number>;
  /** Where the numbers come from (data set, split, examples, date). */
  source: string;
}

export const RELEVANCE_MODEL: RelevanceModel = {
  intercept: -11.0623,
  weights: { cos: -0.2697, cos_gap: 2.02, bm25_rel: 7.5783, bm25_per_term: 6.1692, rrf: 1.8684 },
  source: 'logistic regression on BEIR SciFact train qrels (809 queries, 142090 candidates, 866 relevant), builtin embedder + LanceDB BM25, bench/fit-relevance.ts',
};
