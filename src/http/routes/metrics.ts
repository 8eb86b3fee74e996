// GET /metrics — Prometheus exposition of this process's metrics (src/internal/metrics.ts). Like
// /healthz it needs no key: it carries no tenant data (routes are patterns, no ids or project names);
// restrict it at the network edge if the scrape port is public.
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.ts';

export async function registerMetricsRoute(app: FastifyInstance, services: Services): Promise<void> {
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    const { contentType, body } = await services.metrics.render();
    return reply.header('content-type', contentType).header('cache-control', 'no-store').send(body);
  });
}
