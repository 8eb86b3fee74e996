// Auth scope for every project-scoped endpoint (/docsearch/*, /jobs/*): verifies the bearer token,
// resolves the project, and (for /docsearch/*) requires product = docsearch. Routes registered inside
// this plugin can rely on `request.project`.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../internal/errors.ts';
import type { AuthService, ProjectContext } from '../../projects/types.ts';

declare module 'fastify' {
  interface FastifyRequest {
    project: ProjectContext;
  }
}

/** Resolve and authorise the project of a request. Throws AppError (401/403/410) on failure. */
export async function resolveProjectScope(auth: AuthService, request: FastifyRequest, requireDocsearch: boolean): Promise<ProjectContext> {
  const principal = await auth.authenticate(request.headers.authorization);
  const header = request.headers['x-project-id'];
  const project = await auth.resolveProject(principal, Array.isArray(header) ? header[0] : header);
  if (requireDocsearch && project.product !== 'docsearch') {
    throw new AppError('product_not_enabled', 'This project\'s product is not docsearch; /docsearch endpoints are not available to it.');
  }
  return project;
}

/**
 * Encapsulated scope: every route registered by `routes` gets `request.project`.
 * @param opts.requireDocsearch true for /docsearch/*; false for generic job endpoints.
 */
export function projectScope(auth: AuthService, opts: { requireDocsearch: boolean }, routes: (app: FastifyInstance) => Promise<void>) {
  return async (app: FastifyInstance) => {
    app.decorateRequest('project', null as unknown as ProjectContext);
    app.addHook('onRequest', async (request) => {
      request.project = await resolveProjectScope(auth, request, opts.requireDocsearch);
    });
    await routes(app);
  };
}

