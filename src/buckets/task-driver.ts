// The long-running job that moves one bucket task through its states (job kind internal:bucket-task,
// run by its own Worker so it never takes an ingest slot). Each loop turn re-reads the task (pause and
// cancel are just state changes made by the API), folds finished ingest jobs into file states, lists one
// more page while fewer than LIST_AHEAD files wait, starts fetches while fewer than 100 files are in
// flight, and finishes the task once listing is complete and no file is left. Everything it knows is in
// the control plane, so a new driver after a restart continues from the checkpoint.
import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import type { BlobStore } from '../storage/blob-store.ts';
import type { JobOutcome, JobQueue, JobRow } from '../jobs/queue.ts';
import { RetryableError, type JobKind } from '../jobs/worker.ts';
import type { NetGuard } from '../internal/net-guard.ts';
import { isSourceError, openSource, type BucketSource, type SourceCredentials, type SourceType } from './sources/index.ts';
import type { CredentialCipher } from './credentials-cipher.ts';
import type { FileCounts, TaskRow, TaskStore, Trx } from './task-store.ts';
import { isPaused, isTerminal, PAUSE_STATE, phaseOf, type PauseReason, type TaskState } from './task-states.ts';
import { objectFilter } from './object-filter.ts';
import { listStep } from './listing.ts';
import { materialiseFile } from './materialiser.ts';
import { quotaExceeded, type QuotaConfig } from './quotas.ts';
import { finalDescription, toTaskView } from './task-view.ts';
import { recordCompletion } from './completion.ts';
import { LIST_AHEAD, LIST_ATTEMPTS, MAX_FILES_IN_FLIGHT } from './limits.ts';
import { deleteMissing, syncCounts } from './sync.ts';
import type { DocumentService } from '../documents/document-service.ts';

export const DRIVER_JOB_KIND = 'internal:bucket-task';

export interface DriverDeps {
  store: TaskStore;
  queue: JobQueue;
  blobs: BlobStore;
  net: NetGuard;
  cipher: CredentialCipher;
  logger: Logger;
  quotas: QuotaConfig;
  completion: { webhookMaxAttempts: number; emailMaxAttempts: number };
  /** Idle wait between loop turns when nothing happened, ms. */
  tickMs: number;
  /** Deletes the documents a sync run finds gone from the bucket (delete_missing). */
  documents: DocumentService;
}

const DONE: JobOutcome = { status: 'done', code: 200 };

/**
 * Move a task to its terminal state and record its completion event, in one transaction. `inTx` runs
 * first inside it (e.g. cancel's file updates), so the event's view shows the final counts.
 * @returns the updated row, or undefined when the task was not in one of `from` (moved by someone else)
 */
export async function finishTask(deps: Pick<DriverDeps, 'store' | 'queue' | 'completion'>, task: TaskRow, state: 'done' | 'done_with_errors' | 'failed', description: string,
  opts: { extra?: Partial<TaskRow>; from?: TaskState[]; inTx?: (trx: Trx) => Promise<void> } = {}): Promise<TaskRow | undefined> {
  const finishedAt = new Date().toISOString();
  return deps.store.transition(task.id, state, { state_description: description, finished_at: finishedAt, paused_from: null, ...opts.extra }, {
    from: opts.from,
    inTx: async (trx, row) => {
      await opts.inTx?.(trx);
      const sync = row.sync ? await syncCounts(deps.store, row, trx) : undefined;
      await recordCompletion(trx, deps.queue, row, toTaskView(row, await deps.store.fileCounts(row.id, trx), sync), deps.completion);
    },
  });
}

class TaskDriver {
  private source?: BucketSource;
  private sourceVersion = -1;
  private filter?: (key: string) => boolean;
  private readonly inflight = new Map<string, { promise: Promise<void>; bytes: number }>();
  private readonly fetchAc = new AbortController();
  private pauseRequest?: { reason: PauseReason; message: string };
  private fatal?: string;
  private listFailures = 0;
  private wake?: () => void;
  private readonly log: Logger;

  constructor(private readonly deps: DriverDeps, private readonly job: JobRow, private readonly signal: AbortSignal, private readonly taskId: string) {
    this.log = deps.logger.child({ task_id: taskId, driver_job_id: job.id });
    // Up to MAX_FILES_IN_FLIGHT fetches listen on this signal at once.
    setMaxListeners(MAX_FILES_IN_FLIGHT * 4, this.fetchAc.signal);
    signal.addEventListener('abort', () => { this.fetchAc.abort(); this.wake?.(); }, { once: true });
  }

  async run(): Promise<JobOutcome> {
    const { store } = this.deps;
    let task = await store.get(this.taskId);
    if (!task || task.driver_job_id !== this.job.id) return DONE;
    await store.resetFetching(this.taskId);
    try {
      for (;;) {
        task = await store.get(this.taskId);
        if (!task || task.driver_job_id !== this.job.id) { await this.drain(true); break; }
        if (isTerminal(task.state)) { await this.drain(true); break; } // cancelled (or finished elsewhere)
        if (this.signal.aborted) { await this.drain(true); break; } // shutting down: the next start resumes
        if (isPaused(task.state)) {
          await this.drain(false);
          await store.reconcileJobs(this.taskId);
          await store.resetFetching(this.taskId);
          break;
        }
        if (this.fatal) {
          await this.drain(true);
          await this.countsAfterReconcile();
          await finishTask(this.deps, task, 'failed', `Failed: ${this.fatal}`, { extra: { last_error: this.fatal.slice(0, 1000) } });
          break;
        }
        if (this.pauseRequest) {
          await this.pause(task, this.pauseRequest.reason, this.pauseRequest.message);
          this.pauseRequest = undefined;
          continue;
        }
        if (task.state === 'created') { await store.transition(task.id, 'queued_org', { state_description: 'Queued.' }, { from: ['created'] }); continue; }
        if (task.state === 'queued_org') {
          await store.transition(task.id, 'listing', { state_description: 'Listing.', started_at: task.started_at ?? new Date().toISOString() }, { from: ['queued_org'] });
          continue;
        }
        if (!(await this.ensureSource(task))) continue;
        const counts = await this.countsAfterReconcile();
        if (!task.listing_done && counts.pending < LIST_AHEAD) {
          await this.listOnce(task);
          continue;
        }
        if (task.listing_done && task.state === 'listing' && !task.stop_reason) {
          await store.transition(task.id, 'materialising', { state_description: 'Materialising.' }, { from: ['listing'] });
          continue;
        }
        await this.startFetches(task, counts);
        if (task.listing_done && counts.pending + counts.fetching + counts.queued === 0 && this.inflight.size === 0) {
          await this.complete(task, counts);
          break;
        }
        await this.idle();
      }
    } finally {
      this.source?.close();
    }
    return DONE;
  }

  private async countsAfterReconcile(): Promise<FileCounts> {
    await this.deps.store.reconcileJobs(this.taskId);
    return this.deps.store.fileCounts(this.taskId);
  }

  /** Wait for a fetch to finish or the tick to pass. */
  private idle(): Promise<void> {
    return new Promise<void>((resolve) => {
      const t = setTimeout(() => { this.wake = undefined; resolve(); }, this.deps.tickMs);
      this.wake = () => { clearTimeout(t); this.wake = undefined; resolve(); };
    });
  }

  /** Wait for local fetches; abort them first when `abort`. */
  private async drain(abort: boolean): Promise<void> {
    if (abort) this.fetchAc.abort();
    await Promise.allSettled([...this.inflight.values()].map((f) => f.promise));
  }

  private async pause(task: TaskRow, reason: PauseReason, message: string): Promise<void> {
    const to = PAUSE_STATE[reason];
    const r = await this.deps.store.transition(task.id, to, { paused_from: phaseOf(task.state as TaskState), state_description: message, last_error: message.slice(0, 1000) },
      { from: ['queued_org', 'listing', 'materialising'] });
    if (r) this.log.warn({ state: to }, 'bucket task paused');
  }

  /** Open (or re-open after a credentials change) the source. @returns false when the task cannot go on now */
  private async ensureSource(task: TaskRow): Promise<boolean> {
    this.filter ??= objectFilter(task.prefix, task.filter_glob);
    if (this.source && this.sourceVersion === task.credentials_version) return true;
    await this.drain(false);
    this.source?.close();
    this.source = undefined;
    let creds: SourceCredentials;
    try {
      creds = this.deps.cipher.decrypt<SourceCredentials>(task.credentials, task.id);
    } catch {
      this.pauseRequest = { reason: 'credential', message: 'The stored source credentials cannot be decrypted (was the server secret changed?); replace them with PATCH …/credentials.' };
      return false;
    }
    try {
      this.source = await openSource({ type: task.source_type as SourceType, bucket: task.bucket, prefix: task.prefix, region: task.region, endpoint: task.endpoint }, creds, this.deps.net);
      this.sourceVersion = task.credentials_version;
      return true;
    } catch (err) {
      this.onSourceError(err, 'opening the source');
      return false;
    }
  }

  /** Turn a listing/opening error into pause, fatal or a backed-off retry. */
  private onSourceError(err: unknown, what: string): void {
    if (!isSourceError(err)) throw err;
    if (err.kind === 'auth') { this.pauseRequest = { reason: 'credential', message: `The bucket refused the credentials while ${what}: ${err.message}. Replace them with PATCH …/credentials to resume.` }; return; }
    if (err.kind === 'bucket_not_found') { this.fatal = `the bucket does not exist or is not visible to these credentials (${err.message})`; return; }
    if (err.kind === 'forbidden_endpoint' || err.kind === 'invalid') { this.fatal = `${what} failed: ${err.message}`; return; }
    this.listFailures++;
    this.log.warn({ err: err.message, failures: this.listFailures }, `${what} failed`);
    if (this.listFailures >= LIST_ATTEMPTS) this.fatal = `${what} failed ${this.listFailures} times in a row; the last error was: ${err.message}`;
  }

  private async listOnce(task: TaskRow): Promise<void> {
    try {
      const r = await listStep(this.deps.store, task, this.source!, this.filter!, { signal: this.signal });
      this.listFailures = 0;
      if (r.stopReason) this.log.info({ stop_reason: r.stopReason, files: r.task.files_found }, 'listing stopped by a limit');
    } catch (err) {
      if (this.signal.aborted) return;
      this.onSourceError(err, 'listing the bucket');
      if (!this.fatal && !this.pauseRequest) await new Promise((r) => setTimeout(r, Math.min(30_000, 500 * 2 ** this.listFailures)));
    }
  }

  private async startFetches(task: TaskRow, counts: FileCounts): Promise<void> {
    const room = MAX_FILES_IN_FLIGHT - (counts.fetching + counts.queued);
    if (room <= 0 || counts.pending === 0 || this.pauseRequest || this.fatal) return;
    const files = await this.deps.store.claimPending(task.id, room);
    for (let i = 0; i < files.length; i++) {
      const f = files[i];
      const localBytes = [...this.inflight.values()].reduce((s, x) => s + x.bytes, 0);
      const over = await quotaExceeded(this.deps.store.cp, task.account_id, this.deps.quotas, { bytes: Number(f.size) + localBytes, files: 1 + this.inflight.size });
      if (over) {
        for (const g of files.slice(i)) await this.deps.store.setFile(task.id, g.key, { state: 'pending' }, ['fetching']);
        this.pauseRequest = over === 'egress'
          ? { reason: 'egress', message: 'The account\'s monthly bucket egress quota is used up; the task resumes when it is raised or next month (POST …/resume).' }
          : { reason: 'credit', message: 'The account\'s monthly bucket file credits are used up; the task resumes when they are raised or next month (POST …/resume).' };
        return;
      }
      const promise = materialiseFile(this.deps, task, f, this.source!, this.fetchAc.signal).then((out) => {
        if (out.kind === 'pause') this.pauseRequest ??= { reason: out.reason, message: out.message };
        if (out.kind === 'fatal') this.fatal ??= out.message;
      }, (err) => {
        this.log.error({ err, key: f.key }, 'materialising a file failed unexpectedly');
        this.fatal ??= `an internal error occurred while fetching ${f.key}`;
      }).finally(() => { this.inflight.delete(f.key); this.wake?.(); });
      this.inflight.set(f.key, { promise, bytes: Number(f.size) });
    }
  }

  private async complete(task: TaskRow, counts: FileCounts): Promise<void> {
    // Sync: documents whose objects were not listed go, once the whole bucket was listed (never after a
    // listing cut short by a limit, which did not see every object).
    if (task.sync && task.delete_missing && !task.stop_reason) {
      const deleted = await deleteMissing(this.deps.store, this.deps.documents, task);
      if (deleted) this.log.info({ deleted }, 'sync deleted documents whose objects are gone');
      task = (await this.deps.store.get(task.id)) ?? task;
    }
    const state = task.stop_reason
      ? (counts.done === 0 && counts.failed > 0 ? 'failed' : 'done_with_errors')
      : counts.failed === 0 ? 'done' : counts.done === 0 ? 'failed' : 'done_with_errors';
    const from: TaskState[] = task.state === 'listing' ? ['listing'] : ['materialising'];
    const sync = task.sync ? await syncCounts(this.deps.store, task) : undefined;
    const next = task.sync && task.interval_seconds ? new Date(Date.now() + task.interval_seconds * 1000).toISOString() : null;
    const r = await finishTask(this.deps, task, state, finalDescription(task, counts, state, sync), { from, extra: { next_run_at: next } });
    if (r) this.log.info({ state, done: counts.done, failed: counts.failed }, 'bucket task finished');
  }
}

/** The job kind. A driver that throws is retried from the checkpoint (RetryableError) a few times. */
export function bucketDriverJobKind(deps: DriverDeps): JobKind {
  return {
    kind: DRIVER_JOB_KIND,
    async handle(job: JobRow, signal: AbortSignal) {
      const { taskId } = JSON.parse(job.payload) as { taskId: string };
      try {
        return await new TaskDriver(deps, job, signal, taskId).run();
      } catch (err) {
        deps.logger.error({ err, task_id: taskId }, 'bucket task driver failed');
        throw new RetryableError(`bucket task driver: ${(err as Error).message}`);
      }
    },
    retryDelayMs: (attempt) => Math.min(1000 * 2 ** Math.max(0, attempt - 1), 60_000),
  };
}
