// Response schemas of the job endpoints (docs/jobs.md): the job status view shared by the status
// endpoint, the DELETE response and (as JSON in `data:`) the SSE stream and the completion webhook.
import { Type } from '@sinclair/typebox';

export const JobIdParams = Type.Object({ job_id: Type.String({ maxLength: 200 }) });

/** Extension: how far an ingest has come (docs/jobs.md); counts appear once known. */
export const JobProgressSchema = Type.Object({
  stage: Type.Union([Type.Literal('parsing'), Type.Literal('embedding'), Type.Literal('indexing'), Type.Literal('rebuilding'), Type.Literal('switching')], {
    description: 'An ingest: parsing, embedding, indexing. A reindex: rebuilding, then switching',
  }),
  documents_total: Type.Optional(Type.Integer({ minimum: 0, description: 'A reindex: documents to rebuild so far' })),
  documents_done: Type.Optional(Type.Integer({ minimum: 0 })),
  chunks_done: Type.Optional(Type.Integer({ minimum: 0, description: 'A reindex: chunks written to the new generation' })),
  pages_total: Type.Optional(Type.Integer({ minimum: 0, description: 'Pages of a paged format (PDF), once opened' })),
  pages_parsed: Type.Optional(Type.Integer({ minimum: 0 })),
  chunks_total: Type.Optional(Type.Integer({ minimum: 0, description: 'Chunks the document was cut into (a reindex: of the serving index)' })),
  chunks_embedded: Type.Optional(Type.Integer({ minimum: 0 })),
}, { description: 'Extension: the running (or last) attempt\'s stage and counts; moves while the job is processing' });

export const JobStatusViewSchema = Type.Object({
  job_id: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('processing'), Type.Literal('done'), Type.Literal('failed')]),
  code: Type.Integer({ description: 'HTTP-like outcome: 202 pending/processing, 200 done, 4xx input at fault, 499 cancelled, 5xx server' }),
  is_terminal: Type.Boolean(),
  error: Type.Optional(Type.Object({ code: Type.String(), message: Type.String() })),
  doc_id: Type.Optional(Type.String()),
  attempts: Type.Integer(),
  max_attempts: Type.Integer(),
  next_attempt_at: Type.Optional(Type.String({ description: 'pending after a failed attempt: earliest start of the next one' })),
  last_error: Type.Optional(Type.String({ description: 'pending after a failed attempt: why it failed' })),
  created_at: Type.String(),
  updated_at: Type.String(),
  started_at: Type.Union([Type.String(), Type.Null()]),
  finished_at: Type.Union([Type.String(), Type.Null()]),
  properties: Type.Object({
    file: Type.Object({ filename: Type.String(), size: Type.Integer() }),
    base_url: Type.Optional(Type.String()),
  }),
  progress: Type.Optional(JobProgressSchema),
});

export const DeleteJobResponseSchema = Type.Object({
  job_id: Type.String(),
  result: Type.Union([Type.Literal('cancelled'), Type.Literal('record_deleted')], {
    description: 'cancelled: the job had not finished; it is now failed (error.code job_cancelled) and its partial data is removed. record_deleted: the job had finished; its record is gone, a document it created stays.',
  }),
  job: JobStatusViewSchema,
});

export const WebhookSecretSchema = Type.Object({
  secret: Type.String({ description: 'whsec_ + base64 key; HMAC-SHA256 key of webhook-signature (docs/webhooks.md)' }),
  created_at: Type.String(),
});

const STATE = '(pending|processing|done|failed)';

export const JobListQuerySchema = Type.Object({
  status: Type.Optional(Type.String({
    pattern: `^${STATE}(,${STATE}){0,3}$`,
    description: 'Only jobs in these states, comma-separated (e.g. `pending,processing` for the unfinished ones)',
  })),
  limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,3}$', description: 'Page size 1..100 (default 20)' })),
  cursor: Type.Optional(Type.String({ maxLength: 512, description: 'The `next_cursor` of the previous page' })),
});

export const JobListResponseSchema = Type.Object({
  jobs: Type.Array(JobStatusViewSchema, { description: 'Newest first; each as GET /jobs/{job_id}/status shows it' }),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `cursor` for older jobs; null on the last page' }),
});
