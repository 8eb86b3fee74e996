// DELETE /jobs/{job_id} — cancels a job that has not finished (it ends failed with error code
// job_cancelled and its partial data is removed) or deletes the record of a finished one (a document it
// created stays). Semantics: docs/jobs.md.
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../../services.ts';
import { ErrorBodySchema } from '../../schemas/common.ts';
import { DeleteJobResponseSchema, JobIdParams } from './schemas.ts';

export async function registerJobDeleteRoute(app: FastifyInstance, services: Services): Promise<void> {
  app.delete<{ Params: { job_id: string } }>('/jobs/:job_id', {
    schema: {
      tags: ['jobs'], operationId: 'deleteJob', summary: 'Cancel an unfinished job, or delete the record of a finished one',
      params: JobIdParams, response: { 200: DeleteJobResponseSchema, 404: ErrorBodySchema },
    },
  }, async (request) => services.jobs.delete(request.project.projectId, request.params.job_id));
}
