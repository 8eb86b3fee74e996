// GET /docsearch/evaluations/{id} — one evaluation: status, progress and, once done, its report.
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../../services.ts';
import { ErrorBodySchema } from '../../schemas/common.ts';
import { EvaluationIdParams, EvaluationViewSchema } from '../../schemas/evaluations.ts';

export async function registerEvaluationsGetRoute(app: FastifyInstance, services: Services): Promise<void> {
  app.get<{ Params: { id: string } }>('/docsearch/evaluations/:id', {
    schema: {
      tags: ['evaluations'], operationId: 'getEvaluation', summary: 'An evaluation and its report',
      params: EvaluationIdParams, response: { 200: EvaluationViewSchema, 404: ErrorBodySchema },
    },
  }, async (request) => services.evaluations.get(request.project.projectId, request.params.id));
}
