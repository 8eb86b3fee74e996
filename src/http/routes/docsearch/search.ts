// POST /docsearch/search — hybrid search over the project's namespace (spec "POST /docsearch/search").
// Validation comes from the TypeBox schema; the pipeline lives in search/search-service.ts.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Services } from '../../../services.ts';
import { ErrorBodySchema, ProjectHeaders } from '../../schemas/common.ts';
import { SearchBodySchema, SearchResultSchema } from '../../schemas/search.ts';

/** Error responses of the search endpoints, for the OpenAPI document. */
export const searchErrorResponses = {
  400: ErrorBodySchema,
  401: ErrorBodySchema,
  403: ErrorBodySchema,
  404: ErrorBodySchema,
  502: ErrorBodySchema,
  503: ErrorBodySchema,
} as const;

export async function registerSearchRoute(app: FastifyInstance, services: Services): Promise<void> {
  app.withTypeProvider<TypeBoxTypeProvider>().post('/docsearch/search', {
    schema: {
      operationId: 'search', summary: 'Hybrid search',
      description: 'Vector + BM25 search fused with RRF. Returns a prompt-ready context (format prompt_ready, default) or ranked hits (format json). See docs/search.md.',
      tags: ['search'],
      headers: ProjectHeaders,
      body: SearchBodySchema,
      response: { 200: SearchResultSchema, ...searchErrorResponses },
    },
  }, async (request) => {
    const { projectId, namespace } = request.project;
    return services.search.search({ projectId, namespace }, request.body, { inDoc: false });
  });
}
