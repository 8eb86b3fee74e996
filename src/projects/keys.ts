// API-key tokens of docsearch (DESIGN.md §6): generation, classification by prefix, hashing for storage
// and constant-time comparison. Tokens carry 256 random bits, so a single SHA-256 is the right storage
// hash (nothing to brute-force; a slow KDF would only add latency to every request). Passwords, which
// are low-entropy, use argon2id instead (passwords.ts).
//
// Prefixes (spec "Authentication"):
//   svc_acc_      account key: account-wide, needs X-Project-ID, refused by protected projects.
//   svc_prod_ds_  project key of a `docsearch` project: bound to one project, used without X-Project-ID.
//   svc_prod_alt_ project key of an `altproduct` project. Decision: altproduct projects get a key of their
//                 own product; it authenticates (so the caller is known) but every /docsearch/* endpoint
//                 answers 403 product_not_enabled, because "the token belongs to a project whose product
//                 is altproduct". It can never be mistaken for a docsearch key: the quick prefix check
//                 `svc_prod_ds_` fails for it.
import crypto from 'node:crypto';

export const ACCOUNT_KEY_PREFIX = 'svc_acc_';
export const DOCSEARCH_PROJECT_KEY_PREFIX = 'svc_prod_ds_';
export const ALTPRODUCT_PROJECT_KEY_PREFIX = 'svc_prod_alt_';

/** Random bytes per token: 32 bytes = 256 bits (base64url: 43 characters). */
export const TOKEN_RANDOM_BYTES = 32;

/** Characters of the token (after its prefix) kept in `api_keys.display_prefix`, e.g. "svc_prod_ds_Ab12". */
const DISPLAY_CHARS = 4;

export type KeyKind = 'account' | 'project';
export type Product = 'docsearch' | 'altproduct';

export interface GeneratedKey {
  /** The plaintext token. Shown to the caller once and never stored. */
  token: string;
  /** sha256 hex of `token`: the only form that is stored. */
  hash: string;
  /** Prefix plus a few characters, for display in listings and logs. */
  displayPrefix: string;
}

/** Prefix a new key of `kind` gets (for project keys, by the project's product). */
export function keyPrefix(kind: KeyKind, product?: Product): string {
  if (kind === 'account') return ACCOUNT_KEY_PREFIX;
  return product === 'altproduct' ? ALTPRODUCT_PROJECT_KEY_PREFIX : DOCSEARCH_PROJECT_KEY_PREFIX;
}

/**
 * Generate a new key: prefix + base64url of 256 CSPRNG bits.
 * @param kind    'account' or 'project'
 * @param product product of the project (project keys only; decides svc_prod_ds_ vs svc_prod_alt_)
 */
export function generateKey(kind: KeyKind, product?: Product): GeneratedKey {
  const token = keyPrefix(kind, product) + crypto.randomBytes(TOKEN_RANDOM_BYTES).toString('base64url');
  return { token, hash: hashToken(token), displayPrefix: displayPrefix(token) };
}

/** sha256 hex of the whole token (prefix included), 64 lowercase hex characters. */
export function hashToken(token: string): string {
  return crypto.createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Prefix + first characters of the random part, safe to show (e.g. "svc_acc_Q2x9"). */
export function displayPrefix(token: string): string {
  const kind = classifyToken(token);
  const prefix = kind === 'account' ? ACCOUNT_KEY_PREFIX
    : kind === 'project_docsearch' ? DOCSEARCH_PROJECT_KEY_PREFIX
      : kind === 'project_altproduct' ? ALTPRODUCT_PROJECT_KEY_PREFIX : '';
  return token.slice(0, prefix.length + DISPLAY_CHARS);
}

export type TokenClass = 'account' | 'project_docsearch' | 'project_altproduct' | 'jwt' | 'unknown';

const KEY_BODY = /^[A-Za-z0-9_-]{16,1024}$/;
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/**
 * Classify a bearer token by its shape only (no lookup). Keys are recognised by prefix; anything with
 * three base64url segments is treated as a session JWT; everything else is 'unknown' (→ 401).
 */
export function classifyToken(token: string): TokenClass {
  const body = (prefix: string) => KEY_BODY.test(token.slice(prefix.length));
  if (token.startsWith(DOCSEARCH_PROJECT_KEY_PREFIX)) return body(DOCSEARCH_PROJECT_KEY_PREFIX) ? 'project_docsearch' : 'unknown';
  if (token.startsWith(ALTPRODUCT_PROJECT_KEY_PREFIX)) return body(ALTPRODUCT_PROJECT_KEY_PREFIX) ? 'project_altproduct' : 'unknown';
  if (token.startsWith(ACCOUNT_KEY_PREFIX)) return body(ACCOUNT_KEY_PREFIX) ? 'account' : 'unknown';
  if (token.length <= 4096 && JWT_SHAPE.test(token)) return 'jwt';
  return 'unknown';
}

/**
 * Constant-time equality of two hex digests (e.g. a stored key hash and a computed one).
 * Returns false for different lengths without comparing contents.
 */
export function hashesEqual(a: string, b: string): boolean {
  const ba = Buffer.from(a, 'utf8');
  const bb = Buffer.from(b, 'utf8');
  if (ba.length !== bb.length) return false;
  return crypto.timingSafeEqual(ba, bb);
}

/** New project namespace name: `ns_` + 32 lowercase hex characters (128 random bits). */
export function newNamespace(): string {
  return 'ns_' + crypto.randomBytes(16).toString('hex');
}
