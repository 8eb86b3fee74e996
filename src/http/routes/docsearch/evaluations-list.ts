// GET /docsearch/evaluations — the project's evaluations, newest first, without their reports.
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../../services.ts';
import { ErrorBodySchema } from '../../schemas/common.ts';
import { EvaluationListQuery, EvaluationListSchema } from '../../schemas/evaluations.ts';

export async function registerEvaluationsListRoute(app: FastifyInstance, services: Services): Promise<void> {
  app.get<{ Querystring: { limit?: number } }>('/docsearch/evaluations', {
    schema: {
      tags: ['evaluations'], operationId: 'listEvaluations', summary: 'List evaluations',
      querystring: EvaluationListQuery, response: { 200: EvaluationListSchema, 400: ErrorBodySchema },
    },
  }, async (request) => ({ evaluations: await services.evaluations.list(request.project.projectId, request.query.limit) }));
}
