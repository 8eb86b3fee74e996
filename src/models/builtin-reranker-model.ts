// Coefficients of the builtin reranker: a logistic regression over the features of
// builtin-reranker-features.ts, so its output is directly a calibrated probability that a hit is
// relevant (the advanced tier's `score`). This file is the one place the constants live.
//
// PROVENANCE: fitted by `npx tsx bench/fit-reranker.ts --collect --write` (Newton's method, L2 = 1) on the
// TRAINING queries of the standard relevance model (bench/lib/train-sets.ts: SciFact train claims over
// 5 183, rel+100 and rel+10 abstracts; XQuAD even-numbered articles in 12 languages over 1, 10 and 240
// paragraphs and over article documents; plain and instruction-wrapped; each query and each kind of data
// weighed alike) — never a test split — over the top `depth` candidates of each query from the real
// standard pipeline (builtin GloVe embedder, LanceDB BM25, relevance-model.ts). Until the nineteenth
// session it was fitted on SciFact train alone, and on long documents its scores left most contexts empty
// (FinanceBench, docs/models.md). Re-run the script whenever the embedder, the analyser, the standard
// model or a feature changes.
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
  intercept: 0.3702,
  weights: {
    std: 0.8002,
    title_cov: 0.5196,
    sent_cov: 0.6718,
    sent_cos: 0.1655,
    title_cov_gap: 0.7506,
    sent_cov_gap: 3.3224,
    sent_cos_gap: 1.6562,
    bm25_per_term_gap: 3.5156,
    cos_gap_pool: 1.4419
  },
  depth: 50,
  source: "logistic regression on training splits (scifact n=5183, scifact n=rel+10, scifact n=rel+100, xquad long, xquad n=1, xquad n=10, xquad n=240; 5346 queries, top 50 standard hits each, 155653 candidates, 5560 relevant; each query and each kind weighed alike), bench/fit-reranker.ts, 2026-11-28"
};
