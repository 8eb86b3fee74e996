// The answer-in-context benchmark's questions through the evaluation API, beside the direct benchmark.
// FinanceBench: the filings of the chosen sets in one namespace (bench/lib/answers-sets.ts, ingested once
// and kept with --keep), each set's questions sent as ONE evaluation (POST /v3/docsearch/evaluations;
// doc_id + evidence pages; variants: the default search, and searchInDoc on the question's filing).
// XQuAD (opt-in): the benchmark's namespaces of N paragraphs, one evaluation per namespace (doc_id +
// answer strings), found shares and tokens pooled over the namespaces. SciFact (opt-in): the benchmark's
// namespaces of a claim's relevant abstracts among N others (`--sf-sizes`; one shared namespace from 1,000),
// one evaluation per namespace whose cases name every relevant abstract (doc_ids), pooled the same way.
// The same questions are also asked directly the way bench/answers.ts asks them (bench/lib/answers-run.ts).
// Prints both rows per case and whether the judged figures agree (found in context, mean tokens, empty
// contexts; for FinanceBench also nDCG@10, recall@10 and the misses by cause — XQuAD's and SciFact's
// benchmark ranks documents, the API hits; latency differs by design: the API times the search in
// process, the benchmark through HTTP inject).
// Usage:
//   npx tsx bench/answers-api.ts [--sets financebench,xquad,scifact] [--fb-sets financebench-dev] [--langs en]
//                                [--sizes 10] [--sf-sizes 10,1000] [--limit N] [--keep DIR] [--body JSON]
//   --keep DIR   reuse the app's data directory (the 43 filings are ingested once, ≈6–8 min)
//   --body JSON  request fields of both sides (e.g. '{"min_relevance":0.4}')
import { initAnalysis } from '../src/analysis/analyzer.ts';
import { startBenchApp, type BenchApp } from './lib/bench-app.ts';
import { Calibration } from './lib/answers-common.ts';
import { runCase, type Row } from './lib/answers-run.ts';
import { financebenchCases, scifactCases, xquadCases, type EvalCase } from './lib/answers-sets.ts';
import { writeResult } from './lib/beir.ts';
import type { EvaluationView, VariantReport } from '../src/evaluations/types.ts';

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : dflt;
};
const sets = arg('--sets', 'financebench').split(',');
const fbSets = arg('--fb-sets', 'financebench-dev').split(',');
const langs = arg('--langs', 'en').split(',');
const sizes = arg('--sizes', '10').split(',').map(Number);
const sfSizes = arg('--sf-sizes', '10').split(',').map(Number);
const limit = Number(arg('--limit', '100'));
const keepDir = arg('--keep', '') || undefined;
const body = JSON.parse(arg('--body', '{}')) as Record<string, unknown>;

/**
 * One evaluation of questions of one project through the API, waited for.
 * @param variants the evaluation's variants (each gets --body)
 */
async function evaluate(app: BenchApp, name: string, questions: EvalCase['questions'], variants: Array<Record<string, unknown>>): Promise<EvaluationView> {
  const key = questions[0].project.apiKey;
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const cases = questions.map((q) => ({ id: q.id, query: q.text, doc_id: q.expectation!.docId, doc_ids: q.expectation!.docIds, pages: q.expectation!.pages, answers: q.expectation!.answers }));
  const res = await app.handle.http.inject({
    method: 'POST', url: '/v3/docsearch/evaluations', headers,
    payload: JSON.stringify({ name, cases, variants: variants.map((v) => ({ ...v, ...body })) }),
  });
  if (res.statusCode !== 202) throw new Error(`evaluation ${res.statusCode}: ${res.body}`);
  const id = (res.json() as EvaluationView).evaluation_id;
  for (;;) {
    const ev = (await app.handle.http.inject({ method: 'GET', url: `/v3/docsearch/evaluations/${id}`, headers })).json() as EvaluationView;
    if (ev.status !== 'pending' && ev.status !== 'running') return ev;
    process.stderr.write(`\r${name}: ${ev.progress.done}/${ev.progress.total}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The API's variant report as a benchmark row. */
function apiRow(name: string, v: VariantReport): Row {
  const misses = { empty: v.misses.empty, wrong_document: v.misses.wrong_document, not_ranked: v.misses.not_ranked, below_threshold: v.misses.below_threshold, cut_by_budget: v.misses.cut_by_budget };
  return {
    case: name, form: 'plain', n: v.cases, in_context: v.found_share, tokens: v.tokens_mean, p50_ms: v.latency_ms.p50,
    ndcg10: v.ndcg_at_10, recall10: v.recall_at_10, empty: Math.round((v.empty_contexts / Math.max(1, v.evaluated)) * 1000) / 1000, misses,
  };
}

/**
 * An XQuAD or SciFact case: one evaluation per namespace, pooled; beside the direct benchmark's row (found,
 * tokens and empty contexts; their ranking measures are document-level there, hit-level in the API).
 */
async function pooledRows(app: BenchApp, c: EvalCase): Promise<Array<Record<string, unknown>>> {
  const asked = c.questions.filter((q) => q.expectation && (q.expectation.answers?.length || q.expectation.docIds?.length));
  const byProject = new Map<string, EvalCase['questions']>();
  for (const q of asked) byProject.set(q.project.projectId, [...(byProject.get(q.project.projectId) ?? []), q]);
  const found: boolean[] = [], tokens: number[] = [];
  let empty = 0;
  for (const [i, qs] of [...byProject.values()].entries()) {
    const ev = await evaluate(app, `${c.name} #${i}`, qs, [{ name: 'default' }]);
    if (ev.status !== 'done') throw new Error(`evaluation ${ev.status}: ${JSON.stringify(ev.error)}`);
    const v = ev.report!.variants[0];
    for (const pc of v.per_case) { found.push(pc.found); tokens.push(pc.tokens); }
    empty += v.empty_contexts;
  }
  process.stderr.write('\n');
  const direct = await runCase(app, { ...c, questions: asked }, 'plain', new Calibration(), { body });
  const n = Math.max(1, found.length);
  const round3 = (x: number) => Math.round(x * 1000) / 1000;
  const api = { in_context: round3(found.filter(Boolean).length / n), tokens: Math.round(tokens.reduce((a, b) => a + b, 0) / n), empty: round3(empty / n) };
  const same = direct.in_context === api.in_context && direct.tokens === api.tokens && direct.empty === api.empty;
  return [
    { source: 'bench:answers', ...direct, misses: '' },
    { source: 'evaluation API', case: c.name, form: 'plain', n: found.length, ...api, p50_ms: '', ndcg10: '', recall10: '', misses: '', agree: same ? 'yes' : 'NO' },
  ];
}

async function main(): Promise<void> {
  await initAnalysis();
  const app = await startBenchApp({ workers: true, keepDir });
  const table: Array<Record<string, unknown>> = [];
  const out: Array<{ direct: Row; api: Row; api_report: Omit<VariantReport, 'per_case'> }> = [];
  try {
    const cases = sets.includes('financebench') ? await financebenchCases(app, fbSets) : [];
    for (const set of sets.includes('financebench') ? fbSets : []) {
      const overNs = cases.find((c) => c.name === `${set} search`)!;
      const inDoc = cases.find((c) => c.name === `${set} searchInDoc`)!;
      const t0 = performance.now();
      const ev = await evaluate(app, overNs.name, overNs.questions, [{ name: 'search' }, { name: 'searchInDoc', search_in_doc: true }]);
      console.error(`\n${set}: evaluation ${ev.status} in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
      if (ev.status !== 'done') throw new Error(`evaluation ${ev.status}: ${JSON.stringify(ev.error)}`);
      for (const [c, v] of [[overNs, ev.report!.variants[0]], [inDoc, ev.report!.variants[1]]] as const) {
        const direct = await runCase(app, c, 'plain', new Calibration(), { body });
        const api = apiRow(c.name, v);
        const same = (['in_context', 'tokens', 'ndcg10', 'recall10', 'empty'] as const).every((k) => direct[k] === api[k]) && JSON.stringify(direct.misses) === JSON.stringify(api.misses);
        table.push({ source: 'bench:answers', ...direct, misses: JSON.stringify(direct.misses) });
        table.push({ source: 'evaluation API', ...api, misses: JSON.stringify(api.misses), agree: same ? 'yes' : 'NO' });
        const { per_case: _pc, ...report } = v;
        out.push({ direct, api, api_report: report });
        console.log(`${c.name} via the API: MRR ${v.mrr}, latency p50/p95 ${v.latency_ms.p50}/${v.latency_ms.p95} ms, tokens p95 ${v.tokens_p95}, recommended min_relevance ${v.recommended_min_relevance.value} → found ${v.recommended_min_relevance.found_share}; sweep ${v.min_relevance_sweep.map((p) => `${p.min_relevance}:${p.found_share}`).join(' ')}`);
        console.log(`  reliability ${v.reliability.map((b) => `${b.from.toFixed(1)}–${b.to.toFixed(1)} n=${b.n} score ${b.mean_score} → ${b.observed}`).join('; ')}`);
      }
    }
    if (sets.includes('xquad')) for (const l of langs) for (const c of await xquadCases(app, l, sizes, limit)) table.push(...(await pooledRows(app, c)));
    if (sets.includes('scifact')) for (const c of await scifactCases(app, sfSizes, limit)) table.push(...(await pooledRows(app, c)));
  } finally {
    await app.close();
  }
  console.table(table);
  console.log(`results: ${writeResult('answers-api', { fbSets, body, rows: out })}`);
}

await main();
