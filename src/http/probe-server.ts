// A worker process serves no API, but an orchestrator still needs to probe it and Prometheus to scrape
// it: with DOCSEARCH_PROBE_PORT set, role worker listens there with only /healthz, /readyz and /metrics
// (docs/deployment.md "Health and readiness").
import Fastify, { type FastifyInstance } from 'fastify';
import type { Services } from '../services.ts';
import { registerHealthRoutes } from './routes/health.ts';
import { registerMetricsRoute } from './routes/metrics.ts';

/**
 * Build the probe-only server (not yet listening). Unknown paths are 404 with the usual error body.
 * @param services the container from app.ts
 */
export async function buildProbeServer(services: Services): Promise<FastifyInstance> {
  const app = Fastify({ logger: false });
  app.setNotFoundHandler((request, reply) => {
    void reply.status(404).send({ code: 'not_found', message: `No route for ${request.method} ${request.url} on the probe port.`, status: 404 });
  });
  await registerHealthRoutes(app, services);
  await registerMetricsRoute(app, services);
  return app;
}
