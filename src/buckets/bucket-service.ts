// The bucket-ingest API as the HTTP layer sees it: create (or dry-run), status, pause, resume, cancel,
// failures, retryFailed and credential replacement. Every method acts on a task of the caller's project
// (404 otherwise); state changes are compare-and-set moves of the state machine (task-states.ts), and the
// driver job is (re)started through `ensureDriver`, which also serves as the watchdog after restarts.
import crypto from 'node:crypto';
import type { Logger } from 'pino';
import { AppError } from '../internal/errors.ts';
import type { NetGuard } from '../internal/net-guard.ts';
import { nowIso } from '../storage/db.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { ProjectContext } from '../projects/types.ts';
import type { CredentialCipher } from './credentials-cipher.ts';
import { checkEndpoint, isSourceError, openSource, validateCredentials, type SourceCredentials, type SourceSpec, type SourceType } from './sources/index.ts';
import { objectFilter } from './object-filter.ts';
import { parseCompletionHeader } from './completion.ts';
import { dryRun, type DryRunReport } from './dry-run.ts';
import { DRIVER_JOB_KIND, finishTask } from './task-driver.ts';
import type { TaskRow, TaskStore } from './task-store.ts';
import { isPaused, isRunning, isTerminal, phaseOf, type TaskPhase, type TaskState } from './task-states.ts';
import { toTaskView, type TaskView } from './task-view.ts';
import { MAX_SYNC_INTERVAL_S, MIN_SYNC_INTERVAL_S, startNextRun, syncCounts } from './sync.ts';

export interface CreateTaskRequest {
  source: { type: SourceType; bucket: string; prefix?: string; region?: string; endpoint?: string; credentials: Record<string, unknown> };
  filter_glob?: string;
  dry_run?: boolean;
  acknowledge_egress_cost?: boolean;
  /** Sync mode (an extension, docs/sync.md); absent = a plain ingest of every matching object. */
  sync?: { delete_missing?: boolean; interval_seconds?: number };
}

export interface BucketServiceDeps {
  store: TaskStore;
  queue: JobQueue;
  net: NetGuard;
  cipher: CredentialCipher;
  logger: Logger;
  fileCap: number;
  homeRegion?: string;
  smtpConfigured: boolean;
  completion: { webhookMaxAttempts: number; emailMaxAttempts: number };
}

export interface FailuresPage {
  bucket_ingest_task_id: string;
  failures: Array<{ key: string; size: number; error_code: string | null; error_message: string | null; job_id: string | null; failed_at: string }>;
  next_cursor: string | null;
}

/** Failures that happened before an ingest job existed (no job id to report) or that retry cannot fix. */
const PRE_INGEST_ERRORS = new Set(['file_too_large', 'source_object_missing', 'source_fetch_failed']);
const NOT_RETRIED = new Set(['file_too_large']);
const RUNNING_FROM: TaskState[] = ['created', 'queued_org', 'listing', 'materialising'];

/** "The task was cancelled" or "The task has already finished (done)", for 409 task_not_active messages. */
function finishedSentence(task: TaskRow): string {
  return task.cancelled ? 'The task was cancelled' : `The task has already finished (${task.state})`;
}

/** Version tag of the failures cursor: what follows it is the base64url UTF-8 of the last key of a page. */
const FAILURES_CURSOR_TAG = 'f1.';

/** The opaque `next_cursor` of a failures page ending at object `key`. */
function encodeFailuresCursor(key: string): string {
  return FAILURES_CURSOR_TAG + Buffer.from(key, 'utf8').toString('base64url');
}

/**
 * The object key a failures cursor continues after. Only what encodeFailuresCursor made is accepted: a
 * cursor that was cut, edited or invented must not read as "a key after which nothing failed" (an empty
 * 200 page that looks like the end of the list).
 * @throws AppError validation_failed (400) for any other string
 */
function decodeFailuresCursor(cursor: string): string {
  const invalid = () => new AppError('validation_failed', 'cursor is not a next_cursor returned by this endpoint.', { field: 'querystring.cursor' });
  const body = cursor.startsWith(FAILURES_CURSOR_TAG) ? cursor.slice(FAILURES_CURSOR_TAG.length) : '';
  if (!/^[A-Za-z0-9_-]+$/.test(body)) throw invalid();
  const bytes = Buffer.from(body, 'base64url');
  if (bytes.toString('base64url') !== body) throw invalid();
  let key: string;
  try {
    key = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw invalid();
  }
  if (key.length === 0) throw invalid();
  return key;
}

export class BucketService {
  constructor(private readonly d: BucketServiceDeps) {}

  private driverDeps() {
    return { store: this.d.store, queue: this.d.queue, completion: this.d.completion };
  }

  private async view(task: TaskRow): Promise<TaskView> {
    // Ingest jobs finish while a paused (or cancelled) task has no driver: fold their outcomes in here.
    if (!isRunning(task.state)) await this.d.store.reconcileJobs(task.id);
    return toTaskView(task, await this.d.store.fileCounts(task.id), task.sync ? await syncCounts(this.d.store, task) : undefined);
  }

  /**
   * Create a task, or with dry_run return a validation report (nothing is created).
   * @throws AppError validation_failed / invalid_header / egress_cost_not_acknowledged (400),
   *         remote_url_forbidden (403), task_already_active (409)
   */
  async create(ctx: ProjectContext, req: CreateTaskRequest, completionHeader: string | undefined): Promise<{ dryRun: DryRunReport } | { task: TaskView }> {
    const s = req.source;
    const interval = req.sync?.interval_seconds;
    if (interval !== undefined && (!Number.isInteger(interval) || interval < MIN_SYNC_INTERVAL_S || interval > MAX_SYNC_INTERVAL_S)) {
      throw new AppError('validation_failed', `sync.interval_seconds must be an integer from ${MIN_SYNC_INTERVAL_S} to ${MAX_SYNC_INTERVAL_S}.`, { field: 'sync.interval_seconds' });
    }
    const spec: SourceSpec = { type: s.type, bucket: s.bucket, prefix: s.prefix ?? '', region: s.region || null, endpoint: s.endpoint || null };
    const creds = validateCredentials(s.type, s.credentials);
    objectFilter(spec.prefix, req.filter_glob); // validates the glob
    if (spec.endpoint) {
      try {
        await checkEndpoint(this.d.net, spec.endpoint);
      } catch (err) {
        if (isSourceError(err) && err.kind === 'forbidden_endpoint') throw new AppError('remote_url_forbidden', err.message);
        throw new AppError('validation_failed', `source.endpoint: ${(err as Error).message}`, { field: 'source.endpoint' });
      }
    }
    // X-Completion is checked before a dry run too: a dry run answers what the real create would.
    const targets = parseCompletionHeader(completionHeader, this.d.net, this.d.smtpConfigured);
    if (req.dry_run) return { dryRun: await dryRun(spec, creds, req.filter_glob || null, this.d.net, this.d.homeRegion, this.d.fileCap) };
    const home = this.d.homeRegion?.toLowerCase();
    if (home && spec.region && spec.region.toLowerCase() !== home && !req.acknowledge_egress_cost) {
      throw new AppError('egress_cost_not_acknowledged', `The bucket is in ${spec.region} and this service runs in ${home}: reading it costs cross-region transfer. Run with dry_run for an estimate, then resubmit with acknowledge_egress_cost: true.`,
        { bucket_region: spec.region, home_region: home });
    }
    const id = crypto.randomUUID();
    const now = nowIso();
    const row: TaskRow = {
      id, account_id: ctx.accountId, project_id: ctx.projectId, namespace: ctx.namespace, state: 'created', state_description: 'Task accepted.',
      paused_from: null, active: 1, cancelled: 0, source_type: s.type, bucket: spec.bucket, prefix: spec.prefix, region: spec.region ?? null,
      endpoint: spec.endpoint ?? null, filter_glob: req.filter_glob || null, credentials: this.d.cipher.encrypt(creds, id), credentials_version: 1,
      completion: JSON.stringify(targets), acknowledge_egress_cost: req.acknowledge_egress_cost ? 1 : 0, file_cap: this.d.fileCap,
      list_cursor: null, listing_done: 0, stop_reason: null, files_found: 0, bytes_found: 0, run: 1, driver_job_id: null, last_error: null,
      created_at: now, updated_at: now, started_at: null, finished_at: null,
      sync: req.sync ? 1 : 0, delete_missing: req.sync?.delete_missing ? 1 : 0, interval_seconds: req.sync?.interval_seconds ?? null,
      next_run_at: null, files_deleted: 0,
    };
    await this.d.store.insert(row);
    const queued = await this.d.store.transition(id, 'queued_org', { state_description: 'Queued.' }, { from: ['created'] });
    if (queued) await this.ensureDriver(queued);
    this.d.logger.info({ task_id: id, project_id: ctx.projectId, source: s.type, bucket: spec.bucket }, 'bucket task created');
    return { task: await this.view((await this.d.store.get(id))!) };
  }

  async get(ctx: ProjectContext, id: string): Promise<TaskView> {
    return this.view(await this.d.store.getForProject(ctx.projectId, id));
  }

  /** Pause a running task (idempotent for a paused one). @throws AppError task_not_active (409) when finished */
  async pause(ctx: ProjectContext, id: string): Promise<TaskView> {
    const task = await this.d.store.getForProject(ctx.projectId, id);
    if (isTerminal(task.state)) throw new AppError('task_not_active', `${finishedSentence(task)}; there is nothing to pause.`);
    if (isRunning(task.state)) {
      await this.d.store.transition(id, 'paused_user', {
        paused_from: phaseOf(task.state as TaskState),
        state_description: 'Paused by the user: no new files start; files already in flight finish. POST …/resume continues from where it stopped.',
      }, { from: [task.state as TaskState] });
    }
    return this.get(ctx, id);
  }

  /** Resume a paused task to the phase it paused in (idempotent for a running one). @throws task_not_active (409) */
  async resume(ctx: ProjectContext, id: string): Promise<TaskView> {
    const task = await this.d.store.getForProject(ctx.projectId, id);
    if (isTerminal(task.state)) {
      // A cancelled task cannot be retried (retryFailed answers 409 task_cancelled): do not point there.
      const next = task.cancelled ? 'start a new task to ingest the rest' : 'use retryFailed to re-run its failed files';
      throw new AppError('task_not_active', `${finishedSentence(task)}; ${next}.`);
    }
    if (isPaused(task.state)) await this.resumeFrom(task);
    else await this.ensureDriver(task);
    return this.get(ctx, id);
  }

  private async resumeFrom(task: TaskRow): Promise<void> {
    const to = (task.paused_from ?? 'queued_org') as TaskPhase;
    const r = await this.d.store.transition(task.id, to, { paused_from: null, state_description: 'Resumed.', last_error: null }, { from: [task.state as TaskState] });
    if (r) await this.ensureDriver(r);
  }

  /**
   * Cancel: the task ends `failed` with a description saying so (DESIGN.md §5); files not yet ingested are
   * dropped and their queued ingest jobs cancelled; documents already ingested stay. Idempotent.
   * @throws AppError task_not_active (409) when the task had already finished on its own
   */
  async cancel(ctx: ProjectContext, id: string): Promise<TaskView> {
    const task = await this.d.store.getForProject(ctx.projectId, id);
    if (isTerminal(task.state)) {
      if (task.cancelled) return this.view(task);
      if (task.next_run_at) {
        // A repeating sync task between runs: cancelling stops the schedule; its documents stay.
        await this.d.store.patch(id, { cancelled: 1, next_run_at: null, state_description: `${task.state_description} Repeats cancelled by the user at ${nowIso()}.` });
        return this.get(ctx, id);
      }
      throw new AppError('task_not_active', `The task has already finished (${task.state}); there is nothing to cancel.`);
    }
    const done = await this.d.store.fileCounts(id);
    const description = `Cancelled by the user at ${nowIso()}: ${done.done} file(s) had been ingested and stay searchable; files not yet ingested were dropped (a cancelled task cannot be resumed or retried: start a new task for them).`;
    const from: TaskState[] = [...RUNNING_FROM, ...(['paused_credit_exhausted', 'paused_credential_error', 'paused_destination_credential_error', 'paused_egress_quota_exhausted', 'paused_user'] as TaskState[])];
    const r = await finishTask(this.driverDeps(), task, 'failed', description, {
      extra: { cancelled: 1 }, from,
      inTx: async (trx) => {
        await trx.updateTable('bucket_task_files').set({ state: 'cancelled', updated_at: nowIso() })
          .where('task_id', '=', id).where('state', 'in', ['pending', 'fetching']).execute();
      },
    });
    if (!r) return this.cancel(ctx, id); // it moved meanwhile (e.g. finished): answer for the new state
    for (const jobId of await this.d.store.queuedJobIds(id)) {
      await this.d.queue.cancel(task.project_id, jobId).catch((err) => this.d.logger.warn({ err, job_id: jobId }, 'cancelling an ingest job of a bucket task failed'));
    }
    await this.d.store.reconcileJobs(id);
    await this.d.store.cp.db.updateTable('bucket_task_files').set({ state: 'cancelled', updated_at: nowIso() })
      .where('task_id', '=', id).where('state', '=', 'failed').where('error_code', '=', 'job_cancelled').execute();
    return this.get(ctx, id);
  }

  /**
   * End the unfinished tasks of a project that is being deleted (they would otherwise keep ingesting into
   * a purged namespace and hold the account's one active slot). They end `failed`, described as such.
   */
  async cancelForProject(projectId: string): Promise<number> {
    const rows = await this.d.store.cp.db.selectFrom('bucket_tasks').selectAll().where('project_id', '=', projectId).where('active', '=', 1).execute();
    let n = 0;
    for (const task of rows) {
      const r = await finishTask(this.driverDeps(), task, 'failed', `Cancelled because the project was deleted at ${nowIso()}.`, {
        extra: { cancelled: 1 }, from: [task.state as TaskState],
        inTx: async (trx) => {
          await trx.updateTable('bucket_task_files').set({ state: 'cancelled', updated_at: nowIso() })
            .where('task_id', '=', task.id).where('state', 'in', ['pending', 'fetching']).execute();
        },
      });
      if (!r) continue;
      n++;
      for (const jobId of await this.d.store.queuedJobIds(task.id)) await this.d.queue.cancel(projectId, jobId).catch(() => undefined);
    }
    return n;
  }

  /** A page of per-file failures. `cursor` is the opaque next_cursor of the previous page. */
  async failures(ctx: ProjectContext, id: string, limit: number, cursor?: string): Promise<FailuresPage> {
    await this.d.store.getForProject(ctx.projectId, id);
    const after = cursor ? decodeFailuresCursor(cursor) : undefined; // an empty cursor= is the first page
    const rows = await this.d.store.failures(id, limit + 1, after);
    const page = rows.slice(0, limit);
    return {
      bucket_ingest_task_id: id,
      failures: page.map((f) => ({
        key: f.key, size: Number(f.size), error_code: f.error_code, error_message: f.error_message,
        job_id: f.error_code && PRE_INGEST_ERRORS.has(f.error_code) ? null : f.job_id, failed_at: f.updated_at,
      })),
      next_cursor: rows.length > limit ? encodeFailuresCursor(page[page.length - 1].key) : null,
    };
  }

  /**
   * Re-queue the failed files (except those over the size limit) as new ingest jobs. A finished task is
   * re-opened (run + 1: its end is notified again); an active one just picks them up.
   * @throws AppError task_cancelled (409), task_already_active (409) when another task of the account is active
   */
  async retryFailed(ctx: ProjectContext, id: string): Promise<TaskView & { retried: number }> {
    const task = await this.d.store.getForProject(ctx.projectId, id);
    if (task.cancelled) throw new AppError('task_cancelled', 'The task was cancelled; start a new task instead of retrying it.');
    const failed = await this.d.store.cp.db.selectFrom('bucket_task_files').select('key').where('task_id', '=', id).where('state', '=', 'failed')
      .where((eb) => eb.or([eb('error_code', 'is', null), eb('error_code', 'not in', [...NOT_RETRIED])])).execute();
    if (failed.length === 0) return { ...(await this.view(task)), retried: 0 };
    const resetFiles = async (trx: Parameters<TaskStore['setFile']>[4]) => {
      for (const f of failed) {
        await this.d.store.setFile(id, f.key, { state: 'pending', job_id: crypto.randomUUID(), doc_id: null, attempts: 0, error_code: null, error_message: null }, ['failed'], trx);
      }
    };
    if (isTerminal(task.state)) {
      const to: TaskState = task.listing_done ? 'materialising' : 'listing';
      const r = await this.d.store.transition(id, to, {
        run: task.run + 1, finished_at: null, paused_from: null, last_error: null, next_run_at: null,
        state_description: `Retrying ${failed.length} failed file(s).`,
      }, { from: [task.state as TaskState], inTx: async (trx) => resetFiles(trx) });
      if (!r) return this.retryFailed(ctx, id);
      await this.ensureDriver(r);
    } else {
      await this.d.store.cp.db.transaction().execute(async (trx) => resetFiles(trx));
      await this.ensureDriver(task);
    }
    return { ...(await this.get(ctx, id)), retried: failed.length };
  }

  /**
   * Replace the source credentials. They are tried first (one listing call); a paused_credential_error
   * task then resumes. @throws AppError validation_failed, source_access_denied (400), task_not_active (409)
   */
  async replaceCredentials(ctx: ProjectContext, id: string, credentials: unknown): Promise<TaskView> {
    const task = await this.d.store.getForProject(ctx.projectId, id);
    if (isTerminal(task.state)) throw new AppError('task_not_active', `${finishedSentence(task)}; its credentials are no longer used.`);
    const creds = validateCredentials(task.source_type as SourceType, credentials);
    await this.probe(task, creds);
    await this.d.store.patch(id, { credentials: this.d.cipher.encrypt(creds, id), credentials_version: task.credentials_version + 1, last_error: null });
    this.d.logger.info({ task_id: id }, 'bucket task credentials replaced');
    const fresh = (await this.d.store.get(id))!;
    if (fresh.state === 'paused_credential_error') await this.resumeFrom(fresh);
    return this.get(ctx, id);
  }

  /** Try new credentials with one small listing call. */
  private async probe(task: TaskRow, creds: SourceCredentials): Promise<void> {
    let source;
    try {
      source = await openSource({ type: task.source_type as SourceType, bucket: task.bucket, prefix: task.prefix, region: task.region, endpoint: task.endpoint }, creds, this.d.net);
      await source.list(null, 1);
    } catch (err) {
      if (isSourceError(err) && (err.kind === 'auth' || err.kind === 'bucket_not_found' || err.kind === 'invalid')) {
        throw new AppError('source_access_denied', `The bucket did not accept the new credentials: ${err.message}`);
      }
      this.d.logger.warn({ task_id: task.id, err: (err as Error).message }, 'could not verify new bucket credentials; storing them anyway');
    } finally {
      source?.close();
    }
  }

  /**
   * Make sure a running task has a live driver job: enqueue one when it has none or its last one ended
   * (a driver that failed for good fails the task). Safe to call concurrently (compare-and-set).
   */
  async ensureDriver(task: TaskRow): Promise<void> {
    if (!isRunning(task.state)) return;
    const old = task.driver_job_id;
    if (old) {
      const j = await this.d.queue.get(old);
      if (j && (j.status === 'pending' || j.status === 'processing')) return;
      if (j && j.status === 'failed') {
        await finishTask(this.driverDeps(), task, 'failed',
          `Failed: the task could not be driven to the end because of a server error (${j.error_message ?? j.error_code}).`, { from: [task.state as TaskState] });
        return;
      }
    }
    const jobId = crypto.randomUUID();
    await this.d.store.cp.db.transaction().execute(async (trx) => {
      const q = trx.updateTable('bucket_tasks').set({ driver_job_id: jobId, updated_at: nowIso() }).where('id', '=', task.id);
      const r = await (old ? q.where('driver_job_id', '=', old) : q.where('driver_job_id', 'is', null)).executeTakeFirst();
      if (Number(r.numUpdatedRows) === 0) return;
      await this.d.queue.enqueue({ id: jobId, projectId: task.project_id, kind: DRIVER_JOB_KIND, filename: `bucket-task-${task.id}`, size: 0, maxAttempts: 8, payload: { taskId: task.id } }, trx);
    });
  }

  /**
   * Watchdog: ensure every running task has a driver (after restarts, or a driver that stopped early),
   * and start the next run of each repeating sync task that is due.
   */
  async superviseAll(): Promise<void> {
    for (const t of await this.d.store.running()) await this.ensureDriver(t);
    for (const t of await this.d.store.dueSyncRuns()) {
      const next = await startNextRun(this.d.store, t);
      if (next) {
        this.d.logger.info({ task_id: t.id, run: next.run }, 'sync run started');
        await this.ensureDriver(next);
      }
    }
  }
}
