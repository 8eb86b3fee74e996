// Wiring of the accounts/keys/projects domain for the service container (app.ts): one SessionTokens
// shared by authentication (verify) and login (issue), the AuthService and the ProjectService.
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.ts';
import type { Config } from '../internal/config.ts';
import { DbAuthService } from './auth-service.ts';
import { ProjectService, type DomainLogger, type PurgeNamespace } from './project-service.ts';
import { SessionTokens } from './session-tokens.ts';

export interface ProjectDomain {
  auth: DbAuthService;
  projects: ProjectService;
  sessions: SessionTokens;
}

/**
 * Build the domain. Call `projects.bootstrap()` once at start-up afterwards.
 * @param deps.purgeNamespace data-plane drop of a deleted project's namespace (index + blobs + documents)
 */
export function createProjectDomain(deps: {
  db: Kysely<Database>;
  config: Pick<Config, 'serverSecret' | 'bootstrapAccountKey' | 'bootstrapEmail' | 'bootstrapPassword'>;
  purgeNamespace: PurgeNamespace;
  logger?: DomainLogger;
}): ProjectDomain {
  const sessions = new SessionTokens(deps.db, deps.config.serverSecret);
  const auth = new DbAuthService(deps.db, sessions);
  const projects = new ProjectService({ db: deps.db, config: deps.config, sessions, purgeNamespace: deps.purgeNamespace, logger: deps.logger });
  return { auth, projects, sessions };
}

export { DbAuthService, ProjectService, SessionTokens };
export type { DomainLogger, PurgeNamespace };
