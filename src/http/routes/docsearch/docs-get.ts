// GET /docsearch/docs/{docId} — metadata of one document (404 outside the caller's namespace).
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../../services.ts';
import { DocIdParams } from '../../schemas/documents.ts';
import { ErrorBodySchema } from '../../schemas/common.ts';

export async function registerDocsGetRoute(app: FastifyInstance, services: Services): Promise<void> {
  app.get<{ Params: { docId: string } }>('/docsearch/docs/:docId', {
    schema: {
      tags: ['documents'], operationId: 'getDocument',
      summary: 'Describe one document', params: DocIdParams, response: { 200: { $ref: 'DocInfo#' }, 400: ErrorBodySchema, 404: ErrorBodySchema },
    },
  }, async (request) => services.documents.get(request.project.projectId, request.params.docId));
}
