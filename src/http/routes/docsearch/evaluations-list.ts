// GET /docsearch/evaluations — the project's evaluations, newest first, without their reports.
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../../services.ts';
import { AppError } from '../../../internal/errors.ts';
import { ErrorBodySchema } from '../../schemas/common.ts';
import { EvaluationListQuery, EvaluationListSchema } from '../../schemas/evaluations.ts';

export async function registerEvaluationsListRoute(app: FastifyInstance, services: Services): Promise<void> {
  app.get<{ Querystring: { limit?: string } }>('/docsearch/evaluations', {
    schema: {
      tags: ['evaluations'], operationId: 'listEvaluations', summary: 'List evaluations',
      querystring: EvaluationListQuery, response: { 200: EvaluationListSchema, 400: ErrorBodySchema },
    },
  }, async (request) => {
    const limit = request.query.limit === undefined ? 50 : Number(request.query.limit);
    if (limit < 1 || limit > 100) throw new AppError('validation_failed', 'querystring.limit: must be between 1 and 100.', { field: 'querystring.limit' });
    return { evaluations: await services.evaluations.list(request.project.projectId, limit) };
  });
}
