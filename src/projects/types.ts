// Contracts of the accounts/keys/projects domain as the HTTP layer and other domains see it
// (DESIGN.md §6). Implemented by auth-service.ts and project-service.ts; bootstrap.ts and
// project-service.ts share the account and logger shapes through this file, not through each other.

export type PrincipalKind = 'session' | 'account_key' | 'project_key';

/** Who is calling, after the bearer token was verified. */
export interface Principal {
  kind: PrincipalKind;
  accountId: string;
  /** Set for project keys: the one project the key is bound to. */
  projectId?: string;
  userId?: string;
}

/** The project a /docsearch/* (or /jobs/*) request acts on. */
export interface ProjectContext {
  principal: Principal;
  projectId: string;
  accountId: string;
  /** LanceDB table name of the project's namespace; also reported as `namespace`. */
  namespace: string;
  product: 'docsearch' | 'altproduct';
}

export interface AuthService {
  /**
   * Verify `Authorization: Bearer <token>` (session JWT, `svc_acc_…` or `svc_prod_ds_…`).
   * @throws AppError unauthorized (401) when missing, malformed, unknown, revoked or expired.
   */
  authenticate(authorizationHeader: string | undefined): Promise<Principal>;
  /**
   * Resolve the project a request acts on and check access: project keys ignore/forbid a different
   * X-Project-ID; account-level credentials need X-Project-ID; protected projects refuse account keys.
   * Does NOT check the product (callers that need docsearch check `product`).
   * @throws AppError validation_failed (400) X-Project-ID missing with account credentials,
   *         project_access_denied (403) no access / protected, namespace_purged (410) deleted project.
   */
  resolveProject(principal: Principal, projectIdHeader: string | undefined): Promise<ProjectContext>;
}

/** Structural logger of the domain services (pino's Logger fits). */
export interface DomainLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** A new account with its admin user and its account key. */
export interface CreatedAccount {
  accountId: string;
  userId: string;
  /** Plaintext account API key (svc_acc_…), shown once. */
  accountKey: string;
}
