// Fits the advanced tier on BEIR SciFact TRAIN qrels — never test (DESIGN.md §3, §5).
//  - builtin (default): the logistic regression of the builtin reranker (src/models/builtin-reranker-model.ts)
//    over the features of src/models/builtin-reranker-features.ts;
//  - --reranker onnx|http (with the DOCSEARCH_RERANKER_* variables set): the three calibration
//    coefficients that combine that reranker with the standard score (DOCSEARCH_RERANKER_CALIBRATION).
// The corpus is ingested into a real docsearch app (bench/lib/corpus.ts); every train query runs the real
// standard stages (SearchService.rank: the score exactly as served, titles included) and its top-`depth` hits are the
// candidates, labelled relevant iff the qrels say so. Reports 5-fold cross-validated nDCG@10 (standard
// order vs reranked) and calibration, then fits on all train queries. Usage:
//   npx tsx bench/fit-reranker.ts [--write] [--reranker onnx|http]
// --write replaces the RERANK_MODEL literal in src/models/builtin-reranker-model.ts (builtin only).
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

const args = process.argv.slice(2);
const write = args.includes('--write');
const ri = args.indexOf('--reranker');
const external = ri >= 0 ? args[ri + 1] : null;
const FOLDS = 5;

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
    const glove = await createBuiltinEmbedder({ dataDir: path.join(repoRoot, '.tmp', 'test-cache') });
    const depth = RERANK_MODEL.depth;
    const { rows, qrels } = await collect(depth, async (q, lang, c) =>
      rerankFeatures(q, lang, c, (t) => glove.embedSync(t)).map((f) => RERANK_FEATURES.map((n) => f[n])));
    const cv = crossValidate(rows, qrels, 1);
    const w = fitLogistic(rows.flatMap((r) => r.x), rows.flatMap((r) => r.labels), 1);
    const model: RerankModel = {
      intercept: round(w[0]),
      weights: Object.fromEntries(RERANK_FEATURES.map((n, i) => [n, round(w[i + 1])])) as RerankModel['weights'],
      depth,
      source: `logistic regression on BEIR SciFact train qrels (${rows.length} queries, top ${depth} standard hits each, ${rows.reduce((s, r) => s + r.labels.length, 0)} candidates, ${rows.reduce((s, r) => s + r.labels.reduce((a, b) => a + b, 0), 0)} relevant); 5-fold CV nDCG@10 ${cv.ndcg10Standard.toFixed(4)} (standard) -> ${cv.ndcg10Reranked.toFixed(4)} (reranked); bench/fit-reranker.ts, ${new Date().toISOString().slice(0, 10)}`,
    };
    console.table(cv.calibration);
    console.log({ ndcg10Standard: cv.ndcg10Standard, ndcg10Reranked: cv.ndcg10Reranked, logLoss: cv.logLoss });
    const literal = `export const RERANK_MODEL: RerankModel = ${JSON.stringify(model, null, 2).replace(/"(\w+)":/g, '$1:')};`;
    console.log(literal);
    if (write) {
      const file = path.join(repoRoot, 'src', 'models', 'builtin-reranker-model.ts');
      const src = fs.readFileSync(file, 'utf8');
      fs.writeFileSync(file, src.replace(/export const RERANK_MODEL: RerankModel = \{[\s\S]*?\n\};/, literal));
      console.log(`wrote ${file}`);
    }
    console.log(`results: ${writeResult('fit-reranker', { model, cv })}`);
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

await main();
