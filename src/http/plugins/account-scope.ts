// Auth scope of the account-level management endpoints (/v3/projects…): the caller must present an
// account API key (svc_acc_…) or a session JWT from login. Project keys are bound to one project and
// cannot manage projects: 403. Routes registered inside this scope can rely on `request.principal`.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../internal/errors.ts';
import type { AuthService, Principal } from '../../projects/types.ts';
import { ACCOUNT_SCOPE_ERRORS, declareErrorResponses } from '../schemas/error-responses.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
  }
}

/**
 * Authenticate an account-level caller.
 * @throws AppError unauthorized (401) bad/missing token; project_access_denied (403) for a project key
 */
export async function resolveAccountPrincipal(auth: AuthService, request: FastifyRequest): Promise<Principal> {
  const principal = await auth.authenticate(request.headers.authorization);
  if (principal.kind === 'project_key') {
    throw new AppError('project_access_denied', 'Project API keys cannot manage projects; use an account API key or a login session.');
  }
  return principal;
}

/**
 * Encapsulated scope: every route registered by `routes` gets `request.principal` (account key or session).
 * Register it with `app.register(accountScope(...))` so the hook does not leak to sibling routes.
 */
export function accountScope(auth: AuthService, routes: (app: FastifyInstance) => Promise<void>) {
  return async (app: FastifyInstance) => {
    app.decorateRequest('principal', null as unknown as Principal);
    app.addHook('onRoute', declareErrorResponses(ACCOUNT_SCOPE_ERRORS));
    app.addHook('onRequest', async (request) => {
      request.principal = await resolveAccountPrincipal(auth, request);
    });
    await routes(app);
  };
}
