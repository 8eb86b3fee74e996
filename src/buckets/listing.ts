// One checkpointed listing step: fetch the page after the task's cursor, keep the objects the filter
// takes, and — in ONE transaction — insert them as pending files and advance the cursor. A crash before
// the commit re-lists the same page; after it, the next page. Limits are applied here: objects over
// 500 MB are recorded as failed without being fetched; the file cap and the 500 GB task limit stop the
// listing (the task then ends done_with_errors once everything taken so far is ingested).
import crypto from 'node:crypto';
import { nowIso } from '../storage/db.ts';
import type { BucketSource } from './sources/index.ts';
import type { FileRow, TaskRow, TaskStore } from './task-store.ts';
import { LIST_PAGE_SIZE, MAX_FILE_BYTES, MAX_TASK_BYTES } from './limits.ts';
import { classifyObjects } from './sync.ts';

export type StopReason = 'file_cap' | 'task_size_limit';

export interface ListStepResult {
  /** Objects in the page (before filtering). */
  listed: number;
  /** New files recorded (pending or failed as too large). */
  added: number;
  /** True when the listing is complete (no further page, or stopped by a limit). */
  done: boolean;
  stopReason?: StopReason;
  task: TaskRow;
}

/**
 * List the next page of `task` and record it.
 * @param filter predicate from objectFilter()
 * @throws SourceError from the source (the caller decides: pause, retry or fail)
 */
export async function listStep(store: TaskStore, task: TaskRow, source: BucketSource, filter: (key: string) => boolean,
  opts: { pageSize?: number; maxFileBytes?: number; maxTaskBytes?: number; signal?: AbortSignal } = {}): Promise<ListStepResult> {
  const page = await source.list(task.list_cursor, opts.pageSize ?? LIST_PAGE_SIZE, opts.signal);
  const maxFile = opts.maxFileBytes ?? MAX_FILE_BYTES;
  const maxTask = opts.maxTaskBytes ?? MAX_TASK_BYTES;
  const matched = page.objects.filter((o) => filter(o.key));
  return store.cp.db.transaction().execute(async (trx) => {
    const fresh = await trx.selectFrom('bucket_tasks').selectAll().where('id', '=', task.id).executeTakeFirstOrThrow();
    // The driver is the only writer of the cursor; if it moved, this page was already recorded.
    if (fresh.list_cursor !== task.list_cursor || fresh.listing_done) return { listed: page.objects.length, added: 0, done: Boolean(fresh.listing_done), task: fresh };
    let found = await store.countFiles(task.id, trx);
    let bytes = Number(fresh.bytes_found);
    let stopReason: StopReason | undefined;
    const now = nowIso();
    const rows: FileRow[] = [];
    // Sync mode: objects the namespace holds unchanged are recorded done and never fetched (sync.ts).
    const changes = fresh.sync ? await classifyObjects(trx, fresh, matched) : undefined;
    for (const o of matched) {
      if (found >= fresh.file_cap) { stopReason = 'file_cap'; break; }
      const known = changes?.get(o.key);
      const base = { task_id: task.id, key: o.key, size: o.size, etag: o.etag ?? null, job_id: crypto.randomUUID(), doc_id: null, attempts: 0, updated_at: now, change: known?.change ?? null };
      if (known?.change === 'unchanged') {
        rows.push({ ...base, state: 'done', doc_id: known.docId, error_code: null, error_message: null });
      } else if (o.size > maxFile) {
        rows.push({ ...base, state: 'failed', error_code: 'file_too_large',
          error_message: `The object is ${o.size} bytes; bucket tasks take files of at most ${maxFile} bytes (500 MB), so it was not fetched.` });
      } else {
        if (bytes + o.size > maxTask) { stopReason = 'task_size_limit'; break; }
        bytes += o.size;
        rows.push({ ...base, state: 'pending', error_code: null, error_message: null });
      }
      found++;
    }
    await store.insertFiles(trx, rows);
    const done = Boolean(stopReason) || page.nextCursor === null;
    const updated = await trx.updateTable('bucket_tasks').set({
      list_cursor: stopReason ? fresh.list_cursor : page.nextCursor, listing_done: done ? 1 : 0,
      stop_reason: stopReason ?? null, files_found: await store.countFiles(task.id, trx), bytes_found: bytes, updated_at: nowIso(),
    }).where('id', '=', task.id).returningAll().executeTakeFirstOrThrow();
    return { listed: page.objects.length, added: rows.length, done, stopReason, task: updated };
  });
}
