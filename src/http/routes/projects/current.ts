// GET /v3/project — extension: the project the credential acts on (a project key's own project, or the
// X-Project-ID of an account key or login session), so a client holding only a project key can show the
// project's name instead of its namespace. Any product: it is not a /docsearch/* endpoint. `index` says
// whether the namespace's index was built by the running embedder, analyser and table format (the full
// description is GET /docsearch/index, docs/reindex.md).
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../../services.ts';
import { ErrorBodySchema } from '../../schemas/common.ts';
import { ProjectSchema } from './schemas.ts';

export async function registerCurrentProjectRoute(app: FastifyInstance, services: Services): Promise<void> {
  app.get('/project', {
    schema: {
      tags: ['projects'], operationId: 'getCurrentProject',
      summary: 'The project this credential acts on (extension)',
      response: { 200: Type.Ref(ProjectSchema), 404: Type.Ref(ErrorBodySchema) },
    },
  }, async (request) => {
    const project = await services.projects.getProject(request.project.projectId);
    const { generation, needs_reindex, reasons } = await services.indexBuilds.describe(project.namespace);
    return { ...project, index: { generation, needs_reindex, reasons } };
  });
}
