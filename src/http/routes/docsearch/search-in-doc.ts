// POST /docsearch/searchInDoc — the same search restricted to one required document (spec
// "POST /docsearch/searchInDoc"): `query` and a non-empty `doc_filter` are required; 404 when the
// document is not visible in the project's namespace.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Services } from '../../../services.ts';
import { ProjectHeaders } from '../../schemas/common.ts';
import { SearchInDocBodySchema, SearchResultSchema } from '../../schemas/search.ts';
import { searchErrorResponses } from './search.ts';

export async function registerSearchInDocRoute(app: FastifyInstance, services: Services): Promise<void> {
  app.withTypeProvider<TypeBoxTypeProvider>().post('/docsearch/searchInDoc', {
    schema: {
      operationId: 'searchInDoc', summary: 'Search within one document',
      description: 'Same body and response as /docsearch/search; `doc_filter` is required and must name a document of the project.',
      tags: ['search'],
      headers: ProjectHeaders,
      body: SearchInDocBodySchema,
      response: { 200: SearchResultSchema, ...searchErrorResponses },
    },
  }, async (request) => {
    const { projectId, namespace } = request.project;
    return services.search.search({ projectId, namespace }, request.body, { inDoc: true });
  });
}
