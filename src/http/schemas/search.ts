// Request and response schemas of POST /docsearch/search and /docsearch/searchInDoc, written once with
// TypeBox: they validate requests (violations become 400 validation_failed naming the field, via
// http/error-handler.ts), type the handlers, and document the endpoints in OpenAPI. The domain type
// `SearchRequest` (search/types.ts) is checked against the schema at compile time below.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { SearchRequest } from '../../search/types.ts';

/** A string enum as one JSON-Schema `enum` (clearer Ajv messages than a union of literals). */
function StringEnum<T extends string>(values: readonly T[], opts: Record<string, unknown> = {}) {
  return Type.Unsafe<T>({ type: 'string', enum: [...values], ...opts });
}

const Nullable = <T extends TSchema>(s: T) => Type.Union([s, Type.Null()]);

/** Every attribute-filter operator of the spec; which ones a given attribute type offers is checked later. */
export const ATTRIBUTE_OPERATORS = [
  'eq', 'ne', 'in', 'nin', 'glob', 'iglob', 'lt', 'lte', 'gt', 'gte',
  'contains', 'contains_any', 'any_lt', 'any_gt', 'has_all_tokens', 'has_any_tokens',
] as const;

export const AttributeFilterClauseSchema = Type.Object({
  attr: Type.String({ pattern: '^[a-z0-9_]{1,64}$', description: 'Attribute name' }),
  // Not an enum: an operator the attribute's type does not offer (or an unknown one) is answered by the
  // attributes domain with 400 unsupported_operator naming the operators the type does offer.
  op: Type.String({ minLength: 1, maxLength: 32, examples: [...ATTRIBUTE_OPERATORS], description: `Operator; the set allowed depends on the attribute type (docs/attributes.md). One of: ${ATTRIBUTE_OPERATORS.join(', ')}` }),
  value: Type.Unknown({ description: 'Operand: scalar, or array for in/nin/contains_any/has_*_tokens' }),
}, { additionalProperties: false });

const DocId = Type.String({ minLength: 1, maxLength: 256 });

/** Fields shared by both endpoints (everything but query and doc_filter); evaluation variants reuse them. */
export const commonFields = {
  doc_ids: Type.Optional(Type.Array(DocId, { maxItems: 10000, description: 'Restrict to this set of documents' })),
  exclude_doc_ids: Type.Optional(Type.Array(DocId, { maxItems: 100, description: 'Documents to leave out (max 100)' })),
  attribute_filters: Type.Optional(Type.Array(AttributeFilterClauseSchema, { maxItems: 32, description: 'Clauses, ANDed (max 32)' })),
  unencrypted_strings_match: Type.Optional(Type.Record(Type.String({ pattern: '^[A-Za-z0-9_]{1,64}$' }), Type.String({ maxLength: 1024 }), {
    description: 'Key to case-insensitive glob (`*` any run, `?` one character); keys ANDed',
  })),
  return_assets: Type.Optional(Type.Boolean({ description: 'Return figures and tables of cited documents in `assets`' })),
  return_page_images: Type.Optional(Type.Boolean({ description: 'Deprecated; no effect', deprecated: true })),
  format: Type.Optional(StringEnum(['prompt_ready', 'json'] as const, { description: 'Response shape; default prompt_ready' })),
  min_relevance: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: 'Drop hits scoring below; default 0.3' })),
  min_top_relevance: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: 'Empty result when the best hit scores below' })),
  target_tokens: Type.Optional(Type.Integer({ minimum: 100, maximum: 500000, description: 'Soft token budget; default 5000' })),
  max_tokens: Type.Optional(Type.Integer({ minimum: 100, maximum: 500000, description: 'Hard token ceiling; default 15000' })),
  expand_tightness: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: 'Context expansion within the chunkset: 0 none, 1 whole chunkset; default 0.3' })),
  retrieval_tier: Type.Optional(StringEnum(['standard', 'advanced'] as const, { description: 'standard (fusion) or advanced (adds a reranker)' })),
  premium: Type.Optional(Type.Boolean({ description: 'Legacy: true equals retrieval_tier = advanced', deprecated: true })),
  meta_tags_any: Type.Optional(Type.Array(Type.String(), { maxItems: 100, description: 'Legacy; mapped to typed attributes', deprecated: true })),
  meta_tags_all: Type.Optional(Type.Array(Type.String(), { maxItems: 100, description: 'Legacy; mapped to typed attributes', deprecated: true })),
  meta_int_1_gte: Type.Optional(Type.Integer({ description: 'Legacy', deprecated: true })),
  meta_int_1_lte: Type.Optional(Type.Integer({ description: 'Legacy', deprecated: true })),
  meta_int_2_gte: Type.Optional(Type.Integer({ description: 'Legacy', deprecated: true })),
  meta_int_2_lte: Type.Optional(Type.Integer({ description: 'Legacy', deprecated: true })),
};

const Query = Type.String({ minLength: 1, maxLength: 10000, description: 'Natural-language query' });

export const SearchBodySchema = Type.Object({
  query: Query,
  doc_filter: Type.Optional(Type.String({ maxLength: 256, description: 'Single document id to restrict to' })),
  ...commonFields,
}, { additionalProperties: false, description: 'GrillSearchRequest' });

export const SearchInDocBodySchema = Type.Object({
  query: Query,
  doc_filter: Type.String({ minLength: 1, maxLength: 256, description: 'The document to search in (required)' }),
  ...commonFields,
}, { additionalProperties: false, description: 'GrillSearchRequest with doc_filter required' });

export type SearchBody = Static<typeof SearchBodySchema>;
export type SearchInDocBody = Static<typeof SearchInDocBodySchema>;
// Compile-time check: the validated bodies are domain SearchRequests (fails to typecheck otherwise).
type Assignable<T, U extends T> = U;
export type SearchBodyCheck = [Assignable<SearchRequest, SearchBody>, Assignable<SearchRequest, SearchInDocBody>];

export const RetrievalContextSchema = Type.Object({
  context: Type.String({ description: 'Prompt-ready block (grammar: docs/context-grammar.md)' }),
  query: Type.String(),
  namespace: Type.String(),
  result_count: Type.Integer(),
  tokens_estimated: Type.Integer(),
  results_dropped: Type.Integer(),
  detected_lang: Nullable(Type.String()),
  mode: StringEnum(['standard', 'advanced'] as const),
  search_units: Type.Integer(),
  assets: Type.Optional(Type.Record(Type.String(), Type.Object({ images: Type.Array(Type.Unknown()), tables: Type.Array(Type.Unknown()) }))),
}, { description: 'RetrievalContext (format = prompt_ready)' });

export const SearchHitSchema = Type.Object({
  doc_id: Type.String(),
  content: Type.String(),
  title: Type.String(),
  canonical_url: Type.String(),
  pages: Type.Array(Type.Integer(), { description: 'Sorted distinct 1-based page numbers the hit spans' }),
  chunk_indices: Type.Array(Type.Integer()),
  score: Type.Number({ description: 'Relevance probability 0..1' }),
  scores: Type.Object({
    ann: Nullable(Type.Number()),
    bm25: Nullable(Type.Number()),
    rrf: Nullable(Type.Number()),
    reranker: Nullable(Type.Number()),
  }),
});

export const SearchResponseSchema = Type.Object({
  results: Type.Array(SearchHitSchema),
  query: Type.String(),
  namespace: Type.String(),
  result_count: Type.Integer(),
  results_dropped: Type.Integer(),
  detected_lang: Type.String({ description: 'ISO 639-1 code of the query; "und" (BCP 47 undetermined) on low confidence' }),
}, { description: 'SearchResponse (format = json)' });

export const SearchResultSchema = Type.Union([RetrievalContextSchema, SearchResponseSchema]);
