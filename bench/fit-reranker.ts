// Fits the advanced tier on TRAINING splits only — never test (DESIGN.md §3, §5) — on the training queries
// of the standard relevance model (bench/lib/train-sets.ts: SciFact train claims in namespaces of 5 183,
// rel+100 and rel+10 abstracts; XQuAD even-numbered articles in 12 languages over 1, 10 and 240 paragraphs
// and over article documents; plain and wrapped), each query and each kind of data weighed alike:
//  - builtin (default): the logistic regression of the builtin reranker (src/models/builtin-reranker-model.ts)
//    over the features of src/models/builtin-reranker-features.ts;
//  - --reranker onnx|http (with the DOCSEARCH_RERANKER_* variables set): the three calibration
//    coefficients that combine that reranker with the standard score, σ(c0 + c1·z + c2·logit(standard))
//    (DOCSEARCH_RERANKER_CALIBRATION).
// Every training query runs the real standard stages (SearchService.rank: the score exactly as served) and
// its top-`depth` hits are the candidates. Reports per kind of data (bench/lib/rerank-train.ts reportByKind)
// the standard score, the shipped model (builtin) and a 5-fold cross-validated fit (folds by question),
// then fits on all rows. Usage:
//   npx tsx bench/fit-reranker.ts [--collect] [--per-set N] [--langs en,de] [--features std,title_cov,...] [--write]
//   npx tsx bench/fit-reranker.ts --reranker onnx|http [--per-set N] [--langs en,de]
// Builtin: --collect re-runs the candidate collection into bench/results/rerank-rows.json (without it the
// cached rows are refitted in seconds); --write replaces the RERANK_MODEL literal. An external reranker's
// rows are always collected (the reranker scores every candidate: with the default --per-set 10, ≈ 2 300
// queries × depth pairs).
import fs from 'node:fs';
import path from 'node:path';
import { initAnalysis } from '../src/analysis/analyzer.ts';
import { createBuiltinEmbedder } from '../src/models/builtin-embedder.ts';
import { RERANK_FEATURES } from '../src/models/builtin-reranker-features.ts';
import { RERANK_MODEL, type RerankModel } from '../src/models/builtin-reranker-model.ts';
import { createReranker } from '../src/models/create-reranker.ts';
import { loadConfig } from '../src/internal/config.ts';
import { NetGuard } from '../src/internal/net-guard.ts';
import { repoRoot, writeResult } from './lib/beir.ts';
import { calibrationBins, fitLogistic, predict } from './lib/logistic.ts';
import { balancedWeights, builtinFeatures, rerankRows, reportByKind, type RerankRow } from './lib/rerank-train.ts';
import { collectTrainingRows } from './lib/train-sets.ts';

const args = process.argv.slice(2);
const write = args.includes('--write');
const arg = (n: string, d: string) => { const i = args.indexOf(n); return i >= 0 ? args[i + 1] : d; };
const external = arg('--reranker', '') || null;
const langs = arg('--langs', 'ar,de,el,en,es,hi,ro,ru,th,tr,vi,zh').split(',');
const FOLDS = 5;
const ROWS_CACHE = path.join(repoRoot, 'bench', 'results', 'rerank-rows.json');
const round = (v: number) => Math.round(v * 1e4) / 1e4;
const sig = (z: number) => 1 / (1 + Math.exp(-z));
const logit = (p: number) => Math.log(Math.min(1 - 1e-6, Math.max(1e-6, p)) / (1 - Math.min(1 - 1e-6, Math.max(1e-6, p))));

/**
 * Balanced-weight logistic fit with 5-fold cross-validation by question (its plain and wrapped forms in
 * the same fold, so no question is scored by a fit that saw it).
 * @returns the out-of-fold probability of every row and the coefficients fitted on all rows
 */
function crossValidatedFit(rows: RerankRow[], lambda: number): { cv: number[]; w: number[] } {
  const weight = balancedWeights(rows);
  const fold = (q: string) => [...q.slice(0, q.lastIndexOf('|'))].reduce((h, ch) => (h * 31 + ch.charCodeAt(0)) >>> 0, 7) % FOLDS;
  const cv = new Array<number>(rows.length).fill(0);
  for (let f = 0; f < FOLDS; f++) {
    const tr = rows.map((_, i) => i).filter((i) => fold(rows[i].query) !== f);
    const w = fitLogistic(tr.map((i) => rows[i].x), tr.map((i) => rows[i].y), lambda, 100, tr.map((i) => weight[i]));
    rows.forEach((r, i) => { if (fold(r.query) === f) cv[i] = predict(w, r.x); });
  }
  return { cv, w: fitLogistic(rows.map((r) => r.x), rows.map((r) => r.y), lambda, 100, weight) };
}

function report(rows: RerankRow[], variants: Array<[string, number[]]>): void {
  for (const [name, p] of variants) {
    console.log(name);
    console.table(reportByKind(rows, p));
  }
}

/** Training rows of the builtin reranker: collected (--collect, or no cache yet) or read from the cache. */
async function builtinRows(): Promise<RerankRow[]> {
  if (!args.includes('--collect') && fs.existsSync(ROWS_CACHE)) return JSON.parse(fs.readFileSync(ROWS_CACHE, 'utf8')) as RerankRow[];
  const glove = await createBuiltinEmbedder({ dataDir: path.join(repoRoot, '.tmp', 'test-cache') });
  const rows: RerankRow[] = [];
  return (await collectTrainingRows(rows, rerankRows(rows, RERANK_MODEL.depth, builtinFeatures((t) => glove.embedSync(t))), Number(arg('--per-set', '40')), langs, ROWS_CACHE)).rows;
}

/** Fit (and report) the builtin reranker on the training rows; --write stores the model literal. */
async function fitBuiltin(): Promise<void> {
  const all = await builtinRows();
  const features = arg('--features', RERANK_FEATURES.join(',')).split(',') as Array<(typeof RERANK_FEATURES)[number]>;
  const cols = features.map((n) => RERANK_FEATURES.indexOf(n));
  if (cols.some((c) => c < 0)) throw new Error(`unknown feature in --features ${features.join(',')}`);
  const rows = all.map((r) => ({ ...r, x: cols.map((c) => r.x[c]) }));
  const { cv, w } = crossValidatedFit(rows, 1);
  const stdCol = RERANK_FEATURES.indexOf('std');
  const shipped = all.map((r) => sig(RERANK_MODEL.intercept + RERANK_FEATURES.reduce((z, n, k) => z + (RERANK_MODEL.weights[n] ?? 0) * r.x[k], 0)));
  report(rows, [['standard score', all.map((r) => sig(r.x[stdCol]))], ['shipped RERANK_MODEL', shipped], [`refit (5-fold CV): ${features.join(',')}`, cv]]);
  const model: RerankModel = {
    intercept: round(w[0]),
    weights: Object.fromEntries(features.map((n, i) => [n, round(w[i + 1])])) as RerankModel['weights'],
    depth: RERANK_MODEL.depth,
    source: `logistic regression on training splits (${[...new Set(rows.map((r) => r.set.replace(/^xquad-[a-z]+/, 'xquad')))].sort().join(', ')}; ${new Set(rows.map((r) => r.set + r.query)).size} queries, top ${RERANK_MODEL.depth} standard hits each, ${rows.length} candidates, ${rows.reduce((s, r) => s + r.y, 0)} relevant; each query and each kind weighed alike), bench/fit-reranker.ts, ${new Date().toISOString().slice(0, 10)}`,
  };
  console.table(calibrationBins(cv, rows.map((r) => r.y)));
  const literal = `export const RERANK_MODEL: RerankModel = ${JSON.stringify(model, null, 2).replace(/"(\w+)":/g, '$1:')};`;
  console.log(literal);
  if (write) {
    const file = path.join(repoRoot, 'src', 'models', 'builtin-reranker-model.ts');
    const src = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, src.replace(/export const RERANK_MODEL: RerankModel = \{[\s\S]*?\n\};/, literal));
    console.log(`wrote ${file}`);
  }
  console.log(`results: ${writeResult('fit-reranker', { model, report: reportByKind(rows, cv) })}`);
}

/** Fit the calibration of a configured external reranker (onnx|http) on the training rows. */
async function fitExternal(kind: string): Promise<void> {
  const config = loadConfig({ ...process.env, DOCSEARCH_RERANKER: kind });
  const configured = await createReranker(config, new NetGuard(config.allowedPrivateHosts));
  if (!configured) throw new Error('no reranker configured');
  const rr = configured.reranker;
  const rows: RerankRow[] = [];
  const visit = rerankRows(rows, configured.depth, async (query, candidates) => {
    const raw = await rr.rerank(query, candidates);
    return raw.map((v, i) => [rr.info.output === 'unit' ? logit(v) : v, logit(candidates[i].first.score)]);
  });
  await collectTrainingRows(rows, visit, Number(arg('--per-set', '10')), langs, path.join(repoRoot, 'bench', 'results', `rerank-rows-${kind}.json`));
  const { cv, w } = crossValidatedFit(rows, 0.01);
  report(rows, [['standard score', rows.map((r) => sig(r.x[1]))], ['calibrated reranker (5-fold CV)', cv]]);
  console.table(calibrationBins(cv, rows.map((r) => r.y)));
  console.log(`DOCSEARCH_RERANKER_CALIBRATION=${w.map(round).join(',')}`);
  console.log(`results: ${writeResult(`fit-reranker-${kind}`, { reranker: rr.info, calibration: w, report: reportByKind(rows, cv) })}`);
}

await initAnalysis();
if (external) await fitExternal(external);
else await fitBuiltin();
