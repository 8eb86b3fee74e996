// Runs an evaluation's cases through the real search path (the SearchService that POST /docsearch/search
// and /searchInDoc call, in this process, without the HTTP layer: no search rate limit, no billed
// search_units) and turns the answers into the report. Each case under each variant is asked the way
// bench/answers.ts asks it: the default prompt-ready request, the same request as JSON (the admitted
// hits), the full JSON ranking (min_relevance 0, no expansion, the largest budget), then the request at
// each other min_relevance of the sweep. Judging is judge.ts, shared with the benchmark.
import { isAppError } from '../internal/errors.ts';
import { DEFAULT_MIN_RELEVANCE, type SearchContext } from '../search/search-service.ts';
import type { JsonHit, RetrievalContextResponse, SearchJsonResponse, SearchRequest } from '../search/types.ts';
import { Calibration, foundInContext, judgeOf, missCause, percentile, rankMeasures, round, type Judge } from './judge.ts';
import type { CaseMissCause, CaseResult, EvaluationCase, EvaluationVariant, SweepPoint, VariantReport } from './types.ts';

/** The search entry point the HTTP routes call (SearchService.search). */
export type SearchFn = (ctx: SearchContext, req: SearchRequest, opts: { inDoc: boolean }) => Promise<RetrievalContextResponse | SearchJsonResponse>;

/** min_relevance values of the sweep; the variant's own value is added when it is not one of them. */
export const SWEEP = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6] as const;

/** The largest budget the search schema accepts: the full ranking is not cut. */
const FULL_BUDGET = 500_000;

/** Search fields of a variant (everything but its name and search_in_doc). */
function variantFields(v: EvaluationVariant): Omit<SearchRequest, 'query'> {
  const { name: _name, search_in_doc: _inDoc, ...fields } = v;
  return fields;
}

/** Display name of variant `i`: its name, else `default` for an empty variant, else `variant-<i+1>`. */
export function variantName(v: EvaluationVariant, i: number): string {
  return v.name ?? (Object.keys(v).length === 0 ? 'default' : `variant-${i + 1}`);
}

/** The judge of a case (judge.ts). */
export function caseJudge(c: EvaluationCase): Judge {
  return judgeOf({ docId: c.doc_id, docIds: c.doc_ids, pages: c.pages, chunkIndices: c.chunk_indices, answers: c.answers });
}

/** The one document a case names (its doc_id, or a doc_ids of one), which searchInDoc can search; else undefined. */
export function caseDocument(c: EvaluationCase): string | undefined {
  return c.doc_id ?? (c.doc_ids?.length === 1 ? c.doc_ids[0] : undefined);
}

/** What one case under one variant gave: its result, the ranking pairs for calibration, its sweep. */
interface Asked {
  result: CaseResult;
  measures?: { ndcg10: number; recall10: number; rr: number; empty: boolean };
  pairs: Array<[number, boolean]>;
  /** Found at each sweep value (same order as the variant's sweep). */
  sweep: boolean[];
}

/**
 * Ask one case under one variant.
 * @param visible the project's visible document ids (a case naming another is `unknown_document`)
 * @param sweep   the min_relevance values to also ask at (the variant's own value is taken from the main request)
 */
export async function askCase(search: SearchFn, ctx: SearchContext, c: EvaluationCase, index: number, v: EvaluationVariant, visible: Set<string>, sweep: number[]): Promise<Asked> {
  const base = { index, ...(c.id !== undefined ? { id: c.id } : {}), found: false, rank: null, score: null, tokens: 0, latency_ms: 0 };
  const unknown = [...(c.doc_id !== undefined ? [c.doc_id] : []), ...(c.doc_ids ?? [])].find((d) => !visible.has(d));
  if (unknown !== undefined) {
    return { result: { ...base, miss_cause: 'unknown_document', error: { code: 'document_not_found', message: `No document "${unknown}" in this project.` } }, pairs: [], sweep: sweep.map(() => false) };
  }
  const judge = caseJudge(c);
  const own = caseDocument(c);
  const inDoc = v.search_in_doc === true && own !== undefined;
  const req: SearchRequest = { query: c.query, ...variantFields(v), ...(inDoc ? { doc_filter: own } : {}) };
  const minRelevance = req.min_relevance ?? DEFAULT_MIN_RELEVANCE;
  try {
    const t0 = performance.now();
    const ctxAnswer = (await search(ctx, req, { inDoc })) as RetrievalContextResponse;
    const ms = performance.now() - t0;
    const admitted = ((await search(ctx, { ...req, format: 'json' }, { inDoc })) as SearchJsonResponse).results;
    const ranking = ((await search(ctx, { ...req, format: 'json', min_relevance: 0, expand_tightness: 0, target_tokens: FULL_BUDGET, max_tokens: FULL_BUDGET }, { inDoc })) as SearchJsonResponse).results;
    const found = foundInContext(judge, ctxAnswer.context, admitted);
    const m = rankMeasures(judge, ranking);
    const result: CaseResult = {
      ...base, found, rank: m.rank, score: m.score === null ? null : round(m.score, 4), tokens: ctxAnswer.tokens_estimated, latency_ms: round(ms, 1),
      ...(found ? {} : { miss_cause: missCause(judge, admitted, ranking, minRelevance) }),
    };
    const swept: boolean[] = [];
    for (const value of sweep) swept.push(value === minRelevance ? found : await foundAt(search, ctx, { ...req, min_relevance: value }, inDoc, judge));
    return { result, measures: { ndcg10: m.ndcg10, recall10: m.recall10, rr: m.rr, empty: admitted.length === 0 }, pairs: ranking.map((h) => [h.score, judge.relevant(h)]), sweep: swept };
  } catch (err) {
    if (!isAppError(err) || err.status >= 500) throw err;
    // A case the search refuses (its document went away, a filter the project's attributes refuse) is a result, not a failed run.
    const cause: CaseMissCause = err.code === 'document_not_found' ? 'unknown_document' : 'error';
    return { result: { ...base, miss_cause: cause, error: { code: err.code, message: err.message } }, pairs: [], sweep: sweep.map(() => false) };
  }
}

/** Found in context at one request: the prompt-ready context where the judge reads text, else the admitted JSON hits. */
async function foundAt(search: SearchFn, ctx: SearchContext, req: SearchRequest, inDoc: boolean, judge: Judge): Promise<boolean> {
  if (judge.inContext) return judge.inContext(((await search(ctx, req, { inDoc })) as RetrievalContextResponse).context);
  const hits: JsonHit[] = ((await search(ctx, { ...req, format: 'json' }, { inDoc })) as SearchJsonResponse).results;
  return hits.some((h) => judge.relevant(h));
}

/** The sweep of a variant: SWEEP plus the variant's own min_relevance, ascending. */
export function sweepOf(v: EvaluationVariant): number[] {
  const own = v.min_relevance ?? DEFAULT_MIN_RELEVANCE;
  return [...new Set([...SWEEP, own])].sort((a, b) => a - b);
}

/**
 * The report of one variant from its asked cases.
 * @param asked one entry per case, in case order
 */
export function variantReport(v: EvaluationVariant, i: number, sweep: number[], asked: Asked[]): VariantReport {
  const ran = asked.filter((a) => a.measures);
  const n = ran.length;
  const mean = (xs: number[]) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : 0);
  const misses: Record<CaseMissCause, number> = { empty: 0, wrong_document: 0, not_ranked: 0, below_threshold: 0, cut_by_budget: 0, unknown_document: 0, error: 0 };
  for (const a of asked) if (a.result.miss_cause) misses[a.result.miss_cause]++;
  const calib = new Calibration();
  for (const a of ran) for (const [score, rel] of a.pairs) calib.add(score, rel);
  const points: SweepPoint[] = sweep.map((value, k) => {
    const found = ran.filter((a) => a.sweep[k]).length;
    return { min_relevance: value, found, found_share: round(n ? found / n : 0) };
  });
  // The best found share; among equals the highest threshold (fewer weak hits in the context).
  const best = points.reduce((b, p) => (p.found > b.found || (p.found === b.found && p.min_relevance > b.min_relevance) ? p : b), points[0]);
  const found = ran.filter((a) => a.result.found).length;
  const tokens = ran.map((a) => a.result.tokens);
  const ms = ran.map((a) => a.result.latency_ms);
  return {
    name: variantName(v, i), request: v, cases: asked.length, evaluated: n, found, found_share: round(n ? found / n : 0),
    tokens_mean: Math.round(mean(tokens)), tokens_p95: percentile(tokens, 95), empty_contexts: ran.filter((a) => a.measures!.empty).length,
    latency_ms: { p50: round(percentile(ms, 50), 1), p95: round(percentile(ms, 95), 1) },
    recall_at_10: round(mean(ran.map((a) => a.measures!.recall10))), mrr: round(mean(ran.map((a) => a.measures!.rr))),
    ndcg_at_10: round(mean(ran.map((a) => a.measures!.ndcg10))), misses, reliability: calib.curve(),
    min_relevance_sweep: points, recommended_min_relevance: { value: best.min_relevance, found_share: best.found_share },
    per_case: asked.map((a) => a.result),
  };
}

export type { Asked };
