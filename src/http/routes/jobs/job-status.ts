// GET /jobs/{job_id}/status — the state of a job of the caller's project (another project's job is
// 404, so ids cannot be probed). Shape: docs/jobs.md.
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../../services.ts';
import { ErrorBodySchema } from '../../schemas/common.ts';
import { JobIdParams, JobStatusViewSchema } from './schemas.ts';

export async function registerJobStatusRoute(app: FastifyInstance, services: Services): Promise<void> {
  app.get<{ Params: { job_id: string } }>('/jobs/:job_id/status', {
    schema: {
      tags: ['jobs'], operationId: 'getJobStatus',
      summary: 'Job status', params: JobIdParams, response: { 200: JobStatusViewSchema, 404: ErrorBodySchema },
    },
  }, async (request) => services.jobs.status(request.project.projectId, request.params.job_id));
}
