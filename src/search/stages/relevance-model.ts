// Coefficients of the relevance model (DESIGN.md §5 "Relevance score"): a logistic regression over
// absolute per-hit features (stages/score.ts), so `score` reads as the probability that the hit is
// relevant and `min_relevance` = 0.3 drops what is probably irrelevant — the same meaning in a namespace
// of one document or of 100k chunks, for a short or a verbose question, in any language.
// This file is the one place the constants live.
//
// PROVENANCE: fitted by `npx tsx bench/fit-relevance.ts --collect --per-set 40 --features
// cov,bm25_pm,cos,dense_off,rrf,anchor_cos,bm25_rr,ann_rr,doc_cov,cov_doc,title_cov,pair_cov,pair_cov_pool` (Newton's method, L2 = 1, each
// query and each kind of data weighted equally) on TRAINING splits only: all 809 SciFact train claims over
// the 5 183 abstracts, and 80 of them in namespaces of rel+100 and rel+10 abstracts; XQuAD questions of the
// even-numbered articles in 12 languages over namespaces of 1, 10 and 240 paragraphs and of multi-paragraph
// article documents; every question asked plain and wrapped in an instruction (bench/lib/train-sets.ts,
// templates distinct from the evaluation's). 410 200 candidates of 5 345 queries, 5 498 relevant. The rows
// are collected through the shipped query analysis (clause segments, two-level pool IDF, sentence drop,
// instruction sentences weighing 0); the fits that led here are in docs/decisions/2026-11-24-relevance-model.md.
// What the features added last gave on the training rows, each against the same rows fitted without it:
// - `title_cov` (weight 1.09; the document label, title + file name words): SciFact over 5 183 abstracts
//   nDCG@10 0.696 → 0.702, a relevant hit ≥ 0.3 plain 0.555 → 0.569 and wrapped 0.512 → 0.527; XQuAD n=10
//   two queries worse. Fitted on the bare title instead, every weight is within 0.001 of these.
// - `pair_cov` and `pair_cov_pool` (coverage.ts; pair hashes stored at ingest). Fitted together,
// `pair_cov` takes −0.98 and `pair_cov_pool` +1.97: holding one more pair raises both, so the score still
// rises with every pair held; the pool share carries the evidence, the all-pairs share corrects it where
// few of the query's pairs occur anywhere. SciFact over 5 183 abstracts nDCG@10 0.7017 → 0.7049 (wrapped
// 0.6905 → 0.6939), a relevant hit ≥ 0.3 plain 0.569 → 0.571 and wrapped 0.527 → 0.538; rel+10 0.79 →
// 0.83, rel+100 0.74 → 0.80; XQuAD n=10 0.904 → 0.917, n=240 0.821 → 0.844; XQuAD article documents
// 0.960 → 0.950 (5 of 480 queries worse); log-loss lower on every kind. Each alone: `pair_cov` (weight
// 0.82) gains SciFact nDCG but loses XQuAD n=240 and article documents; `pair_cov_pool` (2.78) gains XQuAD
// and small SciFact namespaces but loses SciFact over 5 183 abstracts (nDCG@10 0.699). Rows stored without
// pair hashes are scored by RELEVANCE_MODEL_NO_PAIRS (score.ts modelFor).
// Query-side changes measured with these weights (refitted where the refit was better):
// - The query vector is the question's for wrapped questions (analyze-query.ts denseQueryText): weights
//   unchanged (a refit on those rows lowered the plain hit rates, docs/search.md).
// - A letter/digit compound ("FY2023") is one query word instead of three (analyze-query.ts; its parts stay
//   BM25 terms) and the phrase of its parts (pair [a, a]); refitted: SciFact over 5 183 abstracts a relevant
//   hit ≥ 0.3 plain 0.566 → 0.565 and wrapped 0.535 → 0.529 (identifiers such as "FGF21" lose the weight
//   their parts had added), nDCG@10 0.7046 → 0.7035, every XQuAD kind and the small SciFact namespaces
//   unchanged.
// - Instruction sentences weigh 0 in coverage (coverage.ts instructionDrop); refitted: SciFact over 5 183
//   abstracts a relevant hit ≥ 0.3 plain 0.567 → 0.565, wrapped 0.532 → 0.532; XQuAD n=240 wrapped 0.831 →
//   0.838; every weight within 0.07 (docs/search.md). These are the shipped weights.
// - The query also drops @orama/stopwords' words (analysis/stopwords.ts queryStopTerms): these weights give
//   SciFact over 5 183 abstracts nDCG@10 0.6993 (0.7007 before), a relevant hit ≥ 0.3 for 0.572 of the
//   claims (0.565); a refit on those rows was worse on every kind but the small SciFact namespaces, so the
//   weights were kept (docs/search.md).
// Not adopted: regions that group strong chunks with strong ones only (group-regions.ts GROUP_MIN_SCORE,
// which scores chunks with this model), refitted on rows collected that way. A region's features are
// maxima over its members, so strong regions keep their features; what changes is that the weak neighbour
// holding an answer span is now its own low-scored region labelled relevant, which pulls a refit toward
// lower doc_cov (3.47 → 2.41) and higher cov (3.42 → 4.45). The shipped weights (`fit-relevance.ts
// --shipped`) against that refit: SciFact over 5 183 abstracts nDCG@10 0.7007 / 0.696, XQuAD article
// documents a relevant hit ≥ 0.3 0.935 / 0.913 (log-loss 0.095 / 0.075); on the long training documents
// (bench:answers --sets books) answers in context 0.937 / 0.892 (search) and 0.992 / 0.952 (searchInDoc).
// Calibration of the shipped weights on their training rows, unweighted (predicted → observed): 0.2–0.3 → 0.13,
// 0.3–0.4 → 0.26, 0.4–0.5 → 0.31, 0.5–0.6 → 0.36, 0.6–0.7 → 0.43, 0.7–0.8 → 0.54, 0.8–0.9 → 0.71, 0.9–1.0 → 0.89.
// Relative features (BM25 / best BM25, cosine − best cosine) and query-level maxima were tried and are
// NOT used: they rank SciFact slightly better but make scores winner-take-all (a second relevant passage
// scored 0.0047 behind a first one at 0.87); query-level maxima fitted negative weights, i.e. the same
// effect by another door. The rank features (bm25_rr, ann_rr: 61/(60 + rank), rank 2 worth 0.98 of rank
// 1) keep what ranks add without that effect. SciFact test nDCG@10 of the standard tier: 0.6901 (0.6905
// before the compound change, 0.6873 without the pair features; BM25 alone 0.6895; bench:scifact). Re-run the script (and paste its output here) whenever the embedder, the
// analyser or a feature definition changes: the weights belong to that combination.

/** Every feature a relevance model may weight (a model uses a subset; definitions in the header of stages/score.ts, which computes them). */
export interface RelevanceFeatures {
  cos: number;
  cos_gap: number;
  bm25_rel: number;
  bm25_per_term: number;
  bm25_pm: number;
  cov: number;
  rrf: number;
  anchor_cos: number;
  dense_off: number;
  q_cov_max: number;
  q_bm25_max: number;
  bm25_rr: number;
  ann_rr: number;
  doc_cov: number;
  cov_doc: number;
  title_cov: number;
  pair_cov: number;
  pair_cov_pool: number;
}

/** Feature names of the shipped model, in the order of `RELEVANCE_MODEL.weights`. See stages/score.ts. */
export const RELEVANCE_FEATURES = ['cov', 'bm25_pm', 'cos', 'dense_off', 'rrf', 'anchor_cos', 'bm25_rr', 'ann_rr', 'doc_cov', 'cov_doc', 'title_cov', 'pair_cov', 'pair_cov_pool'] as const;

export interface RelevanceModel {
  intercept: number;
  /** Weight per feature name of RelevanceFeatures; features not named weigh 0. */
  weights: Partial<Record<keyof RelevanceFeatures, number>>;
  /** Where the numbers come from (data set, split, examples, date). */
  source: string;
}

export const RELEVANCE_MODEL: RelevanceModel = {
  intercept: -9.1152,
  weights: { cov: 3.4216, bm25_pm: 3.2351, cos: -0.4633, dense_off: 1.0635, rrf: 0.7692, anchor_cos: 0.7731, bm25_rr: 1.6762, ann_rr: 0.6953, doc_cov: 3.4724, cov_doc: -0.5263, title_cov: 1.0767, pair_cov: -1.1188, pair_cov_pool: 1.9977 },
  source: 'logistic regression on training splits (scifact n=5183, scifact n=rel+10, scifact n=rel+100, xquad long, xquad n=1, xquad n=10, xquad n=240; 400836 candidates of 5345 queries, 5496 relevant), builtin embedder + LanceDB BM25, bench/fit-relevance.ts, 2026-11-28 (instruction sentences dropped by their marker words)',
};

/**
 * The model for hits whose phrase-pair coverage is unknown (rows stored before pair hashes existed; score.ts
 * modelFor): the same fit without the pair features, on the same training rows.
 */
export const RELEVANCE_MODEL_NO_PAIRS: RelevanceModel = {
  intercept: -9.494,
  weights: { cov: 3.9485, bm25_pm: 3.644, cos: -0.4759, dense_off: 1.0789, rrf: 0.7871, anchor_cos: 0.8525, bm25_rr: 1.813, ann_rr: 0.653, doc_cov: 3.6769, cov_doc: -0.3548, title_cov: 1.0228 },
  source: 'logistic regression on training splits (scifact n=5183, scifact n=rel+10, scifact n=rel+100, xquad long, xquad n=1, xquad n=10, xquad n=240; 400836 candidates of 5345 queries, 5496 relevant), builtin embedder + LanceDB BM25, bench/fit-relevance.ts, 2026-11-28 (without the pair features)',
};
