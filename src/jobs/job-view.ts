// The public view of a job, one shape for GET /jobs/{id}/status, the SSE stream's events and the
// completion webhook's `data` (docs/jobs.md). Internal bookkeeping (lease owner, payload) never leaks.
import type { JobRow } from './queue.ts';
import { TERMINAL } from './queue.ts';

/**
 * How far the running (or last) attempt of an ingest has come: `parsing` (pages_parsed of pages_total
 * while a paged format is read), `embedding` (chunks_embedded of chunks_total), `indexing` (the chunks
 * are written and the document committed). Counts appear once known; the last progress stays on a
 * finished job; a new attempt starts without one.
 */
export interface JobProgress {
  /** An ingest's parsing, embedding, indexing; a reindex's rebuilding, then switching. */
  stage: 'parsing' | 'embedding' | 'indexing' | 'rebuilding' | 'switching';
  /** A reindex: documents to rebuild in this round and before, and rebuilt so far. */
  documents_total?: number;
  documents_done?: number;
  /** A reindex: chunks of the serving index, and written to the new generation so far. */
  chunks_done?: number;
  pages_total?: number;
  pages_parsed?: number;
  chunks_total?: number;
  chunks_embedded?: number;
}

/** The stored progress JSON, or undefined when none (or unreadable). */
export function progressOf(job: Pick<JobRow, 'progress'>): JobProgress | undefined {
  if (!job.progress) return undefined;
  try {
    return JSON.parse(job.progress) as JobProgress;
  } catch {
    return undefined;
  }
}

export interface JobStatusView {
  job_id: string;
  status: JobRow['status'];
  /** HTTP-like outcome (DESIGN.md §5): 202 pending/processing, 200 done, 4xx input at fault, 499 cancelled, 5xx ours. */
  code: number;
  is_terminal: boolean;
  error?: { code: string; message: string };
  doc_id?: string;
  attempts: number;
  max_attempts: number;
  /** While pending after a failed attempt: when the next attempt may start, and why the last one failed. */
  next_attempt_at?: string;
  last_error?: string;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  finished_at: string | null;
  properties: { file: { filename: string; size: number }; base_url?: string };
  progress?: JobProgress;
}

/** Render a job row as its public status view. */
export function toJobStatusView(job: JobRow): JobStatusView {
  const view: JobStatusView = {
    job_id: job.id, status: job.status, code: job.code, is_terminal: TERMINAL.has(job.status),
    attempts: job.attempts, max_attempts: job.max_attempts,
    created_at: job.created_at, updated_at: job.updated_at, started_at: job.started_at, finished_at: job.finished_at,
    properties: { file: { filename: job.filename, size: Number(job.size) } },
  };
  if (job.base_url) view.properties.base_url = job.base_url;
  if (job.status === 'failed') view.error = { code: job.error_code ?? 'internal_error', message: job.error_message ?? '' };
  if (job.status === 'done' && job.doc_id) view.doc_id = job.doc_id;
  const progress = progressOf(job);
  if (progress) view.progress = progress;
  if (job.status === 'pending' && job.attempts > 0) {
    view.next_attempt_at = job.run_after;
    if (job.last_error) view.last_error = job.last_error;
  }
  return view;
}

/** One `data:` payload of the status stream. */
export interface JobStreamEvent {
  job_id: string;
  status: JobRow['status'];
  code: number;
  is_terminal: boolean;
  /** Failed: the human-readable message (a string, as status-stream clients of the modelled API read it). */
  error?: string;
  /** Failed: the stable error code that the JSON status view carries as `error.code`. */
  error_code?: string;
  doc_id?: string;
  progress?: JobProgress;
}

/**
 * The SSE event data (DESIGN.md §5: job_id, status, is_terminal, error?) plus code, error_code, doc_id and progress.
 * Unlike the JSON status view, `error` is the message string and the code travels in `error_code`
 * (docs/compat.md): stream clients of the modelled API print `error` as a string.
 */
export function toStreamEvent(job: JobRow): JobStreamEvent {
  const v = toJobStatusView(job);
  return {
    job_id: v.job_id, status: v.status, code: v.code, is_terminal: v.is_terminal,
    ...(v.error ? { error: v.error.message || v.error.code, error_code: v.error.code } : {}),
    ...(v.doc_id ? { doc_id: v.doc_id } : {}),
    ...(v.progress ? { progress: v.progress } : {}),
  };
}
