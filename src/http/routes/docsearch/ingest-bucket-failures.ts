// GET /docsearch/ingestBucket/{id}/failures?limit=&cursor= — per-file failures, by key, paged with an
// opaque cursor (next_cursor is null on the last page).
import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import type { Services } from '../../../services.ts';
import { AppError } from '../../../internal/errors.ts';
import { ErrorBodySchema } from '../../schemas/common.ts';
import { FailuresPageSchema, FailuresQuery, TaskIdParams } from './ingest-bucket-schemas.ts';

export async function registerIngestBucketFailuresRoute(app: FastifyInstance, services: Services): Promise<void> {
  app.get<{ Params: Static<typeof TaskIdParams>; Querystring: Static<typeof FailuresQuery> }>('/docsearch/ingestBucket/:id/failures', {
    schema: {
      tags: ['buckets'], operationId: 'listBucketIngestFailures',
      summary: 'List per-file failures of a bucket ingest task', params: TaskIdParams, querystring: FailuresQuery, response: { 200: FailuresPageSchema, 400: ErrorBodySchema, 404: ErrorBodySchema },
    },
  }, async (request) => {
    const limit = request.query.limit === undefined ? 100 : Number(request.query.limit);
    if (limit < 1 || limit > 1000) throw new AppError('validation_failed', 'limit must be between 1 and 1000.', { field: 'querystring.limit' });
    return services.buckets.failures(request.project, request.params.id, limit, request.query.cursor);
  });
}
