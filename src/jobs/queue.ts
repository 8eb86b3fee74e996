// The durable job queue, stored in the control-plane `jobs` table so a restart loses nothing and
// several worker processes can share it (DESIGN.md §2 Workers). A job is claimed with a lease; a lease
// that expires (the worker died) makes the job claimable again; failures retry with backoff until
// `max_attempts`. Claims are fair between projects (the project with the fewest running jobs goes
// first). Every terminal transition runs the registered terminal hooks inside the same transaction, so
// a completion webhook or a cleanup is recorded exactly once, or not at all. Rows here are what
// GET /jobs/{id}/status reports; `status_version` counts status and progress changes (the SSE event id).
import crypto from 'node:crypto';
import { EventEmitter } from 'node:events';
import { sql, type Kysely, type Selectable } from 'kysely';
import type { ControlPlane } from '../storage/db.ts';
import { nowIso } from '../storage/db.ts';
import type { Database, JobsTable } from '../storage/schema.ts';
import { isUniqueViolation, leaseOwnerId, releasableOwners } from './queue-support.ts';

export type JobRow = Selectable<JobsTable>;
export type Db = Kysely<Database>;

export interface NewJob {
  id?: string;
  projectId: string;
  kind: string;
  filename: string;
  size: number;
  baseUrl?: string | null;
  docId?: string | null;
  payload: Record<string, unknown>;
  maxAttempts?: number;
  /** Earliest start (default now). */
  runAfter?: string;
  idempotencyKey?: string | null;
  requestFingerprint?: string | null;
}

/** Result a handler reports for a finished job. */
export interface JobOutcome {
  status: 'done' | 'failed';
  /** HTTP-like outcome code (DESIGN.md §5): 200 done, 4xx input at fault, 5xx ours. */
  code: number;
  errorCode?: string;
  errorMessage?: string;
}

/** Runs inside the transaction that made `job` terminal; `previous` is the row before the change. */
export type TerminalHook = (trx: Db, job: JobRow, previous: JobRow) => Promise<void>;

/** Thrown by commitDone when the job is no longer held by the caller (cancelled, lease lost). */
export class JobLostError extends Error {
  constructor(jobId: string) {
    super(`job ${jobId} is no longer held by this worker (cancelled or lease lost)`);
    this.name = 'JobLostError';
  }
}

/** Rolls back enqueueWithinCap's transaction when the new row put its project over the cap. */
class CapReached extends Error {
  constructor(readonly unfinished: number) {
    super(`${unfinished} unfinished jobs`);
    this.name = 'CapReached';
  }
}

export const TERMINAL = new Set(['done', 'failed']);
const bump = sql<number>`status_version + 1`;

export class JobQueue {
  /** 'enqueued' (kind) after an insert; 'changed' (jobId) after a status change made by this process. */
  readonly events = new EventEmitter();
  private readonly hooks: TerminalHook[] = [];

  constructor(private readonly cp: ControlPlane) {
    this.events.setMaxListeners(0);
  }

  /** Register a hook run inside every terminal transition's transaction (webhooks, cleanup). */
  onTerminal(hook: TerminalHook): void {
    this.hooks.push(hook);
  }

  private row(job: NewJob): JobRow {
    const now = nowIso();
    return {
      id: job.id ?? crypto.randomUUID(), project_id: job.projectId, kind: job.kind, status: 'pending', code: 202,
      error_code: null, error_message: null, filename: job.filename, size: job.size, base_url: job.baseUrl ?? null,
      payload: JSON.stringify(job.payload), doc_id: job.docId ?? null, attempts: 0, max_attempts: job.maxAttempts ?? 3,
      run_after: job.runAfter ?? now, lease_owner: null, lease_expires_at: null, created_at: now, updated_at: now,
      started_at: null, finished_at: null, status_version: 0, idempotency_key: job.idempotencyKey ?? null,
      request_fingerprint: job.requestFingerprint ?? null, last_error: null, progress: null,
    };
  }

  /** Insert a pending job (optionally inside a transaction `db`); returns its row. */
  async enqueue(job: NewJob, db: Db = this.cp.db): Promise<JobRow> {
    const row = this.row(job);
    await db.insertInto('jobs').values(row).execute();
    if (db === this.cp.db) this.events.emit('enqueued', row.kind);
    else setImmediate(() => this.events.emit('enqueued', row.kind));
    return row;
  }

  /**
   * Insert a pending job unless its project already has `cap` unfinished (pending or processing) jobs of
   * its kind, the count and the insert being one atomic step: parallel calls never pass the cap together.
   * The row is inserted first and counted with the others in the same transaction, which holds the write
   * lock on SQLite from the insert on; on PostgreSQL a transaction-scoped advisory lock per project and
   * kind orders the callers, since READ COMMITTED would let each miss the other's uncommitted row.
   * @param cap at most this many unfinished jobs of `job.kind` in `job.projectId`, the new one included (> 0)
   * @returns the new row, or `refused` with the number of unfinished jobs found (nothing is inserted)
   * @throws whatever the insert throws (a unique violation of the idempotency key included)
   */
  async enqueueWithinCap(job: NewJob, cap: number): Promise<{ row: JobRow } | { refused: number }> {
    const row = this.row(job);
    const out = await this.cp.db.transaction().execute(async (trx) => {
      if (this.cp.dialect === 'postgres') {
        await sql`select pg_advisory_xact_lock(hashtextextended(${`jobs-cap:${row.project_id}:${row.kind}`}, 0))`.execute(trx);
      }
      await trx.insertInto('jobs').values(row).execute();
      const n = await this.countUnfinished(row.project_id, row.kind, trx);
      // Over the cap: undo the insert by failing the transaction; the count without this row is reported.
      if (n > cap) throw new CapReached(n - 1);
      return { row };
    }).catch((err: unknown) => {
      if (err instanceof CapReached) return { refused: err.unfinished };
      throw err;
    });
    if ('row' in out) this.events.emit('enqueued', row.kind);
    return out;
  }

  /**
   * Insert a job unless the project already has one with the same idempotency key.
   * @param cap when set, the insert is enqueueWithinCap's (refused past `cap` unfinished jobs of the kind)
   * @returns the new row (created true) or the existing one (created false); concurrent inserts with one
   *          key are resolved by the unique index (jobs_idempotency), so exactly one is created; with a cap,
   *          `refused` when the cap was reached and no job has the key
   */
  async enqueueIdempotent(job: NewJob & { idempotencyKey: string }): Promise<{ row: JobRow; created: boolean }>;
  async enqueueIdempotent(job: NewJob & { idempotencyKey: string }, cap: number | undefined): Promise<{ row: JobRow; created: boolean } | { refused: number }>;
  async enqueueIdempotent(job: NewJob & { idempotencyKey: string }, cap?: number): Promise<{ row: JobRow; created: boolean } | { refused: number }> {
    try {
      if (cap === undefined) return { row: await this.enqueue(job), created: true };
      const r = await this.enqueueWithinCap(job, cap);
      return 'row' in r ? { row: r.row, created: true } : r;
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      const existing = await this.findByIdempotencyKey(job.projectId, job.idempotencyKey);
      if (!existing) throw err;
      return { row: existing, created: false };
    }
  }

  async findByIdempotencyKey(projectId: string, key: string): Promise<JobRow | undefined> {
    return this.cp.db.selectFrom('jobs').selectAll().where('project_id', '=', projectId)
      .where('idempotency_key', '=', key).executeTakeFirst();
  }

  /** Jobs of `kind` in project `projectId` that are pending or processing (index jobs_project_status), read through `db`. */
  async countUnfinished(projectId: string, kind: string, db: Db = this.cp.db): Promise<number> {
    const r = await db.selectFrom('jobs').select((eb) => eb.fn.countAll<number>().as('n'))
      .where('project_id', '=', projectId).where('status', 'in', ['pending', 'processing']).where('kind', '=', kind)
      .executeTakeFirst();
    return Number(r?.n ?? 0);
  }

  /** The newest pending or processing job of `kind` in project `projectId`; undefined when none. */
  async latestUnfinished(projectId: string, kind: string): Promise<JobRow | undefined> {
    return this.cp.db.selectFrom('jobs').selectAll().where('project_id', '=', projectId)
      .where('status', 'in', ['pending', 'processing']).where('kind', '=', kind)
      .orderBy('created_at', 'desc').limit(1).executeTakeFirst();
  }

  async get(id: string): Promise<JobRow | undefined> {
    return this.cp.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The project of job `id`, that project's account and the job's kind; undefined for an unknown id. */
  async ownerOf(id: string): Promise<{ project_id: string; account_id: string; kind: string } | undefined> {
    return this.cp.db.selectFrom('jobs').innerJoin('projects', 'projects.id', 'jobs.project_id')
      .select(['jobs.project_id', 'projects.account_id', 'jobs.kind']).where('jobs.id', '=', id).executeTakeFirst();
  }

  /**
   * Atomically claim the next runnable job (pending and due, or processing with an expired lease and
   * attempts left). Fairness: among projects with runnable jobs, the one with the fewest jobs currently
   * processing (of these kinds) goes first, ties by the oldest due job; within a project, oldest first.
   * Sets status processing, a lease of `leaseMs`, and increments attempts.
   * @param skipProjects projects not to claim for (the worker's per-project slot cap; see worker.ts)
   * @returns the claimed row, or undefined when nothing is runnable.
   */
  async claim(owner: string, leaseMs: number, kinds?: string[], skipProjects: string[] = []): Promise<JobRow | undefined> {
    const db = this.cp.db;
    const kindClause = kinds && kinds.length ? sql` and kind in (${sql.join(kinds)})` : sql``;
    const skipClause = skipProjects.length ? sql` and project_id not in (${sql.join(skipProjects)})` : sql``;
    for (let attempt = 0; attempt < 3; attempt++) {
      const now = nowIso();
      const due = sql`((status = 'pending' and run_after <= ${now}) or (status = 'processing' and lease_expires_at < ${now} and attempts < max_attempts))`;
      const pick = await sql<{ project_id: string }>`
        with due as (select project_id, min(run_after) as first_due from jobs where ${due}${kindClause}${skipClause} group by project_id),
        busy as (select project_id, count(*) as n from jobs
                 where status = 'processing' and lease_expires_at >= ${now}${kindClause} group by project_id)
        select due.project_id from due left join busy on busy.project_id = due.project_id
        order by coalesce(busy.n, 0), due.first_due, due.project_id limit 1`.execute(db);
      const projectId = pick.rows[0]?.project_id;
      if (!projectId) return undefined;
      const leaseUntil = new Date(Date.now() + leaseMs).toISOString();
      const lock = this.cp.dialect === 'postgres' ? sql` for update skip locked` : sql``;
      const result = await sql<JobRow>`
        update jobs set status = 'processing', lease_owner = ${owner}, lease_expires_at = ${leaseUntil},
          attempts = attempts + 1, started_at = coalesce(started_at, ${now}), updated_at = ${now},
          status_version = status_version + 1, progress = null
        where id = (select id from jobs where project_id = ${projectId} and ${due}${kindClause}
                    order by run_after, created_at limit 1${lock})
          and ${due}
        returning *`.execute(db);
      const row = result.rows[0];
      if (row) {
        this.events.emit('changed', row.id);
        return row;
      }
    }
    return undefined;
  }

  /**
   * Record the progress of a job this owner is running (JSON of jobs/job-view.ts JobProgress) as a new
   * status version, so status streams send it as an event.
   * @returns false if the job is no longer ours
   */
  async setProgress(id: string, owner: string, progress: string): Promise<boolean> {
    const r = await this.cp.db.updateTable('jobs')
      .set({ progress, updated_at: nowIso(), status_version: bump })
      .where('id', '=', id).where('lease_owner', '=', owner).where('status', '=', 'processing')
      .executeTakeFirst();
    const ours = Number(r.numUpdatedRows) > 0;
    if (ours) this.events.emit('changed', id);
    return ours;
  }

  /** Extend the lease of a job this owner holds. @returns false if the job is no longer ours (cancelled, lease lost). */
  async heartbeat(id: string, owner: string, leaseMs: number): Promise<boolean> {
    const r = await this.cp.db.updateTable('jobs')
      .set({ lease_expires_at: new Date(Date.now() + leaseMs).toISOString() })
      .where('id', '=', id).where('lease_owner', '=', owner).where('status', '=', 'processing')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /** Run `fn` in a transaction and the terminal hooks for `updated` inside it. */
  private async terminalTx<T>(fn: (trx: Db) => Promise<{ updated?: JobRow; previous?: JobRow; value: T }>): Promise<T> {
    let changed: string | undefined;
    const value = await this.cp.db.transaction().execute(async (trx) => {
      const r = await fn(trx);
      if (r.updated && r.previous && TERMINAL.has(r.updated.status)) {
        for (const hook of this.hooks) await hook(trx, r.updated, r.previous);
      }
      changed = r.updated?.id;
      return r.value;
    });
    if (changed) this.events.emit('changed', changed);
    return value;
  }

  /**
   * Record a terminal outcome (only if this owner still holds the job).
   * @returns the updated row, or undefined when the job was no longer ours.
   */
  async finish(id: string, owner: string, outcome: JobOutcome, extra: { docId?: string } = {}): Promise<JobRow | undefined> {
    return this.terminalTx(async (trx) => {
      const previous = await trx.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
      const now = nowIso();
      const updated = await trx.updateTable('jobs')
        .set({
          status: outcome.status, code: outcome.code, error_code: outcome.errorCode ?? null,
          error_message: outcome.errorMessage ?? null, lease_owner: null, lease_expires_at: null,
          finished_at: now, updated_at: now, status_version: bump, ...(extra.docId ? { doc_id: extra.docId } : {}),
        })
        .where('id', '=', id).where('lease_owner', '=', owner).where('status', '=', 'processing')
        .returningAll().executeTakeFirst();
      return { updated, previous, value: updated };
    });
  }

  /**
   * Mark the job done and run `work` (e.g. insert the document row) in ONE transaction, so a result is
   * committed if and only if the job is done (no window where one is visible without the other).
   * @throws JobLostError when this owner no longer holds the job (nothing is written)
   */
  async commitDone(id: string, owner: string, docId: string | undefined, work: (trx: Db) => Promise<void>): Promise<JobRow> {
    return this.terminalTx(async (trx) => {
      const previous = await trx.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
      const now = nowIso();
      const updated = await trx.updateTable('jobs')
        .set({ status: 'done', code: 200, error_code: null, error_message: null, lease_owner: null, lease_expires_at: null,
          finished_at: now, updated_at: now, status_version: bump, ...(docId ? { doc_id: docId } : {}) })
        .where('id', '=', id).where('lease_owner', '=', owner).where('status', '=', 'processing')
        .returningAll().executeTakeFirst();
      if (!updated) throw new JobLostError(id);
      await work(trx);
      return { updated, previous, value: updated };
    });
  }

  /** Put a job back for a later attempt (transient failure) after `delayMs`, keeping the error visible. */
  async retryLater(id: string, owner: string, error: string, delayMs: number): Promise<void> {
    await this.cp.db.updateTable('jobs')
      .set({ status: 'pending', lease_owner: null, lease_expires_at: null, last_error: error.slice(0, 2000),
        run_after: new Date(Date.now() + delayMs).toISOString(), updated_at: nowIso(), status_version: bump })
      .where('id', '=', id).where('lease_owner', '=', owner).where('status', '=', 'processing')
      .execute();
    this.events.emit('changed', id);
  }

  /**
   * Fail jobs whose lease expired with no attempts left (their worker died on every attempt).
   * @returns the number of jobs failed
   */
  async failExhausted(limit = 50): Promise<number> {
    const now = nowIso();
    const rows = await this.cp.db.selectFrom('jobs').selectAll().where('status', '=', 'processing')
      .where('lease_expires_at', '<', now).whereRef('attempts', '>=', 'max_attempts').limit(limit).execute();
    let n = 0;
    for (const previous of rows) {
      const updated = await this.terminalTx(async (trx) => {
        const u = await trx.updateTable('jobs')
          .set({ status: 'failed', code: 500, error_code: 'worker_lost', lease_owner: null, lease_expires_at: null,
            error_message: `Processing stopped unexpectedly on each of ${previous.attempts} attempts (the worker running it was interrupted), so the job was given up. Submit the file again; if it fails the same way, the file may be too large or malformed for this server.`,
            finished_at: nowIso(), updated_at: nowIso(), status_version: bump })
          .where('id', '=', previous.id).where('status', '=', 'processing').where('lease_expires_at', '=', previous.lease_expires_at)
          .returningAll().executeTakeFirst();
        return { updated: u, previous, value: u };
      });
      if (updated) n++;
    }
    return n;
  }

  /**
   * Cancel an unfinished job of a project: pending/processing -> failed (`job_cancelled`).
   * @returns 'cancelled' with the updated and previous rows; 'finished' with the row when it had already
   *          finished (nothing changed); undefined when the project has no such job.
   */
  async cancel(projectId: string, id: string): Promise<{ result: 'cancelled' | 'finished'; job: JobRow; previous: JobRow } | undefined> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const previous = await this.cp.db.selectFrom('jobs').selectAll().where('id', '=', id).where('project_id', '=', projectId).executeTakeFirst();
      if (!previous) return undefined;
      if (TERMINAL.has(previous.status)) return { result: 'finished', job: previous, previous };
      const updated = await this.terminalTx(async (trx) => {
        const now = nowIso();
        const u = await trx.updateTable('jobs')
          .set({ status: 'failed', code: 499, error_code: 'job_cancelled',
            error_message: `The job was cancelled by a DELETE request at ${now} while ${previous.status}; nothing of it was kept in the index.`,
            lease_owner: null, lease_expires_at: null, finished_at: now, updated_at: now, status_version: bump })
          .where('id', '=', id).where('status', '=', previous.status).where('status_version', '=', previous.status_version)
          .returningAll().executeTakeFirst();
        return { updated: u, previous, value: u };
      });
      if (updated) return { result: 'cancelled', job: updated, previous };
    }
    throw new Error(`job ${id} kept changing while it was being cancelled`);
  }

  /** Delete the record of a finished job. @returns false when it was not finished (or not there). */
  async deleteFinished(projectId: string, id: string): Promise<boolean> {
    const r = await this.cp.db.deleteFrom('jobs').where('id', '=', id).where('project_id', '=', projectId)
      .where('status', 'in', ['done', 'failed']).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  /** Release every job this owner holds back to pending, for the next start (graceful shutdown). */
  async releaseAll(owner: string): Promise<number> {
    const r = await this.cp.db.updateTable('jobs')
      .set({ status: 'pending', lease_owner: null, lease_expires_at: null, run_after: nowIso(), updated_at: nowIso(),
        status_version: bump, attempts: sql`case when attempts > 0 then attempts - 1 else 0 end` })
      .where('lease_owner', '=', owner).where('status', '=', 'processing')
      .executeTakeFirst();
    return Number(r.numUpdatedRows);
  }

  /**
   * Expire at once the leases held by worker processes that are provably dead: same host and PID
   * namespace as this process, and their PID no longer exists (see queue-support.ts). Anything else
   * waits for its lease to expire. The attempt still counts (the job may be what killed the process).
   * @returns number of jobs whose lease was expired early
   */
  async expireDeadOwners(): Promise<number> {
    const owners = await this.cp.db.selectFrom('jobs').select('lease_owner').distinct()
      .where('status', '=', 'processing').where('lease_owner', 'is not', null).execute();
    const dead = releasableOwners(owners.map((o) => o.lease_owner!));
    if (dead.length === 0) return 0;
    const r = await this.cp.db.updateTable('jobs').set({ lease_expires_at: new Date(Date.now() - 1).toISOString() })
      .where('status', '=', 'processing').where('lease_owner', 'in', dead).executeTakeFirst();
    return Number(r.numUpdatedRows);
  }
}

export { leaseOwnerId };
