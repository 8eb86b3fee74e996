// `docsearch search "<query>"`: prints the prompt-ready context (default), the ranked hits with every
// score (--hits), or the service's JSON (--json: the format=json answer). --doc restricts to one document
// (searchInDoc). Filters: --filter 'attr op value' (repeatable; value is JSON when it parses, else a
// string), e.g. --filter 'year gte 2020' --filter 'labels has_any_tokens ["draft"]'.
import type { AttributeFilter, SearchHit, SearchRequest } from '@docsearch/sdk';
import { EXIT_OK, UsageError } from '../errors.ts';
import { println } from '../io.ts';
import type { Command, Context } from '../context.ts';

/**
 * One attribute filter clause from `attr op value`.
 * @throws UsageError when it has fewer than three parts
 */
export function parseFilter(text: string): AttributeFilter {
  const m = /^\s*([^\s]+)\s+([a-z_]+)\s+(.+?)\s*$/s.exec(text);
  if (!m) throw new UsageError(`--filter must be "attr op value", got "${text}"`);
  let value: unknown = m[3];
  try { value = JSON.parse(m[3]); } catch { /* a bare word is a string */ }
  return { attr: m[1], op: m[2], value };
}

function request(ctx: Context, query: string): SearchRequest {
  const tier = ctx.str('tier');
  if (tier !== undefined && tier !== 'standard' && tier !== 'advanced') throw new UsageError(`--tier must be standard or advanced, got "${tier}"`);
  const filters = ctx.list('filter').map(parseFilter);
  return {
    query,
    ...(filters.length ? { attribute_filters: filters } : {}),
    ...(ctx.list('doc-id').length ? { doc_ids: ctx.list('doc-id') } : {}),
    ...(ctx.list('exclude').length ? { exclude_doc_ids: ctx.list('exclude') } : {}),
    ...(tier ? { retrieval_tier: tier } : {}),
    min_relevance: ctx.num('min-relevance', 0, 1),
    min_top_relevance: ctx.num('min-top-relevance', 0, 1),
    target_tokens: ctx.num('target-tokens', 100, 500000, true),
    max_tokens: ctx.num('max-tokens', 100, 500000, true),
    expand_tightness: ctx.num('expand-tightness', 0, 1),
  };
}

const fmt = (n: number | null | undefined): string => (n === null || n === undefined ? '-' : n.toFixed(3));

function printHits(ctx: Context, hits: SearchHit[]): void {
  hits.forEach((h, i) => {
    const s = h.scores;
    println(ctx.io.out, `${i + 1}. ${h.title || h.doc_id}  score ${fmt(h.score)} (ann ${fmt(s.ann)}, bm25 ${fmt(s.bm25)}, rrf ${fmt(s.rrf)}, reranker ${fmt(s.reranker)})`);
    println(ctx.io.out, `   doc ${h.doc_id}  pages ${h.pages.join(',') || '-'}`);
    println(ctx.io.out, `   ${h.content.replace(/\s+/g, ' ').slice(0, 240)}`);
  });
}

export const searchCommand: Command = {
  words: ['search'],
  usage: 'docsearch search "<query>" [--json | --hits] [--doc <doc_id>] [--filter "attr op value"]... [--doc-id id]... [--exclude id]... [--tier standard|advanced] [--min-relevance x] [--target-tokens n] [--max-tokens n]',
  summary: 'Search the project: prompt-ready context, or ranked hits',
  options: {
    json: { type: 'boolean' },
    hits: { type: 'boolean' },
    doc: { type: 'string' },
    filter: { type: 'string', multiple: true },
    'doc-id': { type: 'string', multiple: true },
    exclude: { type: 'string', multiple: true },
    tier: { type: 'string' },
    'min-relevance': { type: 'string' },
    'min-top-relevance': { type: 'string' },
    'target-tokens': { type: 'string' },
    'max-tokens': { type: 'string' },
    'expand-tightness': { type: 'string' },
  },
  async run(ctx) {
    const query = ctx.args.join(' ').trim();
    if (!query) throw new UsageError('search needs a query');
    const body = request(ctx, query);
    const doc = ctx.str('doc');
    const asHits = ctx.flag('json') || ctx.flag('hits');
    const client = ctx.client;
    if (asHits) {
      const res = doc ? await client.searchInDoc({ ...body, doc_filter: doc, format: 'json' }) : await client.search({ ...body, format: 'json' });
      if (ctx.flag('json')) ctx.json(res);
      else if (res.results.length === 0) println(ctx.io.err, 'no results');
      else printHits(ctx, res.results);
      return EXIT_OK;
    }
    const res = doc ? await client.searchInDoc({ ...body, doc_filter: doc, format: 'prompt_ready' }) : await client.search({ ...body, format: 'prompt_ready' });
    if (res.result_count === 0) println(ctx.io.err, 'no results');
    else println(ctx.io.out, res.context);
    println(ctx.io.err, `${res.result_count} result(s), ~${res.tokens_estimated} tokens, ${res.results_dropped} dropped, mode ${res.mode}`);
    return EXIT_OK;
  },
};
