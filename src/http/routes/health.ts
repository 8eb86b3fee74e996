// Liveness and readiness probes: /healthz answers while the process runs; /readyz checks that the
// control plane answers a query and reports the event-loop lag since the previous /readyz (issue 13).
import { sql } from 'kysely';
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.ts';
import { eventLoopLag } from '../../internal/event-loop.ts';

export async function registerHealthRoutes(app: FastifyInstance, services: Services): Promise<void> {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_req, reply) => {
    try {
      await sql`select 1`.execute(services.cp.db);
      return { status: 'ready', event_loop_lag: eventLoopLag({ reset: true }) };
    } catch {
      return reply.status(503).header('Retry-After', '5').send({ code: 'backend_unavailable', message: 'Control plane unreachable.', status: 503 });
    }
  });
}
