// Shared parts of the answer-in-context evaluation (bench/answers.ts): the verbose question
// rule and the search calls a user makes (default prompt-ready request, the same request as JSON for the
// pages of the admitted hits, and the full JSON ranking for nDCG/recall).
import type { BenchApp } from './bench-app.ts';

/**
 * The verbose, instruction-wrapped form of a question, as agents send it. Rule (fixed, documented in
 * bench/README.md): the question is wrapped by one of four templates chosen by `i mod 4`; `{q}` is the
 * question verbatim, `{src}` a description of where the answer is ("the provided documents" unless the
 * caller names a source). The templates are generic agent preambles, written before any result was seen
 * and never tuned on answers.
 */
export function verboseForm(question: string, i: number, src = 'the provided documents'): string {
  const templates = [
    `Assume you are an analyst preparing a briefing. ${question} Answer using the details in ${src}.`,
    `You are a helpful assistant. Using only the information available in ${src}, answer the following question as precisely as possible: ${question}`,
    `Please look through ${src} and tell me: ${question} Give a short answer and cite where it comes from.`,
    `Task: answer the user's question based on ${src}. If the answer is not there, say so. Question: ${question}`,
  ];
  return templates[i % templates.length];
}

export interface ProjectRef {
  apiKey: string;
  projectId: string;
  namespace: string;
}

/** One search through the real HTTP layer (inject); throws on a non-200 answer. */
export async function searchHttp(app: BenchApp, p: ProjectRef, body: Record<string, unknown>, path = '/v3/docsearch/search'): Promise<Record<string, unknown>> {
  const res = await app.handle.http.inject({
    method: 'POST', url: path,
    headers: { authorization: `Bearer ${p.apiKey}`, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
  if (res.statusCode !== 200) throw new Error(`search ${res.statusCode}: ${res.body.slice(0, 300)}`);
  return res.json() as Record<string, unknown>;
}

export interface JsonHitLite {
  doc_id: string;
  pages: number[];
  score: number;
  content: string;
}

export interface Asked {
  /** The default prompt-ready context. */
  context: string;
  tokens: number;
  ms: number;
  /** The hits admitted into that context (same request as JSON: same ranking, thresholds and budget). */
  admitted: JsonHitLite[];
  /** Full ranking (min_relevance 0, no expansion, huge budget): for nDCG/recall and calibration. */
  ranking: JsonHitLite[];
}

/**
 * Ask one question the way a user does (default fields plus `extra`, e.g. doc_filter), plus the two JSON
 * views the metrics need.
 */
export async function ask(app: BenchApp, p: ProjectRef, query: string, extra: Record<string, unknown> = {}, path?: string): Promise<Asked> {
  const t0 = performance.now();
  const ctx = await searchHttp(app, p, { query, ...extra }, path);
  const ms = performance.now() - t0;
  const admitted = (await searchHttp(app, p, { query, ...extra, format: 'json' }, path)).results as JsonHitLite[];
  const ranking = (await searchHttp(app, p, {
    query, ...extra, format: 'json', min_relevance: 0, expand_tightness: 0, target_tokens: 500_000, max_tokens: 500_000,
  }, path)).results as JsonHitLite[];
  return { context: ctx.context as string, tokens: ctx.tokens_estimated as number, ms, admitted, ranking };
}

// The judging (found in context, miss causes, hit-level measures, calibration bins) is the evaluation
// API's own (src/evaluations/judge.ts), so the benchmark and the API report the same figures.
export { Calibration, normaliseText, round } from '../../src/evaluations/judge.ts';
