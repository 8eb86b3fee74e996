// GET /v3/docs — the API reference UI (Swagger UI) for the OpenAPI document that @fastify/swagger
// builds from the route schemas. Every asset is served from the swagger-ui-dist files inside the
// package (no CDN), so the page works on an offline host.
import type { FastifyInstance } from 'fastify';
import swaggerUi from '@fastify/swagger-ui';

/** Mount the reference UI at `${prefix}/docs` (its own JSON copy of the document at `${prefix}/docs/json`). */
export async function registerApiDocsRoute(app: FastifyInstance): Promise<void> {
  await app.register(swaggerUi, {
    routePrefix: '/v3/docs',
    uiConfig: { docExpansion: 'list', deepLinking: true, displayOperationId: true, tryItOutEnabled: false },
    staticCSP: true,
  });
}
