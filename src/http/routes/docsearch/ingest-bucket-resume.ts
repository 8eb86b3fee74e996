// POST /docsearch/ingestBucket/{id}/resume — resume a paused task to the phase it paused in, from its
// checkpoint. Idempotent for a running task; 409 task_not_active for a finished one.
import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import type { Services } from '../../../services.ts';
import { ErrorBodySchema } from '../../schemas/common.ts';
import { TaskIdParams } from './ingest-bucket-schemas.ts';

export async function registerIngestBucketResumeRoute(app: FastifyInstance, services: Services): Promise<void> {
  app.post<{ Params: Static<typeof TaskIdParams> }>('/docsearch/ingestBucket/:id/resume', {
    schema: {
      tags: ['buckets'], operationId: 'resumeBucketIngest',
      summary: 'Resume a bucket ingest task', params: TaskIdParams, response: { 200: { $ref: 'BucketIngestTask#' }, 404: ErrorBodySchema, 409: ErrorBodySchema },
    },
  }, async (request) => services.buckets.resume(request.project, request.params.id));
}
