// The search and search_in_doc tools: every field of the spec's search request is a parameter (legacy
// ones included), the answer is prompt-ready by default (the context block, ready to quote) or the
// ranked hits with every score (format "json").
import * as z from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { DocsearchClient, RetrievalContext, SearchRequest, SearchResponse } from '@docsearch/sdk';
import { BUDGET_NOTES, FILTER_GRAMMAR } from '../grammar.ts';
import { guarded, ok } from '../results.ts';

const unit = z.number().min(0).max(1);
const tokens = z.number().int().min(100).max(500000);

/** Parameters shared by search and search_in_doc (all but query and doc_filter). */
const common = {
  doc_ids: z.array(z.string()).optional().describe('Only these documents'),
  exclude_doc_ids: z.array(z.string()).max(100).optional().describe('Leave these documents out (max 100)'),
  attribute_filters: z.array(z.strictObject({
    attr: z.string().describe('Attribute name'),
    op: z.string().describe('Operator allowed for the attribute type (see the tool description)'),
    value: z.unknown().describe('Operand: scalar, or array for in/nin/contains_any/has_*_tokens'),
  })).max(32).optional().describe('Typed attribute clauses, ANDed (grammar in the tool description)'),
  unencrypted_strings_match: z.record(z.string(), z.string()).optional().describe('Key → case-insensitive glob on the plain strings given at ingest'),
  format: z.enum(['prompt_ready', 'json']).optional().describe('prompt_ready (default): one context block to quote; json: ranked hits with scores'),
  min_relevance: unit.optional().describe('Drop hits scoring below (0..1, default 0.3)'),
  min_top_relevance: unit.optional().describe('Empty result if the best hit scores below this (0..1)'),
  target_tokens: tokens.optional().describe('Soft token budget (default 5000)'),
  max_tokens: tokens.optional().describe('Hard token ceiling (default 15000)'),
  expand_tightness: unit.optional().describe('How much context around each hit (0 none .. 1 whole section)'),
  retrieval_tier: z.enum(['standard', 'advanced']).optional().describe('advanced adds a reranker (slower, better ordering)'),
  return_assets: z.boolean().optional().describe('Also return figures and tables of the cited documents'),
  premium: z.boolean().optional().describe('Legacy: true = retrieval_tier advanced'),
  return_page_images: z.boolean().optional().describe('Deprecated; no effect'),
  meta_tags_any: z.array(z.string()).optional().describe('Legacy: labels contain some of these tags'),
  meta_tags_all: z.array(z.string()).optional().describe('Legacy: labels contain all of these tags'),
  meta_int_1_gte: z.number().optional().describe('Legacy: meta_int_1 >= value'),
  meta_int_1_lte: z.number().optional().describe('Legacy: meta_int_1 <= value'),
  meta_int_2_gte: z.number().optional().describe('Legacy: meta_int_2 >= value'),
  meta_int_2_lte: z.number().optional().describe('Legacy: meta_int_2 <= value'),
};

/** Text for the model: the context block and a one-line account, or the hits as JSON. */
function render(res: RetrievalContext | SearchResponse): string {
  if ('context' in res) {
    const footer = `\n\n[docsearch: ${res.result_count} result(s), ~${res.tokens_estimated} tokens, ${res.results_dropped} dropped by the budget, mode ${res.mode}]`;
    const assets = res.assets ? `\n[assets: ${JSON.stringify(res.assets).length} bytes of figures/tables for ${Object.keys(res.assets).length} document(s)]\n${JSON.stringify(res.assets)}` : '';
    return res.result_count === 0 ? `No passage matched "${res.query}" well enough.${footer}` : res.context + footer + assets;
  }
  return JSON.stringify(res, null, 2);
}

/** Register search and search_in_doc on `server`, answering through `client`. */
export function registerSearchTools(server: McpServer, client: DocsearchClient): void {
  server.registerTool('search', {
    title: 'Search the documents',
    description: `Hybrid (vector + BM25) search over every document of the project. Returns by default a prompt-ready context: passages grouped by document with titles, pages and citations, ready to answer from. Use format "json" for ranked hits with scores (ann, bm25, rrf, reranker).\n${BUDGET_NOTES}\nRestrict with doc_filter/doc_ids/exclude_doc_ids (ids from list_documents or an ingest result) and:\n${FILTER_GRAMMAR}`,
    inputSchema: z.strictObject({ query: z.string().min(1).describe('Natural-language question or keywords'), doc_filter: z.string().optional().describe('One document id to restrict to'), ...common }),
    annotations: { readOnlyHint: true, openWorldHint: false },
  }, async (args) => guarded(async () => ok(render(await client.search(args as SearchRequest)))));

  server.registerTool('search_in_doc', {
    title: 'Search within one document',
    description: `Search restricted to one document (doc_filter, required: a doc_id from list_documents or an ingest result). Same parameters and answer as search.\n${BUDGET_NOTES}\n${FILTER_GRAMMAR}`,
    inputSchema: z.strictObject({ query: z.string().min(1).describe('Natural-language question or keywords'), doc_filter: z.string().min(1).describe('The document id'), ...common }),
    annotations: { readOnlyHint: true, openWorldHint: false },
  }, async (args) => guarded(async () => ok(render(await client.searchInDoc(args as SearchRequest & { doc_filter: string })))));
}
