// GET /docsearch/index — the namespace's index described: its generation and size, what built it
// (embedder, analyser, table format) against what the service runs, whether it needs a reindex, and the
// reindex running now (docs/reindex.md).
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../../services.ts';
import { ErrorBodySchema, ProjectHeaders } from '../../schemas/common.ts';
import { IndexDescriptionSchema } from '../../schemas/reindex.ts';

export async function registerIndexGetRoute(app: FastifyInstance, services: Services): Promise<void> {
  app.get('/docsearch/index', {
    schema: {
      tags: ['index'], operationId: 'describeIndex', summary: 'The namespace\'s index and whether it needs a reindex',
      description: 'A namespace built by another embedder, analyser or table format than the running one still answers searches and is reported here as needing a reindex (POST /docsearch/reindex).',
      headers: ProjectHeaders,
      response: { 200: IndexDescriptionSchema, 503: ErrorBodySchema },
    },
  }, async (request) => services.reindex.describe(request.project));
}
