// Coefficients of the builtin reranker: a logistic regression over the features of
// builtin-reranker-features.ts, so its output is directly a calibrated probability that a hit is
// relevant (the advanced tier's `score`). This file is the one place the constants live.
//
// PROVENANCE: fitted by `npx tsx bench/fit-reranker.ts` (Newton's method, L2 = 1) on BEIR SciFact TRAIN
// qrels only — never test — over the top RERANK_DEPTH candidates of each train query from the real
// standard pipeline (builtin GloVe embedder, LanceDB BM25, relevance-model.ts). Re-run the script and
// paste its output here whenever the embedder, the analyser, the standard model or a feature changes.
import type { RerankFeatureName } from './builtin-reranker-features.ts';

export interface RerankModel {
  intercept: number;
  weights: Record<RerankFeatureName, number>;
  /** Candidates per query the model was fitted on (the pool its *_gap and IDF features are relative to). */
  depth: number;
  /** Where the numbers come from (data set, split, examples, date) and their cross-validated effect. */
  source: string;
}

export const RERANK_MODEL: RerankModel = {
  intercept: -0.1748,
  weights: {
    std: 0.4677,
    title_cov: 0.7239,
    sent_cov: 1.8164,
    sent_cos: -0.5019,
    title_cov_gap: 3.5565,
    sent_cov_gap: 2.6242,
    sent_cos_gap: 2.5276,
    bm25_per_term_gap: 5.4551,
    cos_gap_pool: 2.0774
  },
  depth: 50,
  source: "logistic regression on BEIR SciFact train qrels (809 queries, top 50 standard hits each, 40450 candidates, 820 relevant); 5-fold CV nDCG@10 0.7041 (standard) -> 0.7169 (reranked); bench/fit-reranker.ts, 2026-11-28"
};
