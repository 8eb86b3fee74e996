// POST /docsearch/evaluations — evaluate the project's search on the caller's labelled questions
// (docs/evaluations.md). The body is validated here (TypeBox; up to 1,000 cases and 4 variants); the run
// is an asynchronous job whose id is the evaluation's, so the job endpoints follow and cancel it.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Services } from '../../../services.ts';
import { ErrorBodySchema, ProjectHeaders } from '../../schemas/common.ts';
import { CreateEvaluationBodySchema, EvaluationViewSchema } from '../../schemas/evaluations.ts';

/** Largest request body: 1,000 cases with long questions and answers (the service default is 1 MiB). */
const BODY_LIMIT = 16 * 1024 * 1024;

export async function registerEvaluationsCreateRoute(app: FastifyInstance, services: Services): Promise<void> {
  app.withTypeProvider<TypeBoxTypeProvider>().post('/docsearch/evaluations', {
    bodyLimit: BODY_LIMIT,
    schema: {
      operationId: 'createEvaluation', summary: 'Evaluate search on your own questions',
      description: 'Runs each case through the default search (and each variant) as a job; GET /docsearch/evaluations/{id} returns the report. One evaluation pending or running per project (409 evaluation_running). Its searches are not billed and do not count against the search rate limit.',
      tags: ['evaluations'],
      headers: ProjectHeaders,
      body: CreateEvaluationBodySchema,
      response: { 202: EvaluationViewSchema, 400: ErrorBodySchema, 409: ErrorBodySchema, 413: ErrorBodySchema, 429: ErrorBodySchema },
    },
  }, async (request, reply) => {
    const { projectId, namespace } = request.project;
    const view = await services.evaluations.create({ projectId, namespace }, request.body);
    return reply.status(202).send(view);
  });
}
