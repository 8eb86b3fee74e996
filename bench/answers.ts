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
import { writeResult } from './lib/beir.ts';
import { startBenchApp } from './lib/bench-app.ts';
import { Calibration } from './lib/answers-common.ts';
import { runCase, type Row } from './lib/answers-run.ts';
import { FINANCEBENCH_SETS, financebenchCases, scifactCases, xquadBookCases, xquadCases, type EvalCase } from './lib/answers-sets.ts';

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
        const row = await runCase(app, c, form, calib, { body, perQuestion });
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
