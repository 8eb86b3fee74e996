// The evaluation of docsearch's real output: is the answer inside the prompt-ready context that
// a DEFAULT request returns, and at what cost in tokens and milliseconds? Beside it nDCG@10 and recall@10
// of the full ranking (document level; FinanceBench hit level: recall@10 = an evidence-page hit in the top 10), the reliability (calibration) of `score` per case, and the same
// numbers for every question asked again in a verbose, instruction-wrapped form (answers-common.ts
// verboseForm, a fixed documented rule). Sets (bench/lib/answers-sets.ts): FinanceBench at corpus scale
// (the 43 filings of both question sets in one namespace; each set over the namespace and with
// searchInDoc; misses counted by cause), XQuAD as QA per language in namespaces of 1 and 10 paragraphs (test half of the
// articles), SciFact test claims among 0, 10 and 1 000 other abstracts. FinanceBench is a test set only.
// Opt-in `books`: long documents of the XQuAD TRAINING half (answers-sets.ts xquadBookCases), for deciding
// how the context spends its budget without looking at a test set.
// Prints a table and writes bench/results/answers.json. Usage:
//   npm run bench:answers [-- --sets financebench,xquad,scifact,books] [-- --langs en,de] [-- --limit N]
//                         [-- --sizes 1,10] [-- --no-verbose] [-- --calibration] [-- --body JSON]
//   --body JSON  request fields merged into every question's request (e.g. '{"min_relevance":0}' to see
//                what the threshold costs); results then go to bench/results/answers-body.json
//   --keep DIR   keep the app's data directory in DIR and reuse it next time (the 43 filings are ingested
//                once, ≈6 min); --fb-sets financebench,financebench-dev picks the question sets;
//   --per-question  one line per question (in context?, miss cause, rank and score of the first evidence hit)
import { initAnalysis } from '../src/analysis/analyzer.ts';
import { mean, ndcgAt, recallAt, dedupe, writeResult } from './lib/beir.ts';
import { startBenchApp } from './lib/bench-app.ts';
import { ask, Calibration, round, verboseForm } from './lib/answers-common.ts';
import { foundInContext, missCause, rankMeasures, type MissCause } from '../src/evaluations/judge.ts';
import { FINANCEBENCH_SETS, financebenchCases, scifactCases, xquadBookCases, xquadCases, type EvalCase, type EvalQuestion } from './lib/answers-sets.ts';
import { percentile } from './lib/quality.ts';

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : dflt;
};
const sets = arg('--sets', 'financebench,xquad,scifact').split(',');
const langs = arg('--langs', 'ar,de,el,en,es,hi,ro,ru,th,tr,vi,zh').split(',');
const limit = Number(arg('--limit', '100'));
const sizes = arg('--sizes', '1,10').split(',').map(Number);
const verbose = !process.argv.includes('--no-verbose');
const showCalibration = process.argv.includes('--calibration');
const body = JSON.parse(arg('--body', '{}')) as Record<string, unknown>;
const keepDir = arg('--keep', '') || undefined;
const fbSets = arg('--fb-sets', FINANCEBENCH_SETS.join(',')).split(',');
const perQuestion = process.argv.includes('--per-question');

interface Row {
  case: string;
  form: 'plain' | 'verbose';
  n: number;
  in_context: number;
  tokens: number;
  p50_ms: number;
  ndcg10: number;
  recall10: number;
  empty: number;
  /** Misses by cause, where the case names each question's document (see missCause). */
  misses?: Record<MissCause, number>;
}

async function runCase(app: Awaited<ReturnType<typeof startBenchApp>>, c: EvalCase, form: 'plain' | 'verbose', calib: Calibration): Promise<Row> {
  const ok: number[] = [], tokens: number[] = [], ms: number[] = [], ndcg: number[] = [], recall: number[] = [];
  let empty = 0;
  const misses: Record<MissCause, number> = { empty: 0, wrong_document: 0, not_ranked: 0, below_threshold: 0, cut_by_budget: 0 };
  for (const [i, q] of c.questions.entries()) {
    const text = form === 'plain' ? q.text : verboseForm(q.text, i);
    const a = await ask(app, q.project, text, { ...(q.extra ?? {}), ...body }, q.path);
    const hit = foundInContext(q, a.context, a.admitted);
    ok.push(hit ? 1 : 0);
    if (!hit && q.doc) misses[missCause(q, a.admitted, a.ranking, typeof body.min_relevance === 'number' ? body.min_relevance : 0.3)]++;
    if (perQuestion) {
      const r = a.ranking.findIndex((h) => q.relevant(h));
      console.error(`${c.name} ${form} ${String(i).padStart(2)} ${hit ? 'OK ' : '-- '}${!hit && q.doc ? missCause(q, a.admitted, a.ranking, 0.3).padEnd(16) : ''.padEnd(16)} rank=${r} s=${r >= 0 ? a.ranking[r].score.toFixed(3) : '-'} top=${a.ranking[0]?.score.toFixed(3)} adm=${a.admitted.length} docs=${new Set(a.admitted.map((h) => h.doc_id)).size} tok=${a.tokens} | ${q.text.slice(0, 100)}`);
    }
    tokens.push(a.tokens);
    ms.push(a.ms);
    if (a.admitted.length === 0) empty++;
    if (c.hitLevel) {
      const m = rankMeasures(q, a.ranking);
      ndcg.push(m.ndcg10);
      recall.push(m.recall10);
    } else {
      // Document level (BEIR): a document's rank is that of its first relevant-or-other hit.
      const ranked = dedupe(a.ranking.filter((h) => q.relevant(h) || !q.qrels.has(h.doc_id)).map((h) => h.doc_id));
      ndcg.push(ndcgAt(10, ranked, q.qrels));
      recall.push(recallAt(10, ranked, q.qrels));
    }
    for (const h of a.ranking) calib.add(h.score, q.relevant(h));
  }
  return {
    case: c.name, form, n: c.questions.length, in_context: round(mean(ok)), tokens: Math.round(mean(tokens)),
    p50_ms: round(percentile(ms, 50), 1), ndcg10: round(mean(ndcg)), recall10: round(mean(recall)), empty: round(empty / Math.max(1, c.questions.length)),
    ...(c.questions.some((q) => q.doc) ? { misses } : {}),
  };
}

async function main(): Promise<void> {
  await initAnalysis();
  const app = await startBenchApp({ workers: sets.includes('financebench'), keepDir });
  const rows: Row[] = [];
  const calibrations: Record<string, ReturnType<Calibration['rows']>> = {};
  try {
    const cases: EvalCase[] = [];
    const t0 = performance.now();
    if (sets.includes('financebench')) cases.push(...(await financebenchCases(app, fbSets)));
    if (sets.includes('xquad')) for (const l of langs) cases.push(...(await xquadCases(app, l, sizes, limit)));
    if (sets.includes('books')) for (const l of langs) cases.push(...(await xquadBookCases(app, l, limit)));
    if (sets.includes('scifact')) cases.push(...(await scifactCases(app, [0, 10, 1000], Math.min(limit, 100))));
    console.error(`loaded ${cases.length} cases in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    for (const c of cases) {
      for (const form of verbose ? (['plain', 'verbose'] as const) : (['plain'] as const)) {
        const calib = new Calibration();
        const row = await runCase(app, c, form, calib);
        rows.push(row);
        calibrations[`${c.name} ${form}`] = calib.rows();
        console.error(JSON.stringify(row));
      }
    }
  } finally {
    await app.close();
  }
  console.table(rows.map(({ misses, ...r }) => r));
  for (const r of rows) if (r.misses) console.log(`misses ${r.case} ${r.form}: ${JSON.stringify(r.misses)}`);
  if (showCalibration) for (const [k, v] of Object.entries(calibrations)) { console.log(`calibration ${k}`); console.table(v); }
  console.log(`results: ${writeResult(Object.keys(body).length ? 'answers-body' : 'answers', { rows, calibrations, args: { sets, langs, limit, sizes, verbose, body } })}`);
}

await main();
