// GET /jobs — extension: the project's ingest jobs, newest first, paged (docs/jobs.md). Lets a client that
// lost track of the jobs it started (a reloaded console tab) find them again with their state and progress.
import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import type { Services } from '../../../services.ts';
import { AppError } from '../../../internal/errors.ts';
import type { JobState } from '../../../jobs/job-list.ts';
import { ErrorBodySchema } from '../../schemas/common.ts';
import { JobListQuerySchema, JobListResponseSchema } from './schemas.ts';

export async function registerJobListRoute(app: FastifyInstance, services: Services): Promise<void> {
  app.get<{ Querystring: Static<typeof JobListQuerySchema> }>('/jobs', {
    schema: {
      tags: ['jobs'], operationId: 'listJobs',
      summary: 'List the project\'s ingest jobs (extension)', querystring: JobListQuerySchema,
      response: { 200: JobListResponseSchema, 400: ErrorBodySchema },
    },
  }, async (request) => {
    const limit = request.query.limit === undefined ? 20 : Number(request.query.limit);
    if (limit < 1 || limit > 100) throw new AppError('validation_failed', 'querystring.limit: must be between 1 and 100.', { field: 'querystring.limit' });
    const statuses = request.query.status ? [...new Set(request.query.status.split(','))] as JobState[] : undefined;
    return services.jobs.list(request.project.projectId, { limit, statuses, cursor: request.query.cursor });
  });
}
