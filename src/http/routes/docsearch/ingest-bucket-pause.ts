// POST /docsearch/ingestBucket/{id}/pause — pause a running task (state paused_user): no new files start,
// files in flight finish. Idempotent for a paused task; 409 task_not_active for a finished one.
import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import type { Services } from '../../../services.ts';
import { ErrorBodySchema } from '../../schemas/common.ts';
import { TaskIdParams } from './ingest-bucket-schemas.ts';

export async function registerIngestBucketPauseRoute(app: FastifyInstance, services: Services): Promise<void> {
  app.post<{ Params: Static<typeof TaskIdParams> }>('/docsearch/ingestBucket/:id/pause', {
    schema: {
      tags: ['buckets'], operationId: 'pauseBucketIngest',
      summary: 'Pause a bucket ingest task', params: TaskIdParams, response: { 200: { $ref: 'BucketIngestTask#' }, 404: ErrorBodySchema, 409: ErrorBodySchema },
    },
  }, async (request) => services.buckets.pause(request.project, request.params.id));
}
