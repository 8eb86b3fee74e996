// Response schemas of the document and job endpoints (spec: DocInfo, ListDocsResponse,
// DeleteDocResponse, PublicJob). Written once: they serialise responses and feed the OpenAPI document.
import { Type } from '@sinclair/typebox';

export const DocInfoSchema = Type.Object({
  doc_id: Type.String(),
  title: Type.String(),
  language: Type.String({ description: 'BCP-47 language code' }),
  filename: Type.String(),
  canonical_url: Type.String(),
  pages: Type.Integer(),
  chunkset_count: Type.Integer(),
  chunk_count: Type.Integer(),
  image_count: Type.Integer(),
  table_count: Type.Integer(),
  ingested_at: Type.String({ format: 'date-time' }),
  source_job_id: Type.String(),
  bm25_state: Type.String({ description: 'indexed once its job is done (its rows are found by BM25 search and ranked as indexed rows before the document becomes visible); pending only for documents committed by older versions before their next index optimize' }),
}, { $id: 'DocInfo' });

export const ListDocsResponseSchema = Type.Object({
  namespace: Type.String(),
  total_documents: Type.Integer(),
  documents: Type.Array(Type.Ref('DocInfo')),
});

export const DeleteDocResponseSchema = Type.Object({
  doc_id: Type.String(),
  vectors_deleted: Type.Integer(),
  storage_deleted: Type.Boolean(),
});

export const DocIdParams = Type.Object({ docId: Type.String() });

export const JobStatusSchema = Type.Object({
  job_id: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('processing'), Type.Literal('done'), Type.Literal('failed')]),
  code: Type.Integer({ description: 'HTTP-like outcome: 202 pending/processing, 200 done, 4xx input at fault, 5xx server' }),
});

export const PublicJobSchema = Type.Object({
  job_id: Type.String({ format: 'uuid' }),
  created_at: Type.String({ format: 'date-time' }),
  status: Type.Optional(JobStatusSchema),
  properties: Type.Object({
    file: Type.Object({ filename: Type.String(), size: Type.Integer() }),
    base_url: Type.Optional(Type.String()),
  }),
}, { $id: 'PublicJob' });

export const JobStatusResponseSchema = Type.Object({
  job_id: Type.String(),
  status: JobStatusSchema.properties.status,
  code: Type.Integer(),
  is_terminal: Type.Boolean(),
  error: Type.Optional(Type.Object({ code: Type.String(), message: Type.String() })),
  doc_id: Type.Optional(Type.String()),
  attempts: Type.Integer(),
  created_at: Type.String(),
  updated_at: Type.String(),
  started_at: Type.Union([Type.String(), Type.Null()]),
  finished_at: Type.Union([Type.String(), Type.Null()]),
  properties: PublicJobSchema.properties.properties,
});
