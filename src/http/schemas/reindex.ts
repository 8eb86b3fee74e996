// Schemas of the index endpoints (GET /docsearch/index, POST /docsearch/reindex), written once with TypeBox:
// validation, handler types and OpenAPI. The domain types (reindex/*.ts) are checked against them below.
import { Type, type Static } from '@sinclair/typebox';
import type { IndexDescription } from '../../reindex/index-builds.ts';

export const IndexBuildSchema = Type.Object({
  embedder: Type.Object({
    provider: Type.String({ description: 'Embedder kind (builtin, onnx, http)' }),
    model: Type.String({ description: 'Model id' }),
    dimension: Type.Integer({ description: 'Vector dimension' }),
  }),
  analyser: Type.Union([Type.Integer(), Type.Null()], { description: 'Text analysis version; null for a table built before it was recorded' }),
  format: Type.String({ description: 'Table format (`packed-2`; `columns` or `packed` for tables built before it was recorded)' }),
}, { description: 'What built an index: embedder, text analysis and table format' });

const BuildRef = IndexBuildSchema;

export const ReindexStateSchema = Type.Object({
  job_id: Type.String({ format: 'uuid', description: 'The reindex job (GET /jobs/{job_id}/status follows it)' }),
  status: Type.Unsafe<string>({ type: 'string', enum: ['pending', 'processing', 'done', 'failed'] }),
  generation: Type.Integer({ description: 'Generation being built' }),
}, { description: 'The reindex running in the namespace' });

export const IndexDescriptionSchema = Type.Object({
  namespace: Type.String(),
  generation: Type.Integer({ description: 'Generation of the serving index (0 until the first reindex)' }),
  chunks: Type.Integer({ description: 'Chunks in the serving index' }),
  built_with: Type.Union([BuildRef, Type.Null()], { description: 'What built the serving index; null while the namespace has none' }),
  running: BuildRef,
  needs_reindex: Type.Boolean({ description: 'The serving index was built by another embedder, analyser or table format than the running one; it still answers' }),
  reasons: Type.Array(Type.String(), { description: 'One sentence per difference' }),
  reindex: Type.Union([ReindexStateSchema, Type.Null()], { description: 'The reindex running now, if any' }),
});

export type IndexDescriptionBody = Static<typeof IndexDescriptionSchema>;

// The domain's description (plus the reindex state) is what the route returns.
type Check<T extends IndexDescriptionBody> = T;
export type _DescriptionMatches = Check<IndexDescription & { reindex: IndexDescriptionBody['reindex'] }>;
