// Shapes of the evaluation API (POST /docsearch/evaluations and the report resource, docs/evaluations.md):
// the cases and variants a caller sends, and the report a run produces. The HTTP layer validates requests
// with TypeBox schemas (src/http/schemas/evaluations.ts) checked against these types at compile time.
import type { SearchRequest } from '../search/types.ts';
import type { MissCause, ReliabilityBin } from './judge.ts';

/** One question with what counts as found (at least one of doc_id, doc_ids and answers). */
export interface EvaluationCase {
  /** Caller's id, echoed in the report. */
  id?: string;
  query: string;
  /** The document that holds the answer. */
  doc_id?: string;
  /** Documents any of which holds the answer (not with doc_id, pages or chunk_indices). */
  doc_ids?: string[];
  /** 1-based pages of doc_id that hold the evidence. */
  pages?: number[];
  /** Chunk indices of doc_id that hold the evidence. */
  chunk_indices?: number[];
  /** Answer strings, any of which must appear in the context. */
  answers?: string[];
}

/** The search request fields a variant may set. */
type VariantSearchFields = Pick<SearchRequest, 'min_relevance' | 'min_top_relevance' | 'target_tokens' | 'max_tokens' | 'expand_tightness'
  | 'retrieval_tier' | 'doc_ids' | 'exclude_doc_ids' | 'unencrypted_strings_match'>;

/** Search request fields one variant sets; `search_in_doc` searches the case's doc_id with searchInDoc. */
export interface EvaluationVariant extends VariantSearchFields {
  name?: string;
  /** As the search body's (`value` present, as the schema types it). */
  attribute_filters?: Array<{ attr: string; op: string; value: unknown }>;
  search_in_doc?: boolean;
}

/** Body of POST /docsearch/evaluations. */
export interface EvaluationRequest {
  name?: string;
  cases: EvaluationCase[];
  /** Default: one variant, the default search request. */
  variants?: EvaluationVariant[];
}

/** Why a case was not found: a search-side cause, or the case could not be asked. */
export type CaseMissCause = MissCause | 'unknown_document' | 'error';

/** One case under one variant. */
export interface CaseResult {
  /** 0-based position in the request's cases. */
  index: number;
  id?: string;
  found: boolean;
  /** 1-based rank of the first evidence hit in the full ranking; null when not ranked. */
  rank: number | null;
  /** Score of that hit. */
  score: number | null;
  /** Tokens of the prompt-ready context. */
  tokens: number;
  latency_ms: number;
  miss_cause?: CaseMissCause;
  /** Set when the case could not be asked: the error code and message. */
  error?: { code: string; message: string };
}

/** Found share of the default request at one min_relevance. */
export interface SweepPoint {
  min_relevance: number;
  found: number;
  found_share: number;
}

/** Figures of one variant. Shares and means are over the evaluated cases (not unknown_document, not error). */
export interface VariantReport {
  name: string;
  /** The variant's request fields as sent. */
  request: EvaluationVariant;
  cases: number;
  evaluated: number;
  found: number;
  found_share: number;
  tokens_mean: number;
  tokens_p95: number;
  empty_contexts: number;
  latency_ms: { p50: number; p95: number };
  recall_at_10: number;
  mrr: number;
  ndcg_at_10: number;
  misses: Record<CaseMissCause, number>;
  reliability: ReliabilityBin[];
  min_relevance_sweep: SweepPoint[];
  recommended_min_relevance: { value: number; found_share: number };
  per_case: CaseResult[];
}

export interface EvaluationReport {
  variants: VariantReport[];
}

export type EvaluationStatus = 'pending' | 'running' | 'done' | 'failed' | 'cancelled';

/** The evaluation resource (GET /docsearch/evaluations/{id}); `report` once done. */
export interface EvaluationView {
  evaluation_id: string;
  /** The job that runs it (GET /jobs/{job_id}/status, /status/v1/jobs/{job_id}); the same id. */
  job_id: string;
  name: string;
  status: EvaluationStatus;
  case_count: number;
  variants: EvaluationVariant[];
  /** Runs done of case × variant (each run is one case asked under one variant, its sweep included). */
  progress: { done: number; total: number };
  created_at: string;
  finished_at: string | null;
  error?: { code: string; message: string };
  /** Headline per variant (name, found_share) once done; list views carry only this. */
  summary?: Array<{ name: string; found_share: number; recommended_min_relevance: number }>;
  report?: EvaluationReport;
}
