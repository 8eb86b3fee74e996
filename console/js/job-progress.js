// One reading of an ingest job's progress for the Upload and Jobs views: a percentage that only moves
// forward through the stages (queued, parsing pages, embedding chunks, indexing, finished) and a short
// sentence. The same reading as the SDK's readJobProgress (packages/sdk/src/job-progress.ts), which the
// CLI and the MCP server show, so every client tells a user the same thing about the same job
// (test/console-views.test.ts checks the two agree).
import { h } from './dom.js';

/** Share of the way each stage starts at and reaches (parsing and embedding move with their counts). */
const SPAN = { processing: 1, parsing: [1, 40], embedding: [40, 90], indexing: 95 };

const share = (done, total) => (total && done !== undefined ? Math.min(1, done / total) : 0);

/**
 * @param {{status: string, is_terminal?: boolean, progress?: {stage: string, pages_total?: number, pages_parsed?: number, chunks_total?: number, chunks_embedded?: number}}} ev
 *   a job status view or status-stream event
 * @returns {{percent: number, text: string}} e.g. 23 and "parsing page 5 of 14"; 100 and "done" once terminal
 */
export function readJobProgress(ev) {
  if (ev.status === 'done') {
    const chunks = ev.progress?.chunks_total;
    return { percent: 100, text: chunks ? `done · ${chunks} chunk${chunks === 1 ? '' : 's'}` : 'done' };
  }
  if (ev.status === 'failed' || ev.is_terminal) return { percent: 100, text: 'failed' };
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
  return { percent: SPAN.indexing, text: p.chunks_total ? `indexing ${p.chunks_total} chunks` : 'indexing' };
}

/** A progress bar with the reading's sentence; `data-percent` lets tests read the value. */
export function progressBar(ev) {
  const { percent, text } = readJobProgress(ev);
  return h('div', { class: 'job-progress', 'data-percent': percent },
    h('progress', { max: 100, value: percent }), h('span', { class: 'muted small' }, text));
}
