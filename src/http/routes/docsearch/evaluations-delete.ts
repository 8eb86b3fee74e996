// DELETE /docsearch/evaluations/{id} — delete an evaluation and its report (a pending or running one is
// cancelled first).
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../../services.ts';
import { ErrorBodySchema } from '../../schemas/common.ts';
import { DeleteEvaluationResponseSchema, EvaluationIdParams } from '../../schemas/evaluations.ts';

export async function registerEvaluationsDeleteRoute(app: FastifyInstance, services: Services): Promise<void> {
  app.delete<{ Params: { id: string } }>('/docsearch/evaluations/:id', {
    schema: {
      tags: ['evaluations'], operationId: 'deleteEvaluation', summary: 'Delete an evaluation',
      params: EvaluationIdParams, response: { 200: DeleteEvaluationResponseSchema, 404: ErrorBodySchema },
    },
  }, async (request) => services.evaluations.delete(request.project.projectId, request.params.id));
}
