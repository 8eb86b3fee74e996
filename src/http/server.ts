// Builds the Fastify application: OpenAPI generation from the route schemas, the one error handler,
// request ids, and the route tree under /v3 (spec: `{base_url}` ends in `/v3`). Each endpoint lives in its
// own file under routes/ and exports `register(app, services)`.
import Fastify, { type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import crypto from 'node:crypto';
import type { Services } from '../services.ts';
import { clientErrorHandler, errorHandler, frameworkErrorHandler, refuseNulInUrl } from './error-handler.ts';
import { installRateLimits } from './plugins/rate-limits.ts';
import { DEFAULT_ADMISSION } from '../internal/config.ts';
import { projectScope } from './plugins/docsearch-scope.ts';
import { ErrorBodySchema } from './schemas/common.ts';
import { declareErrorResponses, EVERY_ROUTE_ERRORS } from './schemas/error-responses.ts';
import { registerHealthRoutes } from './routes/health.ts';
import { registerOpenApiRoute } from './routes/openapi.ts';
import { registerApiDocsRoute } from './routes/api-docs.ts';
import { registerMcpRoute } from './routes/mcp.ts';
import { registerMetricsRoute } from './routes/metrics.ts';
import { registerProjectRoutes } from './routes/projects/index.ts';
import { registerCurrentProjectRoute } from './routes/projects/current.ts';
import { registerDocsearchRoutes } from './routes/docsearch/index.ts';
import { documentIngestBody } from './routes/docsearch/ingest.ts';
import { jobProject, registerJobRoutes } from './routes/jobs/index.ts';
import { registerConsoleRoutes } from './routes/console.ts';

export type App = FastifyInstance;

/**
 * Create the HTTP server (not yet listening).
 * @param services the container from app.ts
 * @param opts.logger pino options or false (tests)
 */
export async function buildHttpServer(services: Services, opts: { logger?: boolean | object } = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: opts.logger ?? { level: services.config.logLevel },
    genReqId: (req) => (req.headers['x-request-id'] as string | undefined)?.slice(0, 64) || crypto.randomUUID(),
    requestIdHeader: false,
    bodyLimit: 1024 * 1024,
    // Node's default (16 KiB for all headers) is below the spec's own header limits: X-Unencrypted-Strings
    // up to 16384 characters plus X-Attributes and X-Attribute-Schema up to 2048 each.
    http: { maxHeaderSize: 64 * 1024 },
    // Path parameters: document ids may be 256 characters (spec), percent-encoded up to three times that.
    // Longer ones get 414 uri_too_long; both router and parser errors use the one error body.
    routerOptions: { maxParamLength: 1024 },
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, allErrors: false } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler((request, reply) => {
    void reply.status(404).send({ code: 'not_found', message: `No route for ${request.method} ${request.url}.`, status: 404 });
  });
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  // Latency by route pattern (not the raw URL: ids would explode the label set); 404s share one label.
  app.addHook('onResponse', async (request, reply) => {
    services.metrics.observeHttp(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
  });
  app.addSchema(ErrorBodySchema);
  app.addHook('onRequest', refuseNulInUrl);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'docsearch', version: '3.0.0', description: 'Document ingestion and hybrid retrieval (docsearch v3 interface).' },
      servers: [{ url: '/' }],
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
    // Shared schemas become components named by their $id (ErrorBody, DocInfo, …), not def-N, so the
    // SDK's generated types can name them.
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transformObject: (docs) => documentIngestBody('openapiObject' in docs ? docs.openapiObject : docs.swaggerObject),
  });

  await installRateLimits(app, services.config.admission ?? DEFAULT_ADMISSION, services.rateCounters);
  await registerHealthRoutes(app, services);
  await registerApiDocsRoute(app);
  await registerMcpRoute(app, services);
  await registerMetricsRoute(app, services);
  await registerConsoleRoutes(app);
  // A job id names its project, so account-level callers may omit X-Project-ID there (docs/compat.md).
  // Jobs and webhook secrets belong to docsearch projects alone: a caller of an altproduct project gets
  // 403, as on /docsearch/* (spec "Authentication").
  const jobScope = { requireDocsearch: true, impliedProject: jobProject(services) };
  await app.register(async (v3) => {
    v3.addHook('onRoute', declareErrorResponses(EVERY_ROUTE_ERRORS));
    await registerOpenApiRoute(v3);
    await registerProjectRoutes(v3, services);
    await v3.register(projectScope(services.auth, { requireDocsearch: true }, async (scoped) => {
      await registerDocsearchRoutes(scoped, services);
    }));
    await v3.register(projectScope(services.auth, { requireDocsearch: false }, async (scoped) => {
      await registerCurrentProjectRoute(scoped, services);
    }));
    await v3.register(projectScope(services.auth, jobScope, async (scoped) => {
      await registerJobRoutes(scoped, services);
    }));
  }, { prefix: '/v3' });
  // Clients of the modelled product address the status API at the root too (DESIGN.md §5).
  await app.register(projectScope(services.auth, jobScope, async (scoped) => {
    await registerJobRoutes(scoped, services);
  }));
  return app;
}
