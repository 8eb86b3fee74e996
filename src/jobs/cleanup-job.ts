// Durable cleanup of failed and cancelled jobs. When a job of a kind that has a `cleanup` becomes
// `failed`, the terminal transaction also enqueues an internal "internal:cleanup" job carrying a
// snapshot of it, so its partial data (chunks, original upload) is removed even if the process dies
// right after the failure. A cancelled job that was processing elsewhere is cleaned only after that
// worker's lease would have expired, so a slow worker cannot write behind the cleanup unnoticed.
import { RetryableError, type JobKind } from './worker.ts';
import type { JobQueue, JobRow, TerminalHook } from './queue.ts';

export const CLEANUP_JOB_KIND = 'internal:cleanup';
/** Prefix of job kinds that are internal machinery, never shown by the job endpoints. */
export const INTERNAL_KIND_PREFIX = 'internal:';

export function isInternalKind(kind: string): boolean {
  return kind.startsWith(INTERNAL_KIND_PREFIX);
}

/**
 * Terminal hook that enqueues the cleanup job (inside the terminal transaction).
 * @param kinds the job kinds; only those with a `cleanup` get one
 */
export function cleanupTerminalHook(queue: JobQueue, kinds: JobKind[]): TerminalHook {
  const withCleanup = new Set(kinds.filter((k) => k.cleanup).map((k) => k.kind));
  return async (trx, job, previous) => {
    if (job.status !== 'failed' || !withCleanup.has(job.kind)) return;
    // Cancelled while another worker held it: wait until its lease would have run out (+1 s).
    const heldElsewhere = previous.status === 'processing' && previous.lease_expires_at && job.error_code === 'job_cancelled';
    const runAfter = heldElsewhere ? new Date(Math.max(Date.now(), Date.parse(previous.lease_expires_at!) + 1000)).toISOString() : undefined;
    await queue.enqueue({
      projectId: job.project_id, kind: CLEANUP_JOB_KIND, filename: job.filename, size: 0, maxAttempts: 10, runAfter,
      payload: { job: { ...job } },
    }, trx);
  };
}

/** The job kind that runs the cleanup of the snapshotted job's kind. */
export function cleanupJobKind(kinds: JobKind[]): JobKind {
  const byKind = new Map(kinds.map((k) => [k.kind, k]));
  return {
    kind: CLEANUP_JOB_KIND,
    async handle(job) {
      const target = (JSON.parse(job.payload) as { job: JobRow }).job;
      const kind = byKind.get(target.kind);
      try {
        if (kind?.cleanup) await kind.cleanup(target);
      } catch (err) {
        throw new RetryableError(`cleanup of job ${target.id} failed: ${(err as Error).message}`);
      }
      return { status: 'done', code: 200 };
    },
    retryDelayMs: (attempt) => Math.min(2000 * 2 ** (attempt - 1), 10 * 60_000),
  };
}
