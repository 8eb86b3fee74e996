// Shapes shared by the retrieval stages and the search service. The request type mirrors the spec's
// search body (POST /docsearch/search, /searchInDoc); the HTTP layer validates it with a TypeBox schema
// (src/http/schemas/search.ts) that is checked against this interface at compile time.
import type { StoredChunk } from '../storage/namespace-index.ts';

export type SearchFormat = 'prompt_ready' | 'json';
export type RetrievalTier = 'standard' | 'advanced';

/** One typed-attribute filter clause; clauses are ANDed (spec: at most 32). */
export interface AttributeFilterClause {
  attr: string;
  op: string;
  value?: unknown;
}

/** Body of POST /docsearch/search and /docsearch/searchInDoc (spec "POST /docsearch/search"). */
export interface SearchRequest {
  query: string;
  doc_filter?: string;
  doc_ids?: string[];
  exclude_doc_ids?: string[];
  attribute_filters?: AttributeFilterClause[];
  unencrypted_strings_match?: Record<string, string>;
  return_assets?: boolean;
  return_page_images?: boolean;
  format?: SearchFormat;
  min_relevance?: number;
  min_top_relevance?: number;
  target_tokens?: number;
  max_tokens?: number;
  expand_tightness?: number;
  retrieval_tier?: RetrievalTier;
  premium?: boolean;
  meta_tags_any?: string[];
  meta_tags_all?: string[];
  meta_int_1_gte?: number;
  meta_int_1_lte?: number;
  meta_int_2_gte?: number;
  meta_int_2_lte?: number;
}

/** `RetrievalContext` (format = prompt_ready). `assets`: see src/ingest/assets/search-assets.ts and docs/assets.md. */
export interface RetrievalContextResponse {
  context: string;
  query: string;
  namespace: string;
  result_count: number;
  tokens_estimated: number;
  results_dropped: number;
  detected_lang: string | null;
  mode: RetrievalTier;
  search_units: number;
  assets?: Record<string, { images: unknown[]; tables: unknown[] }>;
}

/** Per-signal raw values of a hit (DESIGN.md §5); null where a signal did not run or did not match. */
export interface HitSignals {
  /** Cosine similarity of the query vector and the best chunk of the hit. */
  ann: number | null;
  /** BM25 of the best lexically matching chunk of the hit. */
  bm25: number | null;
  /** Reciprocal-rank-fusion value of the best chunk of the hit. */
  rrf: number;
  reranker: number | null;
}

/** One hit of `SearchResponse` (format = json). */
export interface JsonHit {
  doc_id: string;
  content: string;
  title: string;
  canonical_url: string;
  /** Sorted, distinct 1-based page numbers the hit's content spans. */
  pages: number[];
  chunk_indices: number[];
  score: number;
  scores: HitSignals;
}

/** BCP 47 "undetermined": `SearchResponse.detected_lang` when the query's language could not be told. */
export const UNDETERMINED_LANG = 'und';

/** `SearchResponse` (format = json). */
export interface SearchJsonResponse {
  results: JsonHit[];
  query: string;
  namespace: string;
  result_count: number;
  results_dropped: number;
  /** ISO 639-1 code of the query, or UNDETERMINED_LANG ('und') on low confidence; never null. */
  detected_lang: string;
}

/** A retrieved chunk after fusion, with its raw signals and ranks (1-based; null = not in that list). */
export interface FusedChunk {
  chunk: StoredChunk;
  ann: number | null;
  bm25: number | null;
  annRank: number | null;
  bm25Rank: number | null;
  rrf: number;
  /** The chunk's stored embedding (from either list); null when the engine returned none. */
  vector: Float32Array | null;
  /** Cosine to the lexical anchor (stages/anchor.ts); null before that stage or when undefined. */
  anchor: number | null;
  /** The chunk's analysed terms as stored (space-separated); null when the engine returned none. */
  tokens: string | null;
  /** The chunk's stored term hashes (analysis/term-hash.ts), read instead of `tokens` where stored; else null. */
  termHashes: Uint32Array | null;
  /** The chunk's stored phrase-pair hashes (analysis/term-hash.ts pairHashSet); absent/null where not stored. */
  pairHashes?: Uint32Array | null;
  /** IDF-weighted query-term coverage 0..1 (stages/coverage.ts); null before that stage or without tokens. */
  coverage: number | null;
  /** Coverage of the union of the candidates of the chunk's document (stages/coverage.ts); absent before that stage. */
  docCoverage?: number | null;
  /** The chunk's share of what its document's candidates hold of the query (stages/coverage.ts). */
  coverageInDoc?: number | null;
  /** Coverage of the query by the chunk's document title (stages/coverage.ts); absent without titles. */
  titleCoverage?: number | null;
  /**
   * Share of the query's phrase pairs the chunk holds adjacent (stages/coverage.ts); null when the chunk
   * stores no pair hashes (unknown: score.ts uses the model without `pair_cov`); absent before that stage.
   */
  pairCoverage?: number | null;
  /** The same share over the pairs that at least one candidate holds (stages/coverage.ts). */
  pairCoverageInPool?: number | null;
}

/**
 * A hit in the making: a contiguous chunk range [from, to] of one chunkset of one document.
 * `members` are the retrieved chunks inside it (the evidence); `chunks` the content, filled by expand.
 */
export interface Region {
  docId: string;
  chunksetIndex: number;
  from: number;
  to: number;
  members: FusedChunk[];
  signals: HitSignals;
  /** 1-based position of the region's best member in the fused list. */
  fusedRank: number;
  /** Highest lexical-anchor cosine of the members (stages/anchor.ts); null when no member has one. */
  anchor: number | null;
  /** Highest query-term coverage of the members (stages/coverage.ts); null when no member has one. */
  coverage: number | null;
  /** The document's coverage and the best member's in-document coverage (stages/coverage.ts). */
  docCoverage?: number | null;
  coverageInDoc?: number | null;
  /** Coverage of the query by the document's title (stages/coverage.ts). */
  titleCoverage?: number | null;
  /** Highest phrase-pair coverage of the members (stages/coverage.ts); null when no member stores pairs. */
  pairCoverage?: number | null;
  pairCoverageInPool?: number | null;
  /**
   * The query statistics the region was scored with when they are not the query's: a region of a document
   * the query names is scored among that document's candidates only (stages/standard-rank.ts).
   */
  stats?: QueryStats;
  /** Relevance probability 0..1 (stages/score.ts). */
  score: number;
  /** Content chunks ordered by chunk_index (core only before expansion). */
  chunks: StoredChunk[];
}

/** Query-level statistics the scoring features are normalised by. */
export interface QueryStats {
  /** Distinct analysed query words (stopwords excluded). */
  termCount: number;
  /** Query words that occur in at least one candidate (stages/coverage.ts); termCount when unknown. */
  matchable: number;
  /**
   * Whether the query's embedding means anything (standard-rank.ts denseCoverageOk); when false the
   * cosine features are 0 and `dense_off` is 1. Absent = true.
   */
  denseOk?: boolean;
  /** Highest query-term coverage among the candidates (stages/coverage.ts); absent = 0. */
  maxCoverage?: number;
  /**
   * Per query word group (analyze-query.ts `groups`), whether coverage counted it (stages/coverage.ts):
   * false for a dropped instruction sentence's words. The builtin reranker's lexical features use the
   * counted words (stages/rerank.ts rerankQueryTerms). Absent = every word.
   */
  countedWords?: boolean[];
  /** Chunks in the namespace (the N of BM25's IDF), ≥ 1. */
  chunkCount: number;
  /** Highest BM25 in the BM25 list (0 when empty). */
  maxBm25: number;
  /** Highest cosine in the vector list (null when the vector search did not run). */
  maxAnn: number | null;
  /** Value imputed for `ann` of chunks the vector list did not return (the list's lowest cosine). */
  annFloor: number | null;
  /** Value imputed for `bm25` of chunks the BM25 list did not return. */
  bm25Floor: number;
}
