// The public shape of a bucket ingest task (spec "Bucket ingest task": id, state, state_description,
// poll_url, polling_guidance; the rest is ours, docs/buckets.md) and the human sentences that describe
// each state. Credentials are never part of a view; the completion targets are reported only by count.
import type { FileCounts, TaskRow } from './task-store.ts';
import type { SyncCounts } from './sync.ts';
import { POLLING_GUIDANCE } from './limits.ts';
import { isPaused, isTerminal } from './task-states.ts';

export interface TaskView {
  bucket_ingest_task_id: string;
  state: string;
  state_description: string;
  poll_url: string;
  polling_guidance: { min_interval_seconds: number; max_interval_seconds: number };
  project_id: string;
  source: { type: string; bucket: string; prefix: string; region: string | null; endpoint: string | null };
  filter_glob: string | null;
  /** For a paused task: the phase resume returns to. */
  resume_state: string | null;
  cancelled: boolean;
  progress: {
    files_found: number; files_pending: number; files_in_flight: number; files_done: number; files_failed: number;
    files_cancelled: number; bytes_found: number; bytes_ingested: number; listing_complete: boolean;
  };
  file_cap: number;
  /** Why listing stopped before the end of the bucket: 'file_cap' | 'task_size_limit' | null. */
  stop_reason: string | null;
  /** 1 for the first run; +1 per retryFailed re-run and per sync run. */
  run: number;
  /** Sync mode (docs/sync.md; an extension): its settings and the current run's counts; null for a plain task. */
  sync: (SyncCounts & { delete_missing: boolean; interval_seconds: number | null; next_run_at: string | null }) | null;
  completion_targets: number;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  finished_at: string | null;
}

/** Path of a task's status endpoint (relative to the server origin; `{base_url}` ends in /v3). */
export function pollUrl(id: string): string {
  return `/v3/docsearch/ingestBucket/${id}`;
}

const n = (x: number) => x.toLocaleString('en-US');

/** Live sentence for a running task (stored descriptions are used for paused and terminal ones). */
function liveDescription(t: TaskRow, c: FileCounts): string {
  const inFlight = c.fetching + c.queued;
  switch (t.state) {
    case 'created': return 'Task accepted; waiting to be queued.';
    case 'queued_org': return 'Queued: waiting for a free task slot on the workers.';
    case 'listing':
      if (t.stop_reason === 'file_cap') return `File cap of ${n(t.file_cap)} reached while listing; ingesting the ${n(t.files_found)} files found up to the cap (${n(c.done)} done, ${n(inFlight)} in flight, ${n(c.pending)} waiting). The task will end done_with_errors.`;
      if (t.stop_reason === 'task_size_limit') return `The 500 GB task limit was reached while listing; ingesting the ${n(t.files_found)} files taken so far. The task will end done_with_errors.`;
      return `Listing the bucket: ${n(t.files_found)} matching objects found so far; ${n(c.done)} ingested, ${n(inFlight)} in flight.`;
    case 'materialising':
      return `All ${n(t.files_found)} matching objects listed; ingesting: ${n(c.done)} done, ${n(c.failed)} failed, ${n(inFlight)} in flight, ${n(c.pending)} waiting.`;
    default: return t.state_description;
  }
}

/** Build the view of a task from its row and file counts (and, for a sync task, its sync counts). */
export function toTaskView(t: TaskRow, c: FileCounts, sync?: SyncCounts): TaskView {
  const stored = isPaused(t.state) || isTerminal(t.state);
  return {
    bucket_ingest_task_id: t.id,
    state: t.state,
    state_description: stored ? t.state_description : liveDescription(t, c),
    poll_url: pollUrl(t.id),
    polling_guidance: { ...POLLING_GUIDANCE },
    project_id: t.project_id,
    source: { type: t.source_type, bucket: t.bucket, prefix: t.prefix, region: t.region, endpoint: t.endpoint },
    filter_glob: t.filter_glob,
    resume_state: isPaused(t.state) ? t.paused_from : null,
    cancelled: Boolean(t.cancelled),
    progress: {
      files_found: Number(t.files_found), files_pending: c.pending, files_in_flight: c.fetching + c.queued,
      files_done: c.done, files_failed: c.failed, files_cancelled: c.cancelled, bytes_found: Number(t.bytes_found),
      bytes_ingested: c.bytesDone, listing_complete: Boolean(t.listing_done),
    },
    file_cap: t.file_cap,
    stop_reason: t.stop_reason,
    run: t.run,
    sync: t.sync && sync ? { delete_missing: Boolean(t.delete_missing), interval_seconds: t.interval_seconds, next_run_at: t.next_run_at, ...sync } : null,
    completion_targets: (JSON.parse(t.completion) as unknown[]).length,
    created_at: t.created_at,
    updated_at: t.updated_at,
    started_at: t.started_at,
    finished_at: t.finished_at,
  };
}

/** The final sentence of a finished run (a sync run names its counts). */
export function finalDescription(t: TaskRow, c: FileCounts, state: 'done' | 'done_with_errors' | 'failed', sync?: SyncCounts): string {
  const total = c.done + c.failed;
  if (sync && !t.stop_reason) {
    const counts = `${n(sync.files_new)} new, ${n(sync.files_changed)} changed, ${n(sync.files_unchanged)} unchanged, ${n(sync.files_deleted)} deleted, ${n(sync.files_failed)} failed`;
    const next = t.interval_seconds ? ` The next run starts ${n(t.interval_seconds)} s after this one ended.` : '';
    return `${state === 'done' ? 'Sync done' : state === 'failed' ? 'Sync failed' : 'Sync finished with errors'}: ${counts}.${next}`;
  }
  const base = `${n(c.done)} of ${n(total)} files ingested, ${n(c.failed)} failed`;
  if (t.stop_reason === 'file_cap') return `Finished with errors: the file cap of ${n(t.file_cap)} was reached while listing, so objects beyond it were not taken; ${base}.`;
  if (t.stop_reason === 'task_size_limit') return `Finished with errors: the 500 GB task limit was reached while listing, so later objects were not taken; ${base}.`;
  if (state === 'failed') return `Failed: every one of the ${n(total)} files failed to ingest; see the failures endpoint.`;
  if (state === 'done_with_errors') return `Finished with errors: ${base}; see the failures endpoint, and retryFailed to re-run them.`;
  return total === 0 ? 'Done: no objects matched the prefix and filter.' : `Done: all ${n(total)} files ingested.`;
}
