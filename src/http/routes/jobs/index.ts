// Route tree of the generic job endpoints (served under /v3 and at the root, DESIGN.md §5).
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../../services.ts';
import { registerJobStatusRoute } from './job-status.ts';

export async function registerJobRoutes(app: FastifyInstance, services: Services): Promise<void> {
  await registerJobStatusRoute(app, services);
}
