// Control-plane access for bucket tasks and their files. Every state change is a compare-and-set on the
// current state (checked against the state machine first), so concurrent actors — the driver, pause,
// cancel, resume, a second worker process — can never both win a transition; the "one active task per
// account" rule is the partial unique index bucket_tasks_one_active.
import type { Selectable, Transaction } from 'kysely';
import { AppError } from '../internal/errors.ts';
import { nowIso, type ControlPlane } from '../storage/db.ts';
import type { BucketTasksTable, BucketTaskFilesTable, Database } from '../storage/schema.ts';
import { isUniqueViolation } from '../jobs/queue-support.ts';
import { assertTransition, isActive, statesLeadingTo, type TaskState } from './task-states.ts';

export type TaskRow = Selectable<BucketTasksTable>;
export type FileRow = Selectable<BucketTaskFilesTable>;
export type Trx = Transaction<Database>;
export type FileState = 'pending' | 'fetching' | 'queued' | 'done' | 'failed' | 'cancelled';

export interface FileCounts {
  pending: number; fetching: number; queued: number; done: number; failed: number; cancelled: number;
  /** Bytes of files whose ingest is done. */
  bytesDone: number;
}

/** Discovered objects per INSERT, so one statement's bound parameters stay bounded whatever a listing returns. */
const BATCH = 500;

export class TaskStore {
  constructor(readonly cp: ControlPlane) {}

  /**
   * Insert a new task (state created, active).
   * @throws AppError task_already_active (409) when the account already has an active task; its id and
   *         state are in `details` only when it belongs to the same project
   */
  async insert(row: TaskRow): Promise<void> {
    try {
      await this.cp.db.insertInto('bucket_tasks').values(row).execute();
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      const other = await this.activeForAccount(row.account_id);
      // The active task is named only to its own project: another project's ids and states stay hidden.
      if (other && other.project_id === row.project_id) {
        throw new AppError('task_already_active', 'This project already has an active bucket ingest task; wait for it to finish, or cancel it, before starting another.',
          { active_task_id: other.id, active_task_state: other.state });
      }
      throw new AppError('task_already_active', 'Another project of this account has an active bucket ingest task (one per account); it must finish, or be cancelled, before another can start.');
    }
  }

  async get(id: string): Promise<TaskRow | undefined> {
    return this.cp.db.selectFrom('bucket_tasks').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The task, if it belongs to the project. @throws AppError bucket_task_not_found (404) */
  async getForProject(projectId: string, id: string): Promise<TaskRow> {
    const row = await this.cp.db.selectFrom('bucket_tasks').selectAll().where('id', '=', id).where('project_id', '=', projectId).executeTakeFirst();
    if (!row) throw new AppError('bucket_task_not_found', `No bucket ingest task ${id.slice(0, 64)} in this project.`);
    return row;
  }

  async activeForAccount(accountId: string): Promise<TaskRow | undefined> {
    return this.cp.db.selectFrom('bucket_tasks').selectAll().where('account_id', '=', accountId).where('active', '=', 1).executeTakeFirst();
  }

  /** Tasks in a running state (for the driver watchdog). */
  async running(): Promise<TaskRow[]> {
    return this.cp.db.selectFrom('bucket_tasks').selectAll().where('state', 'in', ['created', 'queued_org', 'listing', 'materialising']).execute();
  }

  /** Finished repeating sync tasks whose next run is due. */
  async dueSyncRuns(): Promise<TaskRow[]> {
    return this.cp.db.selectFrom('bucket_tasks').selectAll()
      .where('next_run_at', 'is not', null).where('next_run_at', '<=', nowIso()).where('cancelled', '=', 0)
      .where('state', 'in', ['done', 'done_with_errors', 'failed']).execute();
  }

  /** Update fields without a state change. */
  async patch(id: string, fields: Partial<TaskRow>, db: Trx | ControlPlane['db'] = this.cp.db): Promise<void> {
    await db.updateTable('bucket_tasks').set({ ...fields, updated_at: nowIso() }).where('id', '=', id).execute();
  }

  /**
   * Move a task to `to` if it is currently in one of `from` (default: every state the machine allows).
   * Sets `active` from the target state. Runs `inTx` in the same transaction when the move happened.
   * @returns the updated row, or undefined when the task was not in an allowed state (someone else moved it)
   */
  async transition(id: string, to: TaskState, fields: Partial<TaskRow> = {}, opts: { from?: TaskState[]; inTx?: (trx: Trx, row: TaskRow) => Promise<void> } = {}): Promise<TaskRow | undefined> {
    const from = opts.from ?? statesLeadingTo(to);
    for (const f of from) assertTransition(f, to);
    if (from.length === 0) return undefined;
    return this.cp.db.transaction().execute(async (trx) => {
      const row = await trx.updateTable('bucket_tasks')
        .set({ ...fields, state: to, active: isActive(to) ? 1 : 0, updated_at: nowIso() })
        .where('id', '=', id).where('state', 'in', from)
        .returningAll().executeTakeFirst();
      if (row && opts.inTx) await opts.inTx(trx, row);
      return row;
    }).catch((err: unknown) => {
      if (isUniqueViolation(err)) {
        throw new AppError('task_already_active', 'Another bucket ingest task of this account is active; it must finish (or be cancelled) first.');
      }
      throw err;
    });
  }

  // ---- files ----

  /** Insert discovered files (existing keys are left alone: a re-listed page after a crash adds nothing). */
  async insertFiles(trx: Trx, rows: FileRow[]): Promise<void> {
    for (let i = 0; i < rows.length; i += BATCH) {
      await trx.insertInto('bucket_task_files').values(rows.slice(i, i + BATCH))
        .onConflict((oc) => oc.columns(['task_id', 'key']).doNothing()).execute();
    }
  }

  async countFiles(taskId: string, db: Trx | ControlPlane['db'] = this.cp.db): Promise<number> {
    const r = await db.selectFrom('bucket_task_files').select((eb) => eb.fn.countAll<number>().as('n')).where('task_id', '=', taskId).executeTakeFirst();
    return Number(r?.n ?? 0);
  }

  async fileCounts(taskId: string, db: Trx | ControlPlane['db'] = this.cp.db): Promise<FileCounts> {
    const rows = await db.selectFrom('bucket_task_files')
      .select(['state', (eb) => eb.fn.countAll<number>().as('n'), (eb) => eb.fn.sum<number>('size').as('bytes')])
      .where('task_id', '=', taskId).groupBy('state').execute();
    const c: FileCounts = { pending: 0, fetching: 0, queued: 0, done: 0, failed: 0, cancelled: 0, bytesDone: 0 };
    for (const r of rows) {
      if (r.state in c) c[r.state as FileState] = Number(r.n);
      if (r.state === 'done') c.bytesDone = Number(r.bytes ?? 0);
    }
    return c;
  }

  /** Mark up to `n` pending files fetching (lowest keys first) and return them. */
  async claimPending(taskId: string, n: number): Promise<FileRow[]> {
    if (n <= 0) return [];
    const rows = await this.cp.db.selectFrom('bucket_task_files').selectAll()
      .where('task_id', '=', taskId).where('state', '=', 'pending').orderBy('key').limit(n).execute();
    if (!rows.length) return [];
    await this.cp.db.updateTable('bucket_task_files').set({ state: 'fetching', updated_at: nowIso() })
      .where('task_id', '=', taskId).where('state', '=', 'pending').where('key', 'in', rows.map((r) => r.key)).execute();
    return rows.map((r) => ({ ...r, state: 'fetching' }));
  }

  /** Update one file, optionally only when it is in `expect`. @returns true when a row changed */
  async setFile(taskId: string, key: string, fields: Partial<FileRow>, expect?: FileState[], db: Trx | ControlPlane['db'] = this.cp.db): Promise<boolean> {
    let q = db.updateTable('bucket_task_files').set({ ...fields, updated_at: nowIso() }).where('task_id', '=', taskId).where('key', '=', key);
    if (expect) q = q.where('state', 'in', expect);
    const r = await q.executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /** Files left 'fetching' by a driver that stopped: back to pending (only one driver runs per task). */
  async resetFetching(taskId: string): Promise<void> {
    await this.cp.db.updateTable('bucket_task_files').set({ state: 'pending', updated_at: nowIso() })
      .where('task_id', '=', taskId).where('state', '=', 'fetching').execute();
  }

  /**
   * Fold the outcomes of finished ingest jobs into their files (queued -> done | failed).
   * @returns how many files changed
   */
  async reconcileJobs(taskId: string): Promise<number> {
    const rows = await this.cp.db.selectFrom('bucket_task_files as f').innerJoin('jobs as j', 'j.id', 'f.job_id')
      .select(['f.key', 'j.status', 'j.code', 'j.error_code', 'j.error_message', 'j.doc_id'])
      .where('f.task_id', '=', taskId).where('f.state', '=', 'queued').where('j.status', 'in', ['done', 'failed']).execute();
    for (const r of rows) {
      const fields: Partial<FileRow> = r.status === 'done'
        ? { state: 'done', doc_id: r.doc_id, error_code: null, error_message: null }
        : { state: 'failed', error_code: r.error_code ?? 'ingest_failed', error_message: `${r.error_message ?? 'The ingest job failed.'} (job status code ${r.code})` };
      await this.setFile(taskId, r.key, fields, ['queued']);
    }
    return rows.length;
  }

  /** A page of failed files, by key. */
  async failures(taskId: string, limit: number, after?: string): Promise<FileRow[]> {
    let q = this.cp.db.selectFrom('bucket_task_files').selectAll().where('task_id', '=', taskId).where('state', '=', 'failed');
    if (after) q = q.where('key', '>', after);
    return q.orderBy('key').limit(limit).execute();
  }

  /** Job ids of files whose ingest job may still be pending (for cancel). */
  async queuedJobIds(taskId: string): Promise<string[]> {
    const rows = await this.cp.db.selectFrom('bucket_task_files').select('job_id').where('task_id', '=', taskId).where('state', '=', 'queued').execute();
    return rows.map((r) => r.job_id);
  }
}
