// GET /docsearch/ingestBucket/{id} — status of a bucket ingest task of the caller's project.
import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import type { Services } from '../../../services.ts';
import { ErrorBodySchema } from '../../schemas/common.ts';
import { TaskIdParams } from './ingest-bucket-schemas.ts';

export async function registerIngestBucketGetRoute(app: FastifyInstance, services: Services): Promise<void> {
  app.get<{ Params: Static<typeof TaskIdParams> }>('/docsearch/ingestBucket/:id', {
    schema: {
      tags: ['buckets'], operationId: 'getBucketIngest',
      summary: 'Bucket ingest task status', params: TaskIdParams, response: { 200: { $ref: 'BucketIngestTask#' }, 404: ErrorBodySchema },
    },
  }, async (request) => services.buckets.get(request.project, request.params.id));
}
