// The durable job queue, stored in the control-plane `jobs` table so a restart loses nothing and
// several worker processes can share it (DESIGN.md §2 Workers). A job is claimed with a lease; a
// lease that expires (the worker died) makes the job claimable again; failures retry with backoff
// until `max_attempts`. The same rows are what GET /jobs/{id}/status reports.
import crypto from 'node:crypto';
import { sql, type Selectable } from 'kysely';
import type { ControlPlane } from '../storage/db.ts';
import { nowIso } from '../storage/db.ts';
import type { JobsTable } from '../storage/schema.ts';

export type JobRow = Selectable<JobsTable>;

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
}

/** Result a handler reports for a finished job. */
export interface JobOutcome {
  status: 'done' | 'failed';
  /** HTTP-like outcome code (DESIGN.md §5): 200 done, 4xx input at fault, 5xx ours. */
  code: number;
  errorCode?: string;
  errorMessage?: string;
}

export class JobQueue {
  constructor(private readonly cp: ControlPlane) {}

  /** Insert a pending job; returns its row. */
  async enqueue(job: NewJob): Promise<JobRow> {
    const now = nowIso();
    const row: JobRow = {
      id: job.id ?? crypto.randomUUID(),
      project_id: job.projectId,
      kind: job.kind,
      status: 'pending',
      code: 202,
      error_code: null,
      error_message: null,
      filename: job.filename,
      size: job.size,
      base_url: job.baseUrl ?? null,
      payload: JSON.stringify(job.payload),
      doc_id: job.docId ?? null,
      attempts: 0,
      max_attempts: job.maxAttempts ?? 3,
      run_after: now,
      lease_owner: null,
      lease_expires_at: null,
      created_at: now,
      updated_at: now,
      started_at: null,
      finished_at: null,
    };
    await this.cp.db.insertInto('jobs').values(row).execute();
    return row;
  }

  async get(id: string): Promise<JobRow | undefined> {
    return this.cp.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /**
   * Atomically claim the next runnable job: pending and due, or processing with an expired lease
   * (its worker died). Sets status processing, a lease of `leaseMs`, and increments attempts.
   * @returns the claimed row, or undefined when nothing is runnable.
   */
  async claim(owner: string, leaseMs: number, kinds?: string[]): Promise<JobRow | undefined> {
    const now = nowIso();
    const leaseUntil = new Date(Date.now() + leaseMs).toISOString();
    const lockClause = this.cp.dialect === 'postgres' ? sql` for update skip locked` : sql``;
    const kindClause = kinds && kinds.length ? sql` and kind in (${sql.join(kinds)})` : sql``;
    const result = await sql<JobRow>`
      update jobs set status = 'processing', lease_owner = ${owner}, lease_expires_at = ${leaseUntil},
        attempts = attempts + 1, started_at = coalesce(started_at, ${now}), updated_at = ${now}
      where id = (
        select id from jobs
        where ((status = 'pending' and run_after <= ${now})
           or (status = 'processing' and lease_expires_at < ${now}))${kindClause}
        order by run_after, created_at
        limit 1${lockClause}
      )
      and ((status = 'pending' and run_after <= ${now}) or (status = 'processing' and lease_expires_at < ${now}))
      returning *`.execute(this.cp.db);
    return result.rows[0];
  }

  /** Extend the lease of a job this owner holds. @returns false if the lease was lost. */
  async heartbeat(id: string, owner: string, leaseMs: number): Promise<boolean> {
    const r = await this.cp.db.updateTable('jobs')
      .set({ lease_expires_at: new Date(Date.now() + leaseMs).toISOString(), updated_at: nowIso() })
      .where('id', '=', id).where('lease_owner', '=', owner).where('status', '=', 'processing')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /** Record a terminal outcome (only if this owner still holds the job). */
  async finish(id: string, owner: string, outcome: JobOutcome, extra: { docId?: string } = {}): Promise<boolean> {
    const now = nowIso();
    const r = await this.cp.db.updateTable('jobs')
      .set({
        status: outcome.status, code: outcome.code,
        error_code: outcome.errorCode ?? null, error_message: outcome.errorMessage ?? null,
        lease_owner: null, lease_expires_at: null, finished_at: now, updated_at: now,
        ...(extra.docId ? { doc_id: extra.docId } : {}),
      })
      .where('id', '=', id).where('lease_owner', '=', owner).where('status', '=', 'processing')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /**
   * Put a job back for a later attempt (transient failure), with exponential backoff:
   * delay = min(base · 2^(attempt-1), 5 min).
   */
  async retryLater(id: string, owner: string, attempt: number, error: string, baseMs = 1000): Promise<void> {
    const delay = Math.min(baseMs * 2 ** Math.max(0, attempt - 1), 5 * 60_000);
    await this.cp.db.updateTable('jobs')
      .set({ status: 'pending', lease_owner: null, lease_expires_at: null, error_message: error,
        run_after: new Date(Date.now() + delay).toISOString(), updated_at: nowIso() })
      .where('id', '=', id).where('lease_owner', '=', owner)
      .execute();
  }

  /** Release every job this owner holds back to pending, for the next start (graceful shutdown). */
  async releaseAll(owner: string): Promise<number> {
    const r = await this.cp.db.updateTable('jobs')
      .set({ status: 'pending', lease_owner: null, lease_expires_at: null, run_after: nowIso(), updated_at: nowIso(),
        attempts: sql`case when attempts > 0 then attempts - 1 else 0 end` })
      .where('lease_owner', '=', owner).where('status', '=', 'processing')
      .executeTakeFirst();
    return Number(r.numUpdatedRows);
  }
}
