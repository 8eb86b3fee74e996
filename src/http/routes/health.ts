// Liveness and readiness probes: /healthz answers while the process runs; /readyz probes each dependency
// of this process's role — control plane, blob store, index (src/internal/readiness.ts) — and reports
// the event-loop lag since the previous /readyz and the progress of start-up recovery (which readiness
// never waits for) and whether every namespace's index was built by the running embedder, analyser and table
// format (a namespace built otherwise still answers: reported, never a failure). Not ready is 503 backend_unavailable with the per-dependency checks in `details`.
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.ts';
import { eventLoopLag } from '../../internal/event-loop.ts';
import { checkReadiness } from '../../internal/readiness.ts';
import { indexLocationOptions } from '../../storage/open-storage.ts';

export async function registerHealthRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const indexLocation = indexLocationOptions(services.config).uri;
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_req, reply) => {
    const { cp, blobs, index, config } = services;
    const report = await checkReadiness({ role: config.role, cp, blobs, index, indexLocation });
    const event_loop_lag = eventLoopLag({ reset: true });
    // Reported, never waited for: nothing recovery does is visible to search (documents/startup-recovery.ts).
    const recovery = services.recovery?.status();
    const index_builds = await services.indexBuilds.report().catch(() => undefined);
    if (report.ready) return { status: 'ready', role: report.role, checks: report.checks, event_loop_lag, ...(recovery ? { recovery } : {}), ...(index_builds ? { index_builds } : {}) };
    const failed = Object.entries(report.checks).filter(([, c]) => c.status === 'failed');
    const message = `Not ready: ${failed.map(([name, c]) => `${name} unreachable (${c.error})`).join('; ')}.`;
    return reply.status(503).header('Retry-After', '5').send({
      code: 'backend_unavailable', message, status: 503, details: { role: report.role, checks: report.checks },
    });
  });
}
