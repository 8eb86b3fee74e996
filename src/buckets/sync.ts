// Sync mode of a bucket task (docs/sync.md): keep a namespace in step with its bucket. At listing time each
// object is compared with the document the namespace holds from it (same source key, ingest/
// source-identity.ts): same ETag and size -> unchanged (recorded done, never fetched), otherwise new or
// changed (fetched and ingested; a changed one replaces its document in one step). Once every object is
// processed, `delete_missing` deletes the documents of this bucket, prefix and glob whose objects were
// not listed. A repeating task starts its next run `interval_seconds` after a run ends.
import { sql } from 'kysely';
import type { DocumentService } from '../documents/document-service.ts';
import { bucketSourceKey } from '../ingest/source-identity.ts';
import { nowIso } from '../storage/db.ts';
import type { SourceObject } from './sources/index.ts';
import type { TaskRow, TaskStore, Trx } from './task-store.ts';
import { objectFilter } from './object-filter.ts';

/** Shortest interval between sync runs, s: one listing of a large bucket takes longer than this anyway. */
export const MIN_SYNC_INTERVAL_S = 1;
/** Longest interval between sync runs, s (30 days). */
export const MAX_SYNC_INTERVAL_S = 30 * 24 * 3600;

export type Change = 'new' | 'changed' | 'unchanged';

/** Per-run sync counts of a task view (docs/sync.md). */
export interface SyncCounts {
  files_new: number;
  files_changed: number;
  files_unchanged: number;
  files_deleted: number;
  files_failed: number;
}

/**
 * Compare listed objects with the namespace: for each key, whether it is new, changed or unchanged, and
 * the document it came from. An object without an ETag is never unchanged (its bytes decide, at ingest).
 */
export async function classifyObjects(trx: Trx, task: TaskRow, objects: SourceObject[]): Promise<Map<string, { change: Change; docId: string | null }>> {
  const out = new Map<string, { change: Change; docId: string | null }>();
  if (objects.length === 0) return out;
  const keyOf = new Map(objects.map((o) => [bucketSourceKey(task.source_type, task.bucket, o.key), o]));
  const docs = await trx.selectFrom('documents').select(['doc_id', 'source_key', 'source_etag', 'size', 'state'])
    .where('project_id', '=', task.project_id).where('source_key', 'in', [...keyOf.keys()]).execute();
  const bySource = new Map(docs.map((d) => [d.source_key!, d]));
  for (const [sourceKey, o] of keyOf) {
    const d = bySource.get(sourceKey);
    if (!d || d.state !== 'visible') out.set(o.key, { change: 'new', docId: null });
    else if (o.etag && d.source_etag === o.etag && Number(d.size) === o.size) out.set(o.key, { change: 'unchanged', docId: d.doc_id });
    else out.set(o.key, { change: 'changed', docId: d.doc_id });
  }
  return out;
}

/** The current run's counts: files by change and outcome, and the documents deleted. */
export async function syncCounts(store: TaskStore, task: TaskRow, db: Trx | TaskStore['cp']['db'] = store.cp.db): Promise<SyncCounts> {
  const rows = await db.selectFrom('bucket_task_files')
    .select(['state', 'change', (eb) => eb.fn.countAll<number>().as('n')])
    .where('task_id', '=', task.id).groupBy(['state', 'change']).execute();
  const c: SyncCounts = { files_new: 0, files_changed: 0, files_unchanged: 0, files_deleted: Number(task.files_deleted), files_failed: 0 };
  for (const r of rows) {
    const n = Number(r.n);
    if (r.state === 'failed') c.files_failed += n;
    else if (r.state === 'done' && r.change === 'unchanged') c.files_unchanged += n;
    else if (r.state === 'done' && r.change === 'changed') c.files_changed += n;
    else if (r.state === 'done') c.files_new += n;
  }
  return c;
}

/**
 * Delete the documents of the task's bucket, prefix and glob whose objects this run did not list. Each is
 * hidden and counted in one transaction (a restart never counts it twice), then purged; a crash between
 * leaves it hidden for the start-up reconcile to finish.
 * @returns documents deleted by this call
 */
export async function deleteMissing(store: TaskStore, documents: DocumentService, task: TaskRow): Promise<number> {
  const base = bucketSourceKey(task.source_type, task.bucket, '');
  const keep = objectFilter(task.prefix, task.filter_glob);
  const listed = new Set((await store.cp.db.selectFrom('bucket_task_files').select('key').where('task_id', '=', task.id).execute()).map((r) => r.key));
  const docs = await store.cp.db.selectFrom('documents').select(['doc_id', 'source_key'])
    .where('project_id', '=', task.project_id).where('state', '=', 'visible').where('source_key', 'is not', null).execute();
  let deleted = 0;
  for (const d of docs) {
    const sourceKey = d.source_key!;
    if (!sourceKey.startsWith(base)) continue;
    const key = sourceKey.slice(base.length);
    if (!key.startsWith(task.prefix) || !keep(key) || listed.has(key)) continue;
    const hidden = await store.cp.db.transaction().execute(async (trx) => {
      const r = await trx.updateTable('documents').set({ state: 'deleting' })
        .where('project_id', '=', task.project_id).where('doc_id', '=', d.doc_id).where('state', '=', 'visible').executeTakeFirst();
      if (Number(r.numUpdatedRows) === 0) return false;
      await trx.updateTable('bucket_tasks').set({ files_deleted: sql<number>`files_deleted + 1`, updated_at: nowIso() }).where('id', '=', task.id).execute();
      return true;
    });
    if (!hidden) continue;
    await documents.purgeHidden(task.project_id, task.namespace, d.doc_id);
    deleted++;
  }
  return deleted;
}

/**
 * Start the next run of a repeating sync task whose time has come: back to queued_org with run + 1 and
 * the previous run's files and counts cleared, in one transaction.
 * @returns the re-opened task, or undefined when it is not due, was cancelled, or the account has
 *          another active task (it is tried again on the next sweep)
 */
export async function startNextRun(store: TaskStore, task: TaskRow): Promise<TaskRow | undefined> {
  if (!task.next_run_at || task.cancelled || Date.parse(task.next_run_at) > Date.now()) return undefined;
  try {
    return await store.transition(task.id, 'queued_org', {
      run: task.run + 1, next_run_at: null, finished_at: null, started_at: null, list_cursor: null, listing_done: 0, stop_reason: null,
      files_found: 0, bytes_found: 0, files_deleted: 0, last_error: null, paused_from: null, state_description: `Sync run ${task.run + 1} queued.`,
    }, {
      from: [task.state as 'done' | 'done_with_errors' | 'failed'],
      inTx: async (trx) => { await trx.deleteFrom('bucket_task_files').where('task_id', '=', task.id).execute(); },
    });
  } catch (err) {
    if ((err as { code?: string }).code === 'task_already_active') return undefined;
    throw err;
  }
}
