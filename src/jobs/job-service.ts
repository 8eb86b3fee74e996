// The job endpoints' domain logic: read a job of the caller's project, cancel an unfinished one or
// delete the record of a finished one (docs/jobs.md), and watch a job's status changes for the SSE
// stream. Jobs of another project and internal jobs (webhooks, cleanup) are "not found".
import type { Logger } from 'pino';
import { AppError } from '../internal/errors.ts';
import type { JobQueue, JobRow } from './queue.ts';
import { TERMINAL } from './queue.ts';
import type { JobKind, Worker } from './worker.ts';
import { isInternalKind } from './cleanup-job.ts';
import { toJobStatusView, type JobStatusView } from './job-view.ts';
import { listJobs, type JobListPage, type JobListQuery } from './job-list.ts';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.ts';

export interface DeleteJobResult {
  job_id: string;
  /** `cancelled`: the job had not finished and is now failed with error code job_cancelled (its record
   *  stays); `record_deleted`: the job had finished and its record is gone (a document it created stays). */
  result: 'cancelled' | 'record_deleted';
  job: JobStatusView;
}

export class JobService {
  private workers: Worker[] = [];
  private readonly kinds = new Map<string, JobKind>();

  constructor(private readonly deps: { queue: JobQueue; db: Kysely<Database>; logger: Logger }) {}

  /** Make the service aware of this process's workers (to abort a cancelled job at once) and kinds (cleanup). */
  attach(workers: Worker[], kinds: JobKind[]): void {
    this.workers = workers;
    for (const k of kinds) this.kinds.set(k.kind, k);
  }

  /** @throws AppError job_not_found (404) unless the job exists, is public and belongs to the project */
  async row(projectId: string, jobId: string): Promise<JobRow> {
    const job = await this.deps.queue.get(jobId);
    if (!job || job.project_id !== projectId || isInternalKind(job.kind)) {
      throw new AppError('job_not_found', `No job "${jobId}" in this project.`, { job_id: jobId });
    }
    return job;
  }

  /**
   * The project of a public job that account `accountId` owns: a job id is unique across projects, so an
   * account-level caller may leave out X-Project-ID on the job endpoints (docs/compat.md).
   * @throws AppError job_not_found (404) for an unknown or internal job, or one of another account
   */
  async projectOf(accountId: string, jobId: string): Promise<string> {
    const owner = await this.deps.queue.ownerOf(jobId);
    if (!owner || owner.account_id !== accountId || isInternalKind(owner.kind)) {
      throw new AppError('job_not_found', `No job "${jobId}" in this account.`, { job_id: jobId });
    }
    return owner.project_id;
  }

  async status(projectId: string, jobId: string): Promise<JobStatusView> {
    return toJobStatusView(await this.row(projectId, jobId));
  }

  /**
   * A page of the project's ingest jobs, newest first (GET /jobs; see job-list.ts).
   * @throws AppError validation_failed (400) for a cursor the listing did not make
   */
  async list(projectId: string, query: JobListQuery): Promise<JobListPage> {
    return listJobs(this.deps.db, projectId, query);
  }

  /**
   * DELETE /jobs/{id}. Unfinished: cancel (pending or processing -> failed `job_cancelled`, the running
   * handler is aborted, its chunks and upload are removed; the record stays so the outcome can be read).
   * Finished (done or failed): delete the record; a document the job created stays.
   * @throws AppError job_not_found (404)
   */
  async delete(projectId: string, jobId: string): Promise<DeleteJobResult> {
    await this.row(projectId, jobId);
    const r = await this.deps.queue.cancel(projectId, jobId);
    if (!r) throw new AppError('job_not_found', `No job "${jobId}" in this project.`, { job_id: jobId });
    if (r.result === 'finished') {
      await this.deps.queue.deleteFinished(projectId, jobId);
      return { job_id: jobId, result: 'record_deleted', job: toJobStatusView(r.job) };
    }
    const kind = this.kinds.get(r.job.kind);
    let ranHere = false;
    for (const w of this.workers) ranHere = (await w.abort(jobId)) || ranHere; // the worker cleans up after its handler stops
    if (!ranHere && r.previous.status === 'pending' && kind?.cleanup) {
      // Nobody is running it: remove leftovers of earlier attempts now (the durable cleanup job repeats it).
      await kind.cleanup(r.job).catch((err) => this.deps.logger.warn({ err, job_id: jobId }, 'cleanup of cancelled job failed'));
    }
    return { job_id: jobId, result: 'cancelled', job: toJobStatusView(r.job) };
  }

  /**
   * Follow a job's status: calls `onChange` with the row whenever its status_version differs from the
   * last one reported (starting from `lastVersion`, e.g. a Last-Event-ID), until the job is terminal,
   * its record disappears, or `signal` aborts. Changes made by this process arrive at once; others are
   * seen by polling every `pollMs`.
   */
  async watch(projectId: string, jobId: string, lastVersion: number | undefined, onChange: (job: JobRow) => void, signal: AbortSignal, pollMs = 500): Promise<void> {
    let last = lastVersion;
    const { events } = this.deps.queue;
    let wake: (() => void) | undefined;
    let dirty = false;
    const onChanged = (id: string) => { if (id === jobId) { dirty = true; wake?.(); } };
    const onAbort = () => wake?.();
    events.on('changed', onChanged);
    signal.addEventListener('abort', onAbort);
    try {
      while (!signal.aborted) {
        dirty = false;
        const job = await this.deps.queue.get(jobId);
        if (!job || job.project_id !== projectId) return;
        if (job.status_version !== last) {
          last = job.status_version;
          onChange(job);
        }
        if (TERMINAL.has(job.status)) return;
        if (dirty) continue;
        await new Promise<void>((resolve) => {
          const t = setTimeout(done, pollMs);
          function done(): void { clearTimeout(t); wake = undefined; resolve(); }
          wake = done;
        });
      }
    } finally {
      events.off('changed', onChanged);
      signal.removeEventListener('abort', onAbort);
    }
  }
}
