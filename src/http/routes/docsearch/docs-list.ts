// GET /docsearch/docs — every visible document of the caller's namespace (spec ListDocsResponse).
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../../services.ts';
import { DocInfoSchema, ListDocsResponseSchema } from '../../schemas/documents.ts';
import { authErrorResponses } from '../../schemas/common.ts';

export async function registerDocsListRoute(app: FastifyInstance, services: Services): Promise<void> {
  app.addSchema(DocInfoSchema);
  app.get('/docsearch/docs', {
    schema: { tags: ['documents'], operationId: 'listDocuments', summary: 'List documents', response: { 200: ListDocsResponseSchema, ...authErrorResponses } },
  }, async (request) => {
    const documents = await services.documents.list(request.project.projectId);
    return { namespace: request.project.namespace, total_documents: documents.length, documents };
  });
}
