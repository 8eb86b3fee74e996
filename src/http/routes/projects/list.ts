// GET /v3/projects — the caller's active projects (never their keys).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Services } from '../../../services.ts';
import { accountErrorResponses, ListProjectsResponseSchema } from './schemas.ts';

export async function registerListProjectsRoute(app: FastifyInstance, services: Services): Promise<void> {
  app.withTypeProvider<TypeBoxTypeProvider>().get('/projects', {
    schema: {
      tags: ['projects'],
      operationId: 'listProjects', summary: 'List the account\'s projects',
      response: { 200: ListProjectsResponseSchema, ...accountErrorResponses },
    },
  }, async (request) => ({ projects: await services.projects.listProjects(request.principal.accountId) }));
}
