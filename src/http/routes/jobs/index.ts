// Route tree of the generic job endpoints (served under /v3 and at the root, DESIGN.md §5), and the
// webhook-secret endpoints (under /v3 only).
import type { FastifyInstance } from 'fastify';
import type { ImpliedProject } from '../../plugins/docsearch-scope.ts';
import type { Services } from '../../../services.ts';
import { registerJobStatusRoute } from './job-status.ts';
import { registerJobListRoute } from './job-list.ts';
import { registerJobDeleteRoute } from './job-delete.ts';
import { registerJobStreamRoute } from './job-stream.ts';
import { registerWebhookSecretRoutes } from './webhook-secret.ts';

export async function registerJobRoutes(app: FastifyInstance, services: Services): Promise<void> {
  // The root copies are aliases of the /v3 ones: only the /v3 copies are in the OpenAPI document, so
  // each operationId names one operation.
  if (app.prefix !== '/v3') app.addHook('onRoute', (route) => { route.schema = { ...route.schema, hide: true }; });
  await registerJobListRoute(app, services);
  await registerJobStatusRoute(app, services);
  await registerJobDeleteRoute(app, services);
  await registerJobStreamRoute(app, services);
  if (app.prefix === '/v3') await registerWebhookSecretRoutes(app, services);
}

/**
 * The project of the job named by the route's `job_id`, for an account-level caller without
 * X-Project-ID (docs/compat.md); undefined on routes without a job id (webhook secrets keep needing it).
 * @throws AppError job_not_found (404) when the caller's account does not own the job
 */
export function jobProject(services: Services): ImpliedProject {
  return async (request, principal) => {
    const jobId = (request.params as { job_id?: string } | undefined)?.job_id;
    return jobId ? services.jobs.projectOf(principal.accountId, jobId) : undefined;
  };
}
