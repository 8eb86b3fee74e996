// Request and response schemas of the evaluation endpoints (POST/GET /docsearch/evaluations,
// GET/DELETE /docsearch/evaluations/{id}), written once with TypeBox: validation (a violation is 400
// validation_failed naming the field, e.g. body.variants.1.min_relevance), handler types and OpenAPI.
// The domain types (evaluations/types.ts) are checked against them at compile time below.
import { Type, type Static } from '@sinclair/typebox';
import { commonFields } from './search.ts';
import type { EvaluationRequest, EvaluationView } from '../../evaluations/types.ts';

/** Cases one evaluation may hold. */
export const MAX_CASES = 1000;
/** Variants one evaluation may compare. */
export const MAX_VARIANTS = 4;

const Int1 = Type.Integer({ minimum: 0, maximum: 1_000_000 });

export const EvaluationCaseSchema = Type.Object({
  id: Type.Optional(Type.String({ maxLength: 256, description: 'Your id for the case, echoed in the report' })),
  query: Type.String({ minLength: 1, maxLength: 10000, description: 'The question, as users ask it' }),
  doc_id: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'The document that holds the answer' })),
  doc_ids: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 256 }), { minItems: 1, maxItems: 100, uniqueItems: true, description: 'Documents any of which holds the answer (several relevant documents); not with doc_id, pages or chunk_indices' })),
  pages: Type.Optional(Type.Array(Type.Integer({ minimum: 1, maximum: 1_000_000 }), { minItems: 1, maxItems: 1000, description: '1-based pages of doc_id holding the evidence' })),
  chunk_indices: Type.Optional(Type.Array(Int1, { minItems: 1, maxItems: 1000, description: 'Chunk indices of doc_id holding the evidence' })),
  answers: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 2000 }), { minItems: 1, maxItems: 32, description: 'Answer strings; found when the context contains one (case and spacing ignored)' })),
}, { additionalProperties: false, description: 'A question and what counts as found: doc_id (optionally with pages or chunk_indices) or doc_ids, answers, or both' });

const { min_relevance, min_top_relevance, target_tokens, max_tokens, expand_tightness, retrieval_tier, doc_ids, exclude_doc_ids, attribute_filters, unencrypted_strings_match } = commonFields;

export const EvaluationVariantSchema = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Name in the report (default: "default" for {}, else variant-N)' })),
  min_relevance, min_top_relevance, target_tokens, max_tokens, expand_tightness, retrieval_tier, doc_ids, exclude_doc_ids, attribute_filters, unencrypted_strings_match,
  search_in_doc: Type.Optional(Type.Boolean({ description: 'Ask each case that names a doc_id with searchInDoc on that document' })),
}, { additionalProperties: false, description: 'Search request fields of one variant' });

export const CreateEvaluationBodySchema = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  cases: Type.Array(EvaluationCaseSchema, { minItems: 1, maxItems: MAX_CASES, description: `The questions (1..${MAX_CASES})` }),
  variants: Type.Optional(Type.Array(EvaluationVariantSchema, { minItems: 1, maxItems: MAX_VARIANTS, description: `Request variants to compare (1..${MAX_VARIANTS}); default one variant, the default request` })),
}, { additionalProperties: false });

const Rounded = Type.Number();
const Nullable = <T extends ReturnType<typeof Type.Number>>(s: T) => Type.Union([s, Type.Null()]);
const MissCause = Type.Unsafe<string>({ type: 'string', enum: ['empty', 'wrong_document', 'not_ranked', 'below_threshold', 'cut_by_budget', 'unknown_document', 'error'] });
const ErrorPair = Type.Object({ code: Type.String(), message: Type.String() });

export const CaseResultSchema = Type.Object({
  index: Type.Integer({ description: '0-based position in cases' }),
  id: Type.Optional(Type.String()),
  found: Type.Boolean({ description: 'The evidence is in the default prompt-ready context' }),
  rank: Type.Union([Type.Integer(), Type.Null()], { description: '1-based rank of the first evidence hit in the full ranking' }),
  score: Nullable(Type.Number({ description: 'Score of that hit' })),
  tokens: Type.Integer({ description: 'Tokens of the prompt-ready context' }),
  latency_ms: Rounded,
  miss_cause: Type.Optional(MissCause),
  error: Type.Optional(ErrorPair),
});

export const VariantReportSchema = Type.Object({
  name: Type.String(),
  request: EvaluationVariantSchema,
  cases: Type.Integer(),
  evaluated: Type.Integer({ description: 'Cases asked (not unknown_document, not error); shares and means are over these' }),
  found: Type.Integer(),
  found_share: Rounded,
  tokens_mean: Type.Integer(),
  tokens_p95: Type.Integer(),
  empty_contexts: Type.Integer(),
  latency_ms: Type.Object({ p50: Rounded, p95: Rounded }),
  recall_at_10: Rounded,
  mrr: Rounded,
  ndcg_at_10: Rounded,
  misses: Type.Record(Type.String(), Type.Integer(), { description: 'Cases not found, by cause' }),
  reliability: Type.Array(Type.Object({ from: Rounded, to: Rounded, n: Type.Integer(), mean_score: Rounded, observed: Rounded }), { description: 'Reliability curve of score: share of relevant hits per score bin of the full rankings' }),
  min_relevance_sweep: Type.Array(Type.Object({ min_relevance: Rounded, found: Type.Integer(), found_share: Rounded })),
  recommended_min_relevance: Type.Object({ value: Rounded, found_share: Rounded }, { description: 'The sweep value with the highest found share (the highest such value on a tie)' }),
  per_case: Type.Array(CaseResultSchema),
});

export const EvaluationViewSchema = Type.Object({
  evaluation_id: Type.String(),
  job_id: Type.String({ description: 'The job running it (job endpoints); the same id' }),
  name: Type.String(),
  status: Type.Unsafe<'pending' | 'running' | 'done' | 'failed' | 'cancelled'>({ type: 'string', enum: ['pending', 'running', 'done', 'failed', 'cancelled'] }),
  case_count: Type.Integer(),
  variants: Type.Array(EvaluationVariantSchema),
  progress: Type.Object({ done: Type.Integer(), total: Type.Integer() }, { description: 'Case × variant runs done and in all' }),
  created_at: Type.String(),
  finished_at: Type.Union([Type.String(), Type.Null()]),
  error: Type.Optional(ErrorPair),
  summary: Type.Optional(Type.Array(Type.Object({ name: Type.String(), found_share: Rounded, recommended_min_relevance: Rounded }))),
  report: Type.Optional(Type.Object({ variants: Type.Array(VariantReportSchema) })),
}, { description: 'An evaluation; `report` once done (docs/evaluations.md)' });

export const EvaluationListSchema = Type.Object({
  evaluations: Type.Array(EvaluationViewSchema, { description: 'Newest first, without reports' }),
});

export const EvaluationIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
// Query strings are not coerced (as ingestBucket failures' `limit`): digits here, the range in the route.
export const EvaluationListQuery = Type.Object({ limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,3}$', description: 'At most this many, 1..100 (default 50)' })) });

export const DeleteEvaluationResponseSchema = Type.Object({ evaluation_id: Type.String(), deleted: Type.Boolean() });

export type CreateEvaluationBody = Static<typeof CreateEvaluationBodySchema>;
// Compile-time checks: the validated body is a domain EvaluationRequest, and views fit the response schema.
type Assignable<T, U extends T> = U;
export type EvaluationSchemaCheck = [Assignable<EvaluationRequest, CreateEvaluationBody>, Assignable<Static<typeof EvaluationViewSchema>, EvaluationView>];
