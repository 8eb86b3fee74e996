// Session JWTs issued by console login (DESIGN.md §6): HS256 via `jose`, 12 h lifetime, `sub` = user id,
// `acc` = account id. The signing key is derived from the server secret with HMAC-SHA256 and a fixed
// label, so the raw secret is never used directly as a key and other purposes can derive their own.
// When no server secret is configured, a random one is created once in the control plane's `settings`
// table; every API process sharing that database then verifies the same tokens.
import crypto from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.ts';
import { AppError } from '../internal/errors.ts';

/** Session lifetime in seconds (12 h). */
export const SESSION_TTL_SECONDS = 12 * 3600;
const ISSUER = 'docsearch';
const AUDIENCE = 'docsearch:session';
const KEY_LABEL = 'docsearch/session-jwt/v1';
const SETTINGS_KEY = 'session_secret';

export interface SessionClaims {
  userId: string;
  accountId: string;
}

export interface IssuedSession {
  token: string;
  /** Seconds until expiry. */
  expiresIn: number;
}

/** Signs and verifies session JWTs. One instance per process, shared by AuthService and ProjectService. */
export class SessionTokens {
  private key?: Promise<Uint8Array>;

  /**
   * @param db            control plane (used only when `serverSecret` is empty, to load/create a shared one)
   * @param serverSecret  config.serverSecret (≥ 32 chars) or '' to use the persisted secret
   */
  constructor(private readonly db: Kysely<Database>, private readonly serverSecret: string) {}

  private async signingKey(): Promise<Uint8Array> {
    this.key ??= (async () => {
      const secret = this.serverSecret || await this.persistedSecret();
      return new Uint8Array(crypto.createHmac('sha256', secret).update(KEY_LABEL).digest());
    })();
    return this.key;
  }

  /** Read the shared secret from `settings`, creating it once (first writer wins on a race). */
  private async persistedSecret(): Promise<string> {
    const read = async () => (await this.db.selectFrom('settings').select('value').where('key', '=', SETTINGS_KEY).executeTakeFirst())?.value;
    const existing = await read();
    if (existing) return existing;
    await this.db.insertInto('settings')
      .values({ key: SETTINGS_KEY, value: crypto.randomBytes(32).toString('base64url') })
      .onConflict((oc) => oc.column('key').doNothing())
      .execute();
    const created = await read();
    if (!created) throw new Error('session secret could not be created in settings');
    return created;
  }

  /**
   * Issue a session token for a user of an account.
   * @param ttlSeconds lifetime (default 12 h); `exp` = now + ttl
   */
  async issue(claims: SessionClaims, ttlSeconds: number = SESSION_TTL_SECONDS): Promise<IssuedSession> {
    const now = Math.floor(Date.now() / 1000);
    const token = await new SignJWT({ acc: claims.accountId })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(claims.userId)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt(now)
      .setExpirationTime(now + ttlSeconds)
      .setJti(crypto.randomUUID())
      .sign(await this.signingKey());
    return { token, expiresIn: ttlSeconds };
  }

  /**
   * Verify signature, algorithm (HS256 only), issuer, audience and expiry.
   * @throws AppError unauthorized (401) for any invalid or expired token
   */
  async verify(token: string): Promise<SessionClaims> {
    try {
      const { payload } = await jwtVerify(token, await this.signingKey(), {
        algorithms: ['HS256'], issuer: ISSUER, audience: AUDIENCE, requiredClaims: ['sub', 'exp', 'acc'],
      });
      if (typeof payload.sub !== 'string' || typeof payload.acc !== 'string') throw new Error('bad claims');
      return { userId: payload.sub, accountId: payload.acc };
    } catch (err) {
      const expired = (err as { code?: string }).code === 'ERR_JWT_EXPIRED';
      throw new AppError('unauthorized', expired ? 'The session token has expired; log in again.' : 'The bearer token is not valid.');
    }
  }
}
