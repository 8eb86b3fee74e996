// DELETE /docsearch/docs/{docId} — removes the document's vectors and stored content.
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../../services.ts';
import { DeleteDocResponseSchema, DocIdParams } from '../../schemas/documents.ts';
import { ErrorBodySchema } from '../../schemas/common.ts';

export async function registerDocsDeleteRoute(app: FastifyInstance, services: Services): Promise<void> {
  app.delete<{ Params: { docId: string } }>('/docsearch/docs/:docId', {
    schema: {
      tags: ['documents'], operationId: 'deleteDocument',
      summary: 'Delete one document', params: DocIdParams, response: { 200: DeleteDocResponseSchema, 400: ErrorBodySchema, 404: ErrorBodySchema },
    },
  }, async (request) => services.documents.delete(request.project.projectId, request.project.namespace, request.params.docId));
}
