// The "separate projects API" domain (DESIGN.md §6): accounts and their users, account and project API
// keys, projects with one namespace each, console login, and the bootstrap of a fresh install.
// Keys are returned in plaintext exactly once (at creation) and stored only as sha256. Deleting a
// project marks it purged and revokes its keys in one transaction (so the key answers 401 from that
// instant), then asks the data plane to drop the namespace through the injected `purgeNamespace`.
import crypto from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../storage/schema.ts';
import type { Config } from '../internal/config.ts';
import { nowIso } from '../storage/db.ts';
import { AppError } from '../internal/errors.ts';
import { generateKey, hashToken, displayPrefix, newNamespace, type Product } from './keys.ts';
import { hashPassword, verifyPassword } from './passwords.ts';
import type { SessionTokens } from './session-tokens.ts';
import type { CreatedAccount, DomainLogger, PrincipalKind } from './types.ts';
import { bootstrapInstall, isUniqueViolation, type BootstrapResult, type NewAccountRows } from './bootstrap.ts';

export type { CreatedAccount, DomainLogger };

/** Data-plane drop of a deleted project's namespace (index tables, blobs, document rows). Idempotent. */
export type PurgeNamespace = (namespace: string, projectId: string) => Promise<void>;

export interface ProjectServiceDeps {
  db: Kysely<Database>;
  config: Pick<Config, 'bootstrapAccountKey' | 'bootstrapEmail' | 'bootstrapPassword'>;
  sessions: SessionTokens;
  purgeNamespace: PurgeNamespace;
  logger?: DomainLogger;
}

/** Public view of a project (never contains a key). */
export interface ProjectView {
  id: string;
  name: string;
  product: Product;
  protected: boolean;
  namespace: string;
  created_at: string;
}

export interface CreatedProject extends ProjectView {
  /** Plaintext project API key; shown once, never retrievable again. */
  api_key: string;
}

export interface LoginResult {
  token: string;
  token_type: 'Bearer';
  /** Seconds until the session expires. */
  expires_in: number;
  account_id: string;
}

/** Longest project name, in characters: the bound of the route schema (http/routes/projects/schemas.ts), checked here for callers that bypass it. */
export const PROJECT_NAME_MAX = 128;
const noopLogger: DomainLogger = { info() {}, warn() {}, error() {} };

function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

export class ProjectService {
  private readonly db: Kysely<Database>;
  private readonly log: DomainLogger;

  constructor(private readonly deps: ProjectServiceDeps) {
    this.db = deps.db;
    this.log = deps.logger ?? noopLogger;
  }

  /**
   * Idempotently create the first account, its admin user (bootstrapEmail / bootstrapPassword, or a
   * generated password logged once) and an account key (bootstrapAccountKey when configured, else a
   * generated key logged once). A configured key is registered for the bootstrap account on every start
   * if missing; a configured password replaces a different stored one. Safe when several processes start
   * at once on PostgreSQL (the first commit wins, the others re-read).
   */
  async bootstrap(): Promise<BootstrapResult> {
    return bootstrapInstall(this.db, this.deps.config, this.log, (trx, input) => this.insertAccount(trx, input));
  }

  /**
   * Create an account with one user and one account key (admin tooling, tests, bootstrap).
   * @param input.accountKey register this exact `svc_acc_…` token instead of generating one
   * @throws AppError conflict (409) when the e-mail address is already taken
   */
  async createAccount(input: { name: string; email: string; password: string; accountKey?: string }): Promise<CreatedAccount> {
    const passwordHash = await hashPassword(input.password);
    try {
      return await this.db.transaction().execute((trx) => this.insertAccount(trx, { ...input, passwordHash }));
    } catch (err) {
      if (isUniqueViolation(err)) throw new AppError('conflict', 'A user with this e-mail address already exists.', { field: 'email' });
      throw err;
    }
  }

  /** Insert account + user + account key inside `trx` (the password is hashed before the transaction). */
  private async insertAccount(trx: Transaction<Database>, input: NewAccountRows): Promise<CreatedAccount> {
    const now = nowIso();
    const accountId = crypto.randomUUID();
    const userId = crypto.randomUUID();
    await trx.insertInto('accounts').values({ id: accountId, name: input.name, created_at: now }).execute();
    await trx.insertInto('users').values({
      id: userId, account_id: accountId, email: normaliseEmail(input.email),
      password_hash: input.passwordHash, created_at: now,
    }).execute();
    const key = input.accountKey
      ? { token: input.accountKey, hash: hashToken(input.accountKey), displayPrefix: displayPrefix(input.accountKey) }
      : generateKey('account');
    await trx.insertInto('api_keys').values({
      id: crypto.randomUUID(), account_id: accountId, project_id: null, kind: 'account',
      key_hash: key.hash, display_prefix: key.displayPrefix, created_at: now, revoked_at: null,
    }).execute();
    return { accountId, userId, accountKey: key.token };
  }

  /**
   * Create a project and its key (returned once).
   * @throws AppError validation_failed (400) bad name/product; project_name_taken (409) when an active
   *         project of the account already has this name
   */
  async createProject(accountId: string, input: { name: string; product: Product; protected?: boolean }): Promise<CreatedProject> {
    const name = input.name;
    if (typeof name !== 'string' || name.trim() === '' || name.length > PROJECT_NAME_MAX) {
      throw new AppError('validation_failed', `name must be 1..${PROJECT_NAME_MAX} characters and not blank.`, { field: 'body.name' });
    }
    if (input.product !== 'docsearch' && input.product !== 'altproduct') {
      throw new AppError('validation_failed', 'product must be "docsearch" or "altproduct".', { field: 'body.product' });
    }
    const now = nowIso();
    const project = {
      id: crypto.randomUUID(), account_id: accountId, name, product: input.product,
      protected: input.protected ? 1 : 0, namespace: newNamespace(), status: 'active' as const,
      created_at: now, deleted_at: null,
    };
    const key = generateKey('project', input.product);
    const taken = () => new AppError('project_name_taken', `A project named "${name}" already exists in this account.`, { field: 'body.name' });
    try {
      await this.db.transaction().execute(async (trx) => {
        const dup = await trx.selectFrom('projects').select('id')
          .where('account_id', '=', accountId).where('name', '=', name).where('status', '=', 'active')
          .executeTakeFirst();
        if (dup) throw taken();
        await trx.insertInto('projects').values(project).execute();
        await trx.insertInto('api_keys').values({
          id: crypto.randomUUID(), account_id: accountId, project_id: project.id, kind: 'project',
          key_hash: key.hash, display_prefix: key.displayPrefix, created_at: now, revoked_at: null,
        }).execute();
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw taken();
      throw err;
    }
    this.log.info({ projectId: project.id, accountId, product: project.product, key: key.displayPrefix }, 'project created');
    return { ...toView(project), api_key: key.token };
  }

  /** Active projects of an account, oldest first (no keys). */
  async listProjects(accountId: string): Promise<ProjectView[]> {
    const rows = await this.db.selectFrom('projects')
      .select(['id', 'name', 'product', 'protected', 'namespace', 'created_at'])
      .where('account_id', '=', accountId).where('status', '=', 'active')
      .orderBy('created_at').orderBy('id')
      .execute();
    return rows.map(toView);
  }

  /**
   * One active project by id (no key): what GET /v3/project shows the project a credential acts on.
   * @throws AppError project_not_found (404) when there is no active project with that id
   */
  async getProject(id: string): Promise<ProjectView> {
    const row = await this.db.selectFrom('projects')
      .select(['id', 'name', 'product', 'protected', 'namespace', 'created_at'])
      .where('id', '=', id).where('status', '=', 'active')
      .executeTakeFirst();
    if (!row) throw new AppError('project_not_found', `No project "${id}".`, { project_id: id });
    return toView(row);
  }

  /**
   * Delete a project: mark it purged and revoke its keys (one transaction), then drop its namespace.
   * Repeating the call on a purged project re-runs the (idempotent) namespace drop, so a failed purge
   * can be retried.
   * @param credential kind of credential the caller used; a protected project refuses account keys here
   *        too (a leaked account key must not be able to destroy a protected project's data)
   * @throws AppError project_not_found (404) when the account has no such project;
   *         project_access_denied (403) account key on a protected project;
   *         backend_unavailable (503, Retry-After) when the data-plane drop failed (retry the DELETE)
   */
  async deleteProject(accountId: string, id: string, credential: PrincipalKind = 'session'): Promise<{ id: string; deleted: true }> {
    const namespace = await this.db.transaction().execute(async (trx) => {
      const p = await trx.selectFrom('projects').select(['id', 'namespace', 'status', 'protected'])
        .where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
      if (!p) return undefined;
      if (Number(p.protected) === 1 && credential === 'account_key' && p.status === 'active') {
        throw new AppError('project_access_denied', 'This project is protected: account API keys cannot delete it; use a login session.', { protected: true });
      }
      if (p.status === 'active') {
        const now = nowIso();
        await trx.updateTable('projects').set({ status: 'purged', deleted_at: now }).where('id', '=', id).execute();
        await trx.updateTable('api_keys').set({ revoked_at: now })
          .where('project_id', '=', id).where('revoked_at', 'is', null).execute();
      }
      return p.namespace;
    });
    if (namespace === undefined) throw new AppError('project_not_found', `No project with id "${id}" in this account.`, { project_id: id });
    this.log.info({ projectId: id, accountId, namespace }, 'project deleted, keys revoked; purging namespace');
    try {
      await this.deps.purgeNamespace(namespace, id);
    } catch (err) {
      this.log.error({ err, projectId: id, namespace }, 'namespace purge failed');
      throw new AppError('backend_unavailable', 'The project was deleted and its keys revoked, but purging its data failed; retry the DELETE.', { project_id: id }, 5);
    }
    return { id, deleted: true };
  }

  /**
   * Console login: argon2id check of e-mail + password, then a 12 h session JWT.
   * @throws AppError invalid_credentials (401) for an unknown e-mail or a wrong password (same message)
   */
  async login(email: string, password: string): Promise<LoginResult> {
    const user = await this.db.selectFrom('users').select(['id', 'account_id', 'password_hash'])
      .where('email', '=', normaliseEmail(email)).executeTakeFirst();
    const ok = await verifyPassword(user?.password_hash ?? null, password);
    if (!user || !ok) throw new AppError('invalid_credentials', 'E-mail address or password is wrong.');
    const session = await this.deps.sessions.issue({ userId: user.id, accountId: user.account_id });
    return { token: session.token, token_type: 'Bearer', expires_in: session.expiresIn, account_id: user.account_id };
  }
}

function toView(r: { id: string; name: string; product: Product; protected: number; namespace: string; created_at: string }): ProjectView {
  return { id: r.id, name: r.name, product: r.product, protected: Number(r.protected) === 1, namespace: r.namespace, created_at: r.created_at };
}

export type { BootstrapResult };
