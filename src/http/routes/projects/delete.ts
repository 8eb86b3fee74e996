// DELETE /v3/projects/{id} — delete a project: its keys stop working at once (401) and its namespace is
// purged. Repeating the call is safe (it re-runs the purge). Protected projects can be deleted only with a
// login session, not with an account key.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Services } from '../../../services.ts';
import { accountErrorResponses, DeleteProjectResponseSchema, ErrorRef, ProjectIdParamsSchema } from './schemas.ts';

export async function registerDeleteProjectRoute(app: FastifyInstance, services: Services): Promise<void> {
  app.withTypeProvider<TypeBoxTypeProvider>().delete('/projects/:id', {
    schema: {
      tags: ['projects'],
      operationId: 'deleteProject', summary: 'Delete a project, revoke its key and purge its namespace',
      params: ProjectIdParamsSchema,
      response: { 200: DeleteProjectResponseSchema, 404: ErrorRef, 503: ErrorRef, ...accountErrorResponses },
    },
  }, async (request) => services.projects.deleteProject(request.principal.accountId, request.params.id, request.principal.kind));
}
