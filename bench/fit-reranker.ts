// Fits the advanced tier on TRAINING splits only — never test (DESIGN.md §3, §5).
//  - builtin (default): the logistic regression of the builtin reranker (src/models/builtin-reranker-model.ts)
//    over the features of src/models/builtin-reranker-features.ts, on the training queries of the standard
//    relevance model (bench/lib/train-sets.ts: SciFact train claims in namespaces of 5 183, rel+100 and
//    rel+10 abstracts; XQuAD even-numbered articles in 12 languages over 1, 10 and 240 paragraphs and
//    over article documents; plain and wrapped), each query and each kind of data weighed alike;
//  - --reranker onnx|http (with the DOCSEARCH_RERANKER_* variables set): the three calibration
//    coefficients that combine that reranker with the standard score (DOCSEARCH_RERANKER_CALIBRATION), on
//    SciFact train.
// Every training query runs the real standard stages (SearchService.rank: the score exactly as served) and
// its top-`depth` hits are the candidates. Builtin: reports per kind of data (bench/lib/rerank-train.ts
// reportByKind) the standard score, the shipped model and a 5-fold cross-validated refit (folds by
// question), then fits on all rows. Usage:
//   npx tsx bench/fit-reranker.ts [--collect] [--per-set N] [--langs en,de] [--features std,title_cov,...] [--write]
//   npx tsx bench/fit-reranker.ts --reranker onnx|http
// --collect re-runs the candidate collection into bench/results/rerank-rows.json (without it the cached
// rows are refitted in seconds); --write replaces the RERANK_MODEL literal in
// src/models/builtin-reranker-model.ts.
import fs from 'node:fs';
import path from 'node:path';
import { initAnalysis } from '../src/analysis/analyzer.ts';
import { createBuiltinEmbedder } from '../src/models/builtin-embedder.ts';
import { RERANK_FEATURES, rerankFeatures } from '../src/models/builtin-reranker-features.ts';
import { RERANK_MODEL, type RerankModel } from '../src/models/builtin-reranker-model.ts';
import { createReranker } from '../src/models/create-reranker.ts';
import { loadConfig } from '../src/internal/config.ts';
import type { RerankCandidate } from '../src/models/reranker.ts';
import { rerankCandidate } from '../src/search/stages/rerank.ts';
import { fillText } from '../src/search/stages/hit-content.ts';
import { loadBeir, mean, ndcgAt, repoRoot, writeResult, type Qrels } from './lib/beir.ts';
import { createBenchProject, startBenchApp } from './lib/bench-app.ts';
import { ingestCorpus } from './lib/corpus.ts';
import { calibrationBins, fitLogistic, predict } from './lib/logistic.ts';
import { balancedWeights, rerankRows, reportByKind, type RerankRow } from './lib/rerank-train.ts';
import { collectTrainingRows } from './lib/train-sets.ts';

const args = process.argv.slice(2);
const write = args.includes('--write');
const ri = args.indexOf('--reranker');
const external = ri >= 0 ? args[ri + 1] : null;
const FOLDS = 5;
const arg = (n: string, d: string) => { const i = args.indexOf(n); return i >= 0 ? args[i + 1] : d; };
const ROWS_CACHE = path.join(repoRoot, 'bench', 'results', 'rerank-rows.json');

interface QueryRows { id: string; docs: string[]; labels: number[]; x: number[][] }

const logit = (p: number) => Math.log(Math.min(1 - 1e-6, Math.max(1e-6, p)) / (1 - Math.min(1 - 1e-6, Math.max(1e-6, p))));

async function collect(depth: number, featurise: (q: string, lang: string | null, c: RerankCandidate[]) => Promise<number[][]>): Promise<{ rows: QueryRows[]; qrels: Qrels }> {
  const { corpus, queries, qrels } = loadBeir('scifact', 'train');
  const app = await startBenchApp({ env: { DOCSEARCH_RERANKER: 'none' } });
  try {
    const s = app.handle.services;
    const p = await createBenchProject(app, 'fit-reranker');
    await ingestCorpus({ cp: s.cp, index: s.index, embedder: s.embedder, projectId: p.projectId, namespace: p.namespace }, corpus);
    const rows: QueryRows[] = [];
    for (const q of queries) {
      // The service's own ranking (titles, sentences and phrase pairs as served), not a re-assembly of it.
      const ranked = await s.search.rank({ projectId: p.projectId, namespace: p.namespace }, { query: q.text });
      const { regions } = ranked;
      const stats = ranked.stats!;
      const lang = ranked.analysed.stemLang;
      const head = regions.slice(0, depth);
      await fillText(s.index, p.namespace, head.flatMap((r) => r.chunks)); // retrieval reads no text
      const rel = qrels.get(q._id)!;
      const x = await featurise(q.text, lang, head.map((r) => rerankCandidate(r, stats, '')));
      rows.push({ id: q._id, docs: [...head, ...regions.slice(depth)].map((r) => r.docId), labels: head.map((r) => (rel.has(r.docId) ? 1 : 0)), x });
    }
    return { rows, qrels };
  } finally {
    await app.close();
  }
}

/** nDCG@10 of the model's order over the head (rest appended in standard order), by 5-fold CV. */
function crossValidate(rows: QueryRows[], qrels: Qrels, lambda: number) {
  const ndcgStd: number[] = [];
  const ndcgNew: number[] = [];
  const p: number[] = [];
  const y: number[] = [];
  for (let f = 0; f < FOLDS; f++) {
    const train = rows.filter((_, i) => i % FOLDS !== f);
    const w = fitLogistic(train.flatMap((r) => r.x), train.flatMap((r) => r.labels), lambda);
    for (const r of rows.filter((_, i) => i % FOLDS === f)) {
      const rel = qrels.get(r.id)!;
      const scores = r.x.map((x) => predict(w, x));
      const order = scores.map((_, i) => i).sort((a, b) => scores[b] - scores[a] || a - b);
      ndcgStd.push(ndcgAt(10, r.docs, rel));
      ndcgNew.push(ndcgAt(10, [...order.map((i) => r.docs[i]), ...r.docs.slice(r.x.length)], rel));
      p.push(...scores);
      y.push(...r.labels);
    }
  }
  let ll = 0;
  p.forEach((pi, i) => { ll -= y[i] ? Math.log(pi) : Math.log(1 - pi); });
  return { ndcg10Standard: mean(ndcgStd), ndcg10Reranked: mean(ndcgNew), logLoss: ll / p.length, calibration: calibrationBins(p, y) };
}

async function main(): Promise<void> {
  await initAnalysis();
  const round = (v: number) => Math.round(v * 1e4) / 1e4;
  if (!external) {
    await fitBuiltin(round);
    return;
  }
  // External reranker: fit σ(c0 + c1·z + c2·logit(standard)).
  const config = loadConfig({ ...process.env, DOCSEARCH_RERANKER: external });
  const configured = await createReranker(config, new (await import('../src/internal/net-guard.ts')).NetGuard(config.allowedPrivateHosts));
  if (!configured) throw new Error('no reranker configured');
  const rr = configured.reranker;
  const { rows, qrels } = await collect(configured.depth, async (q, lang, c) => {
    const raw = await rr.rerank({ text: q, lang }, c);
    return raw.map((v, i) => [rr.info.output === 'unit' ? logit(v) : v, logit(c[i].first.score)]);
  });
  const cv = crossValidate(rows, qrels, 0.01);
  const w = fitLogistic(rows.flatMap((r) => r.x), rows.flatMap((r) => r.labels), 0.01);
  console.table(cv.calibration);
  console.log({ ndcg10Standard: cv.ndcg10Standard, ndcg10Reranked: cv.ndcg10Reranked, logLoss: cv.logLoss });
  console.log(`DOCSEARCH_RERANKER_CALIBRATION=${w.map(round).join(',')}`);
  console.log(`results: ${writeResult(`fit-reranker-${external}`, { reranker: rr.info, calibration: w, cv })}`);
}

/** Training rows of the builtin reranker: collected (--collect, or no cache yet) or read from the cache. */
async function builtinRows(): Promise<RerankRow[]> {
  if (!args.includes('--collect') && fs.existsSync(ROWS_CACHE)) return JSON.parse(fs.readFileSync(ROWS_CACHE, 'utf8')) as RerankRow[];
  const perSet = Number(arg('--per-set', '40'));
  const langs = arg('--langs', 'ar,de,el,en,es,hi,ro,ru,th,tr,vi,zh').split(',');
  const glove = await createBuiltinEmbedder({ dataDir: path.join(repoRoot, '.tmp', 'test-cache') });
  const rows: RerankRow[] = [];
  return collectTrainingRows(rows, rerankRows(rows, RERANK_MODEL.depth, (t) => glove.embedSync(t)), perSet, langs, ROWS_CACHE);
}

/** Fit (and report) the builtin reranker on the training rows; --write stores the model literal. */
async function fitBuiltin(round: (v: number) => number): Promise<void> {
  const all = await builtinRows();
  const features = arg('--features', RERANK_FEATURES.join(',')).split(',') as Array<(typeof RERANK_FEATURES)[number]>;
  const cols = features.map((n) => RERANK_FEATURES.indexOf(n));
  if (cols.some((c) => c < 0)) throw new Error(`unknown feature in --features ${features.join(',')}`);
  const rows = all.map((r) => ({ ...r, x: cols.map((c) => r.x[c]) }));
  const weight = balancedWeights(rows);
  const sig = (z: number) => 1 / (1 + Math.exp(-z));
  const stdCol = RERANK_FEATURES.indexOf('std');
  const shipped = all.map((r) => sig(RERANK_MODEL.intercept + RERANK_FEATURES.reduce((z, n, k) => z + (RERANK_MODEL.weights[n] ?? 0) * r.x[k], 0)));
  // Folds by question (its plain and wrapped forms together), so no question is scored by a fit that saw it.
  const fold = (q: string) => [...q.slice(0, q.lastIndexOf('|'))].reduce((h, ch) => (h * 31 + ch.charCodeAt(0)) >>> 0, 7) % FOLDS;
  const cv = new Array<number>(rows.length).fill(0);
  for (let f = 0; f < FOLDS; f++) {
    const tr = rows.map((_, i) => i).filter((i) => fold(rows[i].query) !== f);
    const w = fitLogistic(tr.map((i) => rows[i].x), tr.map((i) => rows[i].y), 1, 100, tr.map((i) => weight[i]));
    rows.forEach((r, i) => { if (fold(r.query) === f) cv[i] = predict(w, r.x); });
  }
  for (const [name, p] of [['standard score', all.map((r) => sig(r.x[stdCol]))], ['shipped RERANK_MODEL', shipped], [`refit (5-fold CV): ${features.join(',')}`, cv]] as const) {
    console.log(name);
    console.table(reportByKind(rows, p));
  }
  const w = fitLogistic(rows.map((r) => r.x), rows.map((r) => r.y), 1, 100, weight);
  const queries = new Set(rows.map((r) => r.set + r.query)).size;
  const model: RerankModel = {
    intercept: round(w[0]),
    weights: Object.fromEntries(features.map((n, i) => [n, round(w[i + 1])])) as RerankModel['weights'],
    depth: RERANK_MODEL.depth,
    source: `logistic regression on training splits (${[...new Set(rows.map((r) => r.set.replace(/^xquad-[a-z]+/, 'xquad')))].sort().join(', ')}; ${queries} queries, top ${RERANK_MODEL.depth} standard hits each, ${rows.length} candidates, ${rows.reduce((s, r) => s + r.y, 0)} relevant; each query and each kind weighed alike), bench/fit-reranker.ts, ${new Date().toISOString().slice(0, 10)}`,
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

await main();
