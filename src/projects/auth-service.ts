// Bearer authentication and project resolution for every authenticated endpoint (spec "Authentication",
// DESIGN.md §6). Implements the AuthService contract of types.ts against the control plane:
//   - `svc_…` keys are looked up by their sha256 (unique index), then re-compared in constant time;
//     a revoked key (its project was deleted) is as unknown as a never-issued one: 401.
//   - anything shaped like a JWT is verified as a session token (HS256, 12 h) and its user must exist.
//   - resolveProject applies the access rules; ids of other accounts' projects and non-existent ids
//     both give 403, so project ids cannot be probed.
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.ts';
import { AppError } from '../internal/errors.ts';
import { classifyToken, hashesEqual, hashToken } from './keys.ts';
import type { SessionTokens } from './session-tokens.ts';
import type { AuthService, Principal, ProjectContext } from './types.ts';

/** Longest Authorization header value considered (larger ones are rejected without parsing). */
const MAX_AUTH_HEADER = 8192;

/**
 * Extract the token of `Authorization: Bearer <token>` (scheme case-insensitive, RFC 7235).
 * @throws AppError unauthorized (401) when the header is missing, not Bearer, or empty
 */
export function parseBearer(header: string | undefined): string {
  if (header === undefined || header.trim() === '') {
    throw new AppError('unauthorized', 'Missing Authorization header; send "Authorization: Bearer <token>".');
  }
  if (header.length > MAX_AUTH_HEADER) throw new AppError('unauthorized', 'The Authorization header is too long.');
  const m = /^\s*Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m) throw new AppError('unauthorized', 'The Authorization header must use the Bearer scheme: "Bearer <token>".');
  return m[1];
}

const unknownKey = () => new AppError('unauthorized', 'The API key is not valid (unknown, revoked, or its project was deleted).');

/** AuthService over the control-plane database. */
export class DbAuthService implements AuthService {
  constructor(private readonly db: Kysely<Database>, private readonly sessions: SessionTokens) {}

  /** See AuthService.authenticate. */
  async authenticate(authorizationHeader: string | undefined): Promise<Principal> {
    const token = parseBearer(authorizationHeader);
    const cls = classifyToken(token);
    if (cls === 'unknown') throw new AppError('unauthorized', 'The bearer token is not a docsearch API key or session token.');
    if (cls === 'jwt') return this.authenticateSession(token);

    const hash = hashToken(token);
    const row = await this.db.selectFrom('api_keys')
      .select(['id', 'account_id', 'project_id', 'kind', 'key_hash', 'revoked_at'])
      .where('key_hash', '=', hash)
      .executeTakeFirst();
    if (!row || !hashesEqual(row.key_hash, hash) || row.revoked_at !== null) throw unknownKey();
    const expectedKind = cls === 'account' ? 'account' : 'project';
    if (row.kind !== expectedKind || (row.kind === 'project' && !row.project_id)) throw unknownKey();
    return row.kind === 'account'
      ? { kind: 'account_key', accountId: row.account_id }
      : { kind: 'project_key', accountId: row.account_id, projectId: row.project_id! };
  }

  private async authenticateSession(token: string): Promise<Principal> {
    const claims = await this.sessions.verify(token);
    const user = await this.db.selectFrom('users').select(['id', 'account_id'])
      .where('id', '=', claims.userId).executeTakeFirst();
    if (!user || user.account_id !== claims.accountId) {
      throw new AppError('unauthorized', 'The session token refers to a user that no longer exists.');
    }
    return { kind: 'session', accountId: user.account_id, userId: user.id };
  }

  /** See AuthService.resolveProject. */
  async resolveProject(principal: Principal, projectIdHeader: string | undefined): Promise<ProjectContext> {
    const requested = projectIdHeader?.trim() || undefined;

    if (principal.kind === 'project_key') {
      const projectId = principal.projectId!;
      if (requested !== undefined && requested !== projectId) {
        throw new AppError('project_access_denied', 'This project API key belongs to a different project than X-Project-ID names.', { header: 'X-Project-ID' });
      }
      const p = await this.loadProject(projectId);
      // Deleting a project revokes its keys in the same transaction; this only catches a delete that
      // committed between authenticate() and here.
      if (!p || p.status !== 'active' || p.account_id !== principal.accountId) throw unknownKey();
      return toContext(principal, p);
    }

    if (requested === undefined) {
      throw new AppError('validation_failed', 'X-Project-ID header is required with an account API key or a session token.', { header: 'X-Project-ID', field: 'headers.x-project-id' });
    }
    const p = await this.loadProject(requested);
    if (!p || p.account_id !== principal.accountId) {
      throw new AppError('project_access_denied', 'The credentials have no access to the project named by X-Project-ID.', { header: 'X-Project-ID' });
    }
    if (p.status === 'purged') {
      throw new AppError('namespace_purged', 'The project was deleted and its namespace purged.', { project_id: p.id });
    }
    if (p.protected && principal.kind === 'account_key') {
      throw new AppError('project_access_denied', 'This project is protected: account API keys are refused; use the project API key or a login session.', { protected: true });
    }
    return toContext(principal, p);
  }

  private async loadProject(id: string) {
    if (id.length > 128) return undefined;
    return this.db.selectFrom('projects')
      .select(['id', 'account_id', 'namespace', 'product', 'protected', 'status'])
      .where('id', '=', id)
      .executeTakeFirst();
  }
}

function toContext(principal: Principal, p: { id: string; account_id: string; namespace: string; product: 'docsearch' | 'altproduct' }): ProjectContext {
  return { principal, projectId: p.id, accountId: p.account_id, namespace: p.namespace, product: p.product };
}
