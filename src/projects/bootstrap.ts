// First-start bootstrap of a fresh install (DESIGN.md §6): one account, its admin user and an account
// key, so that a new deployment can create projects at once. `DOCSEARCH_BOOTSTRAP_ACCOUNT_KEY` makes the
// key known in advance (automation, tests); otherwise the generated key and password are logged once.
// The `settings` row `bootstrap_account_id` is both the marker and the lock: it is inserted in the same
// transaction as the account, so of several processes starting together exactly one creates it.
import crypto from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../storage/schema.ts';
import type { Config } from '../internal/config.ts';
import { nowIso } from '../storage/db.ts';
import { displayPrefix, hashToken } from './keys.ts';
import { generatePassword, hashPassword, verifyPassword } from './passwords.ts';
import type { CreatedAccount, DomainLogger } from './types.ts';

const MARKER = 'bootstrap_account_id';
const ACCOUNT_NAME = 'default';

/** Rows for a new account; the password is already hashed (never hash inside a transaction). */
export interface NewAccountRows {
  name: string;
  email: string;
  passwordHash: string;
  /** Register this exact svc_acc_ token instead of generating one. */
  accountKey?: string;
}

export interface BootstrapResult {
  accountId: string;
  userId: string;
  /** True when this call created the account (first start). */
  created: boolean;
  /** Set only when this call generated the admin password (also logged once). */
  generatedPassword?: string;
  /** Set only when this call generated the account key (also logged once). */
  generatedAccountKey?: string;
}

type InsertAccount = (trx: Transaction<Database>, rows: NewAccountRows) => Promise<CreatedAccount>;
type BootstrapConfig = Pick<Config, 'bootstrapAccountKey' | 'bootstrapEmail' | 'bootstrapPassword'>;

/** True for a unique-constraint violation on either backend (PostgreSQL 23505, SQLite CONSTRAINT_UNIQUE/PK). */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: string })?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/**
 * Ensure the bootstrap account exists and matches the configuration. Idempotent.
 * @throws Error when the database fails (the process must not start half-bootstrapped)
 */
export async function bootstrapInstall(db: Kysely<Database>, config: BootstrapConfig, log: DomainLogger, insertAccount: InsertAccount): Promise<BootstrapResult> {
  const readMarker = async () => (await db.selectFrom('settings').select('value').where('key', '=', MARKER).executeTakeFirst())?.value;

  let accountId = await readMarker();
  if (!accountId) {
    const password = config.bootstrapPassword ?? generatePassword();
    const passwordHash = await hashPassword(password);
    try {
      const created = await db.transaction().execute(async (trx) => {
        await trx.insertInto('settings').values({ key: MARKER, value: 'pending' }).execute();
        const acc = await insertAccount(trx, { name: ACCOUNT_NAME, email: config.bootstrapEmail, passwordHash, accountKey: config.bootstrapAccountKey });
        await trx.updateTable('settings').set({ value: acc.accountId }).where('key', '=', MARKER).execute();
        return acc;
      });
      const result: BootstrapResult = { accountId: created.accountId, userId: created.userId, created: true };
      if (!config.bootstrapPassword) result.generatedPassword = password;
      if (!config.bootstrapAccountKey) result.generatedAccountKey = created.accountKey;
      log.warn({
        email: config.bootstrapEmail,
        ...(result.generatedPassword ? { password: result.generatedPassword } : {}),
        ...(result.generatedAccountKey ? { account_key: result.generatedAccountKey } : {}),
      }, 'bootstrap account created; generated credentials are shown only this once');
      return result;
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      accountId = await readMarker(); // another process bootstrapped first
      if (!accountId) throw err;
    }
  }

  const user = await db.selectFrom('users').select(['id', 'password_hash'])
    .where('account_id', '=', accountId).orderBy('created_at').limit(1).executeTakeFirst();
  if (!user) throw new Error(`bootstrap account ${accountId} has no user`);

  if (config.bootstrapPassword && !(await verifyPassword(user.password_hash, config.bootstrapPassword))) {
    await db.updateTable('users').set({ password_hash: await hashPassword(config.bootstrapPassword) }).where('id', '=', user.id).execute();
    log.info({ userId: user.id }, 'bootstrap user password updated from DOCSEARCH_BOOTSTRAP_PASSWORD');
  }

  if (config.bootstrapAccountKey) await ensureAccountKey(db, accountId, config.bootstrapAccountKey, log);
  return { accountId, userId: user.id, created: false };
}

/** Register `token` as an account key of `accountId` unless it already is; warn when it belongs elsewhere. */
async function ensureAccountKey(db: Kysely<Database>, accountId: string, token: string, log: DomainLogger): Promise<void> {
  const hash = hashToken(token);
  await db.insertInto('api_keys').values({
    id: crypto.randomUUID(), account_id: accountId, project_id: null, kind: 'account',
    key_hash: hash, display_prefix: displayPrefix(token), created_at: nowIso(), revoked_at: null,
  }).onConflict((oc) => oc.column('key_hash').doNothing()).execute();
  const row = await db.selectFrom('api_keys').select(['account_id', 'kind', 'revoked_at']).where('key_hash', '=', hash).executeTakeFirst();
  if (!row || row.account_id !== accountId || row.kind !== 'account' || row.revoked_at !== null) {
    log.warn({ key: displayPrefix(token) }, 'DOCSEARCH_BOOTSTRAP_ACCOUNT_KEY is registered but not as an active key of the bootstrap account');
  }
}
