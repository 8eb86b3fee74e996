// The evaluate_search tool: an agent (or its user) measures how well search serves labelled questions on
// this project's documents — whether each answer reaches the prompt-ready context, at what token cost,
// under up to 4 request variants — and gets the per-variant table and the recommended min_relevance
// (POST /v3/docsearch/evaluations, waited for; docs/evaluations.md).
import * as z from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { evaluationTable, type CreateEvaluationRequest, type DocsearchClient } from '@docsearch/sdk';
import { fail, guarded, ok } from '../results.ts';

const unit = z.number().min(0).max(1);
const tokens = z.number().int().min(100).max(500000);

const caseSchema = z.strictObject({
  id: z.string().optional().describe('Your id for the case'),
  query: z.string().min(1).describe('The question as users ask it'),
  doc_id: z.string().optional().describe('The document holding the answer'),
  doc_ids: z.array(z.string()).min(1).optional().describe('Documents any of which holds the answer (not with doc_id)'),
  pages: z.array(z.number().int().min(1)).optional().describe('1-based evidence pages of doc_id'),
  chunk_indices: z.array(z.number().int().min(0)).optional().describe('Evidence chunk indices of doc_id'),
  answers: z.array(z.string().min(1)).optional().describe('Answer strings; found when the context contains one'),
});

const variantSchema = z.strictObject({
  name: z.string().optional(),
  min_relevance: unit.optional(), min_top_relevance: unit.optional(), target_tokens: tokens.optional(), max_tokens: tokens.optional(),
  expand_tightness: unit.optional(), retrieval_tier: z.enum(['standard', 'advanced']).optional(),
  doc_ids: z.array(z.string()).optional(), exclude_doc_ids: z.array(z.string()).optional(),
  search_in_doc: z.boolean().optional().describe('Ask each case naming one document with search_in_doc on it'),
});

/** Register evaluate_search on `server`, answering through `client`. */
export function registerEvaluateTool(server: McpServer, client: DocsearchClient): void {
  server.registerTool('evaluate_search', {
    title: 'Evaluate search on labelled questions',
    description: 'Runs each case (a query plus what counts as found: doc_id, doc_id + pages or chunk_indices, and/or answer strings) through the default search and each variant (search request fields), waits for the result, and returns per variant: share of cases whose evidence is in the prompt-ready context, tokens mean/p95, empty contexts, latency, recall@10, MRR, nDCG@10, misses by cause, and the recommended min_relevance. At most 1,000 cases and 4 variants; one evaluation at a time per project.',
    inputSchema: z.strictObject({
      cases: z.array(caseSchema).min(1).max(1000).describe('The labelled questions'),
      variants: z.array(variantSchema).min(1).max(4).optional().describe('Request variants to compare; default the default request'),
      name: z.string().optional(),
      timeout_seconds: z.number().int().min(1).max(3600).optional().describe('Give up waiting after this long (default 600)'),
    }),
    // It stores an evaluation (readable later through the API), and changes no document.
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  }, async (a, extra) => guarded(async () => {
    const { timeout_seconds, ...body } = a;
    const signal = AbortSignal.any([AbortSignal.timeout(1000 * (timeout_seconds ?? 600)), extra.signal]);
    const ev = await client.runEvaluation(body as CreateEvaluationRequest, { signal });
    if (ev.status !== 'done' || !ev.report) return fail(new Error(`evaluation ${ev.evaluation_id} ${ev.status}${ev.error ? `: ${ev.error.code} ${ev.error.message}` : ''}`));
    const missed = ev.report.variants.map((v) => `${v.name} missed: ${JSON.stringify(v.per_case.filter((c) => !c.found).slice(0, 20).map((c) => ({ case: c.id ?? c.index, cause: c.miss_cause, rank: c.rank })))}`);
    return ok(`evaluation ${ev.evaluation_id} (${ev.case_count} cases)\n${evaluationTable(ev.report)}\n\n${missed.join('\n')}`);
  }));
}
