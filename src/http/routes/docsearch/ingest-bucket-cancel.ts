// DELETE /docsearch/ingestBucket/{id} — cancel a task: it ends `failed`, described as cancelled; files
// not yet ingested are dropped, documents already ingested stay. Idempotent; 409 when it had finished.
import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import type { Services } from '../../../services.ts';
import { ErrorBodySchema } from '../../schemas/common.ts';
import { TaskIdParams } from './ingest-bucket-schemas.ts';

export async function registerIngestBucketCancelRoute(app: FastifyInstance, services: Services): Promise<void> {
  app.delete<{ Params: Static<typeof TaskIdParams> }>('/docsearch/ingestBucket/:id', {
    schema: {
      tags: ['buckets'], operationId: 'cancelBucketIngest',
      summary: 'Cancel a bucket ingest task', params: TaskIdParams, response: { 200: { $ref: 'BucketIngestTask#' }, 404: ErrorBodySchema, 409: ErrorBodySchema },
    },
  }, async (request) => services.buckets.cancel(request.project, request.params.id));
}
