// Route tree of the project-scoped /docsearch/* surface (one file per endpoint).
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../../services.ts';
import { registerIngestRoute } from './ingest.ts';
import { registerSearchRoute } from './search.ts';
import { registerSearchInDocRoute } from './search-in-doc.ts';
import { registerDocsListRoute } from './docs-list.ts';
import { registerDocsGetRoute } from './docs-get.ts';
import { registerDocsDeleteRoute } from './docs-delete.ts';
import { registerAttributesRoute } from './attributes.ts';
import { registerIngestBucketRoutes } from './ingest-bucket-routes.ts';
import { registerEvaluationsCreateRoute } from './evaluations-create.ts';
import { registerEvaluationsGetRoute } from './evaluations-get.ts';
import { registerEvaluationsListRoute } from './evaluations-list.ts';
import { registerEvaluationsDeleteRoute } from './evaluations-delete.ts';
import { registerIndexGetRoute } from './index-get.ts';
import { registerReindexRoute } from './reindex.ts';

export async function registerDocsearchRoutes(app: FastifyInstance, services: Services): Promise<void> {
  await registerIngestRoute(app, services);
  await registerSearchRoute(app, services);
  await registerSearchInDocRoute(app, services);
  await registerDocsListRoute(app, services);
  await registerDocsGetRoute(app, services);
  await registerDocsDeleteRoute(app, services);
  await registerAttributesRoute(app, services);
  await registerIngestBucketRoutes(app, services);
  await registerEvaluationsCreateRoute(app, services);
  await registerEvaluationsGetRoute(app, services);
  await registerEvaluationsListRoute(app, services);
  await registerEvaluationsDeleteRoute(app, services);
  await registerIndexGetRoute(app, services);
  await registerReindexRoute(app, services);
}
