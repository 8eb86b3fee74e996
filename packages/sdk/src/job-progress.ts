// One reading of a job's progress for every client that shows it (the CLI's progress line, the MCP
// server's progress notifications): a percentage that only moves forward through the stages of an ingest
// (queued, parsing pages, embedding chunks, indexing, finished) or a reindex (rebuilding documents,
// switching), and a short sentence saying where it is.
import type { JobStatusEvent } from './types.ts';

/** Where a job is: `percent` 0–100 (100 only once it is terminal) and a short description. */
export interface JobProgressReading {
  percent: number;
  text: string;
}

/** Share of the way each stage starts at and reaches (parsing and embedding move with their counts). */
const SPAN = { processing: 1, parsing: [1, 40], embedding: [40, 90], indexing: 95, rebuilding: [1, 95], switching: 97 } as const;

const share = (done: number | undefined, total: number | undefined) => (total && done !== undefined ? Math.min(1, done / total) : 0);

/**
 * Read one status event (or status view) as a percentage and a description, e.g. 23 and
 * "parsing page 5 of 14"; 100 and "done" once terminal (a failed job: "failed: <code>").
 */
export function readJobProgress(ev: Pick<JobStatusEvent, 'status' | 'is_terminal' | 'error' | 'progress'>): JobProgressReading {
  if (ev.status === 'done') return { percent: 100, text: 'done' };
  if (ev.status === 'failed' || ev.is_terminal) return { percent: 100, text: `failed${ev.error ? `: ${ev.error.code}` : ''}` };
  if (ev.status === 'pending') return { percent: 0, text: 'queued' };
  const p = ev.progress;
  if (!p) return { percent: SPAN.processing, text: 'processing' };
  if (p.stage === 'parsing') {
    const [from, to] = SPAN.parsing;
    const text = p.pages_total ? `parsing page ${p.pages_parsed ?? 0} of ${p.pages_total}` : 'parsing';
    return { percent: Math.round(from + (to - from) * share(p.pages_parsed, p.pages_total)), text };
  }
  if (p.stage === 'embedding') {
    const [from, to] = SPAN.embedding;
    return { percent: Math.round(from + (to - from) * share(p.chunks_embedded, p.chunks_total)), text: `embedding chunk ${p.chunks_embedded ?? 0} of ${p.chunks_total ?? '?'}` };
  }
  if (p.stage === 'rebuilding') {
    const [from, to] = SPAN.rebuilding;
    return { percent: Math.round(from + (to - from) * share(p.documents_done, p.documents_total)), text: `rebuilding document ${p.documents_done ?? 0} of ${p.documents_total ?? '?'}` };
  }
  if (p.stage === 'switching') return { percent: SPAN.switching, text: 'switching to the new generation' };
  return { percent: SPAN.indexing, text: p.chunks_total ? `indexing ${p.chunks_total} chunks` : 'indexing' };
}
