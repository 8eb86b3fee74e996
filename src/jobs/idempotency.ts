// Idempotency-Key on ingest (an extension, docs/jobs.md; modelled on the IETF draft
// "The Idempotency-Key HTTP Header Field"): a retried request with the same key returns the job the
// first one created instead of ingesting twice. Keys are scoped to the project and live as long as
// the job's record; reusing a key for a different file (name or remote URL) is refused with 409.
import crypto from 'node:crypto';
import { AppError } from '../internal/errors.ts';
import type { JobQueue, JobRow } from './queue.ts';

/**
 * Validate the header: 1–255 visible ASCII characters.
 * @returns the key, or undefined when the header is absent/empty
 * @throws AppError invalid_header (400)
 */
export function validateIdempotencyKey(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const key = raw.trim();
  if (key === '') return undefined;
  if (key.length > 255 || !/^[\x21-\x7e]+$/.test(key)) {
    throw new AppError('invalid_header', 'Idempotency-Key must be 1-255 visible ASCII characters (a UUID is a good choice).', { header: 'Idempotency-Key' });
  }
  return key;
}

/** sha256 hex over what a key must keep meaning: the filename and the remote URL. */
export function requestFingerprint(parts: { filename: string; remoteUrl?: string }): string {
  return crypto.createHash('sha256').update(JSON.stringify([parts.filename, parts.remoteUrl ?? null])).digest('hex');
}

/**
 * Check an existing job created with this key.
 * @returns the job to replay, or undefined when the key is unused
 * @throws AppError idempotency_key_reused (409) when the key was used for a different request
 */
export function checkReplay(existing: JobRow | undefined, key: string, fingerprint: string): JobRow | undefined {
  if (!existing) return undefined;
  if (existing.request_fingerprint && existing.request_fingerprint !== fingerprint) {
    throw new AppError('idempotency_key_reused', `Idempotency-Key "${key.slice(0, 80)}" was already used for a different file (job ${existing.id}); use a new key for a new request.`, { job_id: existing.id });
  }
  return existing;
}

/** The job a retried request should get back, if any (see checkReplay). */
export async function findReplay(queue: JobQueue, projectId: string, key: string, fingerprint: string): Promise<JobRow | undefined> {
  return checkReplay(await queue.findByIdempotencyKey(projectId, key), key, fingerprint);
}
