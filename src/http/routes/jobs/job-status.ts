// GET /jobs/{job_id}/status — the state of an ingest job of the caller's project (another project's
// job is 404, so ids cannot be probed).
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../../services.ts';
import { JobStatusResponseSchema } from '../../schemas/documents.ts';
import { ErrorBodySchema } from '../../schemas/common.ts';
import { AppError } from '../../../internal/errors.ts';
import { toPublicJob } from '../../../ingest/ingest-service.ts';

export async function registerJobStatusRoute(app: FastifyInstance, services: Services): Promise<void> {
  app.get<{ Params: { job_id: string } }>('/jobs/:job_id/status', {
    schema: { summary: 'Job status', params: Type.Object({ job_id: Type.String() }), response: { 200: JobStatusResponseSchema, 404: ErrorBodySchema } },
  }, async (request) => {
    const job = await services.queue.get(request.params.job_id);
    if (!job || job.project_id !== request.project.projectId) {
      throw new AppError('job_not_found', `No job "${request.params.job_id}" in this project.`);
    }
    const terminal = job.status === 'done' || job.status === 'failed';
    return {
      job_id: job.id, status: job.status, code: job.code, is_terminal: terminal,
      ...(job.status === 'failed' ? { error: { code: job.error_code ?? 'internal_error', message: job.error_message ?? '' } } : {}),
      ...(job.status === 'done' && job.doc_id ? { doc_id: job.doc_id } : {}),
      attempts: job.attempts, created_at: job.created_at, updated_at: job.updated_at,
      started_at: job.started_at, finished_at: job.finished_at, properties: toPublicJob(job).properties,
    };
  });
}
