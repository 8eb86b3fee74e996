// Auth scope for every project-scoped endpoint (/docsearch/*, /jobs/*): verifies the bearer token,
// resolves the project (for /jobs/*, also from the job id when an account-level caller omits
// X-Project-ID: docs/compat.md), and requires product = docsearch (403 for an altproduct project).
// Routes registered inside this plugin can rely on `request.project`.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../internal/errors.ts';
import type { AuthService, Principal, ProjectContext } from '../../projects/types.ts';
import { declareErrorResponses, PROJECT_SCOPE_ERRORS } from '../schemas/error-responses.ts';
import { PROJECT_ID_HEADER } from '../schemas/common.ts';

declare module 'fastify' {
  interface FastifyRequest {
    project: ProjectContext;
  }
}

/**
 * Finds the project a request's own object names (a job id), for account-level callers that send no
 * X-Project-ID; undefined when the route has no such object. Throws the object's 404 when the caller's
 * account does not own it.
 */
export type ImpliedProject = (request: FastifyRequest, principal: Principal) => Promise<string | undefined>;

/** Resolve and authorise the project of a request. Throws AppError (401/403/404/410) on failure. */
export async function resolveProjectScope(auth: AuthService, request: FastifyRequest, requireDocsearch: boolean, implied?: ImpliedProject): Promise<ProjectContext> {
  const principal = await auth.authenticate(request.headers.authorization);
  const header = request.headers['x-project-id'];
  let projectId = (Array.isArray(header) ? header[0] : header)?.trim() || undefined;
  if (projectId === undefined && principal.kind !== 'project_key' && implied) projectId = await implied(request, principal);
  const project = await auth.resolveProject(principal, projectId);
  if (requireDocsearch && project.product !== 'docsearch') {
    throw new AppError('product_not_enabled', 'This project\'s product is not docsearch; the docsearch endpoints (documents, search, jobs) are not available to it.');
  }
  return project;
}

/**
 * Encapsulated scope: every route registered by `routes` gets `request.project`.
 * @param opts.requireDocsearch true to refuse projects of another product (403 product_not_enabled).
 * @param opts.impliedProject   job endpoints: the job's project when an account-level caller omits X-Project-ID.
 */
export function projectScope(auth: AuthService, opts: { requireDocsearch: boolean; impliedProject?: ImpliedProject }, routes: (app: FastifyInstance) => Promise<void>) {
  return async (app: FastifyInstance) => {
    app.decorateRequest('project', null as unknown as ProjectContext);
    app.addHook('onRoute', declareErrorResponses(PROJECT_SCOPE_ERRORS, { headers: PROJECT_ID_HEADER }));
    app.addHook('onRequest', async (request) => {
      request.project = await resolveProjectScope(auth, request, opts.requireDocsearch, opts.impliedProject);
    });
    await routes(app);
  };
}
