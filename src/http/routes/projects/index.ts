// Route tree of the account-level management API under /v3: console login (no auth) and the projects
// API (account API key or session; project keys get 403). One file per endpoint.
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../../services.ts';
import { accountScope } from '../../plugins/account-scope.ts';
import { registerAuthRoutes } from '../auth/index.ts';
import { ProjectSchema } from './schemas.ts';
import { registerCreateProjectRoute } from './create.ts';
import { registerListProjectsRoute } from './list.ts';
import { registerDeleteProjectRoute } from './delete.ts';

/** Mount POST /auth/login and the /projects endpoints on `app` (the /v3 scope). */
export async function registerProjectRoutes(app: FastifyInstance, services: Services): Promise<void> {
  await registerAuthRoutes(app, services);
  app.addSchema(ProjectSchema);
  await app.register(accountScope(services.auth, async (scoped) => {
    await registerCreateProjectRoute(scoped, services);
    await registerListProjectsRoute(scoped, services);
    await registerDeleteProjectRoute(scoped, services);
  }));
}
