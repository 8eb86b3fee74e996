// POST /v3/projects — create a project and its API key; the key is in this response only (DESIGN.md §6).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Services } from '../../../services.ts';
import { accountErrorResponses, CreatedProjectSchema, CreateProjectBodySchema, ErrorRef } from './schemas.ts';

export async function registerCreateProjectRoute(app: FastifyInstance, services: Services): Promise<void> {
  app.withTypeProvider<TypeBoxTypeProvider>().post('/projects', {
    schema: {
      tags: ['projects'],
      operationId: 'createProject', summary: 'Create a project (returns its API key once)',
      body: CreateProjectBodySchema,
      response: { 201: CreatedProjectSchema, 400: ErrorRef, 409: ErrorRef, ...accountErrorResponses },
    },
  }, async (request, reply) => {
    const created = await services.projects.createProject(request.principal.accountId, {
      name: request.body.name, product: request.body.product, protected: request.body.protected ?? false,
    });
    reply.header('cache-control', 'no-store');
    return reply.status(201).send(created);
  });
}
