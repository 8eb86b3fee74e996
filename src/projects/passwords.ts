// Password hashing for console users (DESIGN.md §6): argon2id through @node-rs/argon2 with its default
// parameters (m = 19 MiB, t = 2, p = 1 — the OWASP Password Storage Cheat Sheet's first argon2id
// configuration). Hashing runs on libuv's thread pool, so it never blocks the event loop.
import crypto from 'node:crypto';
import { hash, verify, type Algorithm } from '@node-rs/argon2';

/** @node-rs/argon2's `Algorithm.Argon2id` (a const enum, which isolatedModules cannot import). */
const ARGON2ID = 2 as Algorithm;

/**
 * Hash a password with argon2id.
 * @returns PHC string ("$argon2id$v=19$m=19456,t=2,p=1$…")
 */
export async function hashPassword(password: string): Promise<string> {
  return hash(password, { algorithm: ARGON2ID });
}

/** A syntactically valid argon2id hash of a random password, verified against when a user is unknown. */
let dummyHash: Promise<string> | undefined;

/**
 * Verify `password` against a stored PHC hash; a null hash (unknown user) still spends one argon2id
 * verification so that response time does not reveal whether an e-mail address has an account.
 * @returns true only when the hash is present and matches
 */
export async function verifyPassword(storedHash: string | null, password: string): Promise<boolean> {
  if (storedHash === null) {
    dummyHash ??= hashPassword(crypto.randomBytes(16).toString('hex'));
    await verify(await dummyHash, password).catch(() => false);
    return false;
  }
  try {
    return await verify(storedHash, password);
  } catch {
    return false;
  }
}

/** A random password for the bootstrap user when none is configured (24 base64url chars = 144 bits). */
export function generatePassword(): string {
  return crypto.randomBytes(18).toString('base64url');
}
