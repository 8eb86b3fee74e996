// Rerankers behind one interface (DESIGN.md §3): the advanced retrieval tier hands the query and its best
// candidate passages to a Reranker and gets one relevance value per passage back. Providers: `builtin`
// (a learned model over lexical, proximity and semantic features; offline), `onnx` (a local cross-encoder
// folder run with @huggingface/transformers) and `http` (a /v1/rerank service: TEI, Jina, Cohere shape).

/** The query as the search pipeline analysed it. */
export interface RerankQuery {
  text: string;
  /** ISO 639-1 language the query's lexical terms were stemmed in (null = unstemmed). */
  lang: string | null;
  /**
   * The query's content terms as the standard tier counted them (stemmed in `lang`; stopwords, prompt
   * words and dropped instruction sentences left out; stages/rerank.ts rerankQueryTerms). The builtin
   * reranker's lexical features use them instead of every word of `text`; a model reading text ignores
   * them. Absent = derive the terms from `text`.
   */
  terms?: string[];
}

/** One candidate passage: a hit's retrieved chunks, with what the first stage knew about it. */
export interface RerankCandidate {
  /** Heading path / document title of the passage ('' when none). */
  title: string;
  /** Markdown content of the passage. */
  text: string;
  /**
   * What the first stage knew: raw signals (cosine, BM25, RRF; null = not in that list), the standard
   * tier's calibrated score (0..1) and its normalised features (src/search/stages/score.ts: cos, cos_gap,
   * bm25_rel, bm25_per_term, rrf). Cross-encoders ignore it; the builtin model builds on it.
   */
  first: { ann: number | null; bm25: number | null; rrf: number; score: number; features: Record<string, number> };
}

/**
 * What a reranker's raw values are, which decides how the advanced tier turns them into the calibrated
 * `score` (src/search/stages/rerank.ts):
 *  - `probability`: already a calibrated relevance probability (the builtin model, fitted on the SciFact and XQuAD training splits);
 *  - `logit`: an unbounded relevance logit (ONNX cross-encoders);
 *  - `unit`: a 0..1 relevance value of unknown calibration (HTTP services: TEI, Jina, Cohere).
 */
export type RerankOutput = 'probability' | 'logit' | 'unit';

export interface RerankerInfo {
  provider: 'builtin' | 'onnx' | 'http';
  model: string;
  output: RerankOutput;
}

/**
 * How a 'logit' or 'unit' reranker is combined with the standard score into the advanced `score`:
 * σ(intercept + reranker·z + standard·logit(standard score)) (src/search/stages/rerank.ts).
 */
export interface RerankCalibration {
  intercept: number;
  reranker: number;
  standard: number;
}

export interface Reranker {
  readonly info: RerankerInfo;
  /**
   * Score candidates against the query.
   * @returns one raw relevance value per candidate, in input order (higher = more relevant)
   * @throws Error when the model or service fails; the search then answers with the standard tier
   */
  rerank(query: RerankQuery, candidates: RerankCandidate[]): Promise<number[]>;
  /** Release native resources (ONNX sessions). */
  close?(): Promise<void>;
}
