// POST /docsearch/ingestBucket/{id}/retryFailed — re-queue the task's failed files (not those over the
// 500 MB limit); a finished task is re-opened and notifies its completion targets again when it ends.
import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import type { Services } from '../../../services.ts';
import { ErrorBodySchema } from '../../schemas/common.ts';
import { RetryFailedResponse, TaskIdParams } from './ingest-bucket-schemas.ts';

export async function registerIngestBucketRetryFailedRoute(app: FastifyInstance, services: Services): Promise<void> {
  app.post<{ Params: Static<typeof TaskIdParams> }>('/docsearch/ingestBucket/:id/retryFailed', {
    schema: {
      tags: ['buckets'], operationId: 'retryBucketIngestFailed',
      summary: 'Re-queue failed files of a bucket ingest task', params: TaskIdParams, response: { 200: RetryFailedResponse, 404: ErrorBodySchema, 409: ErrorBodySchema },
    },
  }, async (request) => services.buckets.retryFailed(request.project, request.params.id));
}
