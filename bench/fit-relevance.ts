// Fits the standard tier's relevance model (src/search/stages/relevance-model.ts) on TRAINING
// splits of several kinds of data (bench/lib/train-sets.ts): SciFact train claims in namespaces of 5 183,
// rel+100 and rel+10 abstracts; XQuAD questions of the even-numbered articles in 12 languages over
// namespaces of 1, 10 and 240 paragraphs and over multi-paragraph article documents; every question asked
// plain and wrapped in an instruction. Never FinanceBench, never the evaluation's questions or wording.
// Candidates come from SearchService.rank, i.e. exactly what the service scores. Each query carries the
// same total weight, and each (data set, namespace kind) the same total weight, so no set dominates
// the calibration. Prints the model literal, calibration per set and share of relevant hits ≥ 0.3.
// Usage:
//   npx tsx bench/fit-relevance.ts [--collect] [--features cov,bm25_pm,...] [--per-set N] [--langs en,de] [--shipped]
//   --collect re-runs the candidate collection (≈10 min) into bench/results/relevance-rows.json; without
//   it the cached rows are refitted in seconds.
//   --out FILE (with --collect) also writes the fit as a DOCSEARCH_RELEVANCE_MODEL file for this deployment's
//   embedder (DOCSEARCH_EMBEDDER* in the environment; src/search/relevance-model-file.ts, docs/models.md).
import fs from 'node:fs';
import path from 'node:path';
import { initAnalysis } from '../src/analysis/analyzer.ts';
import { repoRoot, writeResult } from './lib/beir.ts';
import { fitLogistic } from './lib/logistic.ts';
import { collectTrainingRows, relevanceRows, type TrainRow } from './lib/train-sets.ts';
import { RELEVANCE_FEATURES, RELEVANCE_MODEL, type RelevanceModel } from '../src/search/stages/relevance-model.ts';
import { parseRelevanceModelFile, RELEVANCE_MODEL_FORMAT } from '../src/search/relevance-model-file.ts';
import type { EmbeddingSignature } from '../src/storage/namespace-index.ts';

const arg = (n: string, d: string) => { const i = process.argv.indexOf(n); return i >= 0 ? process.argv[i + 1] : d; };
const FEATURES = arg('--features', 'cov,bm25_pm,cos,dense_off,rrf,anchor_cos').split(',');
const perSet = Number(arg('--per-set', '60'));
const langs = arg('--langs', 'ar,de,el,en,es,hi,ro,ru,th,tr,vi,zh').split(',');
const CACHE = path.join(repoRoot, 'bench', 'results', 'relevance-rows.json');

const out = arg('--out', '');
let embedder: EmbeddingSignature | null = null;

async function collectRows(): Promise<TrainRow[]> {
  await initAnalysis();
  const rows: TrainRow[] = [];
  const collected = await collectTrainingRows(rows, relevanceRows(rows), perSet, langs, CACHE);
  embedder = collected.embedder;
  return collected.rows;
}

/**
 * Write a DOCSEARCH_RELEVANCE_MODEL file (src/search/relevance-model-file.ts): the model, the same fit
 * without the phrase-pair features (for hits stored without pair hashes), and the embedder of the rows.
 */
function writeModelFile(file: string, model: RelevanceModel, X: number[][], y: number[], weight: number[]): void {
  const keep = FEATURES.map((n, i) => (n === 'pair_cov' || n === 'pair_cov_pool' ? -1 : i)).filter((i) => i >= 0);
  let fallback = model;
  if (keep.length < FEATURES.length) {
    const w = fitLogistic(X.map((x) => keep.map((i) => x[i])), y, 1, 100, weight);
    fallback = { intercept: round(w[0]), weights: Object.fromEntries(keep.map((i, k) => [FEATURES[i], round(w[k + 1])])), source: `${model.source} (without the phrase-pair features)` };
  }
  fs.writeFileSync(file, JSON.stringify({ format: RELEVANCE_MODEL_FORMAT, embedder, model, fallback }, null, 2) + '\n');
  parseRelevanceModelFile(fs.readFileSync(file, 'utf8'), file); // what the service will accept
  console.log(`wrote ${file} (DOCSEARCH_RELEVANCE_MODEL)`);
}

const round = (v: number) => Math.round(v * 1e4) / 1e4;

/**
 * nDCG@10 of one query's candidates ordered by predicted probability, binary gains (a candidate is a hit
 * region, so this is a ranking check on the training rows, not the BEIR document-level figure).
 */
function ndcg10(c: Array<{ p: number; y: number }>): number {
  const dcg = (ys: number[]) => ys.slice(0, 10).reduce((s, g, i) => s + g / Math.log2(i + 2), 0);
  const ideal = dcg(c.map((x) => x.y).sort((a, b) => b - a));
  return ideal > 0 ? dcg([...c].sort((a, b) => b.p - a.p).map((x) => x.y)) / ideal : 0;
}

async function main(): Promise<void> {
  if (out && !process.argv.includes('--collect')) throw new Error('--out needs --collect: the cached rows do not record the embedder they were collected with');
  const unserved = FEATURES.filter((n) => !(RELEVANCE_FEATURES as readonly string[]).includes(n));
  if (out && unserved.length) throw new Error(`--out: the service does not compute ${unserved.join(', ')}`);
  const rows = process.argv.includes('--collect') || !fs.existsSync(CACHE) ? await collectRows() : (JSON.parse(fs.readFileSync(CACHE, 'utf8')) as TrainRow[]);
  // Weights: each query 1 in total; then each set (kind of data × namespace size, languages pooled per kind) equal.
  const kindOf = (set: string) => set.replace(/^xquad-[a-z]+/, 'xquad');
  const perQuery = new Map<string, number>();
  for (const r of rows) perQuery.set(r.set + r.query, (perQuery.get(r.set + r.query) ?? 0) + 1);
  const queriesPerKind = new Map<string, Set<string>>();
  for (const r of rows) { const k = kindOf(r.set); if (!queriesPerKind.has(k)) queriesPerKind.set(k, new Set()); queriesPerKind.get(k)!.add(r.set + r.query); }
  const kinds = queriesPerKind.size;
  const totalQueries = [...queriesPerKind.values()].reduce((s, q) => s + q.size, 0);
  // --kind-weight "scifact n=5183=2": multiply one kind's total weight (default 1 each).
  const extra = new Map(process.argv.flatMap((a, i) => (a === '--kind-weight' ? [process.argv[i + 1]] : [])).map((kv) => [kv.slice(0, kv.lastIndexOf('=')), Number(kv.slice(kv.lastIndexOf('=') + 1))] as const));
  const weight = rows.map((r) => (extra.get(kindOf(r.set)) ?? 1) * (1 / perQuery.get(r.set + r.query)!) * (totalQueries / kinds / queriesPerKind.get(kindOf(r.set))!.size));
  // Query-level features (the same for every hit of a query) are derived here when the rows predate them.
  const qmax = new Map<string, { cov: number; bm25: number }>();
  for (const r of rows) {
    const k = r.set + r.query;
    const m = qmax.get(k) ?? { cov: 0, bm25: 0 };
    qmax.set(k, { cov: Math.max(m.cov, r.f.cov), bm25: Math.max(m.bm25, r.f.bm25_pm) });
  }
  for (const r of rows) {
    const m = qmax.get(r.set + r.query)!;
    (r.f as unknown as Record<string, number>).q_cov_max ??= m.cov;
    (r.f as unknown as Record<string, number>).q_bm25_max ??= m.bm25;
    const f = r.f as unknown as Record<string, number>;
    f.cov2 = f.cov * f.cov; f.cov_bm25 = f.cov * f.bm25_pm; f.bm25_pm2 = f.bm25_pm * f.bm25_pm; f.cov_rrf = f.cov * f.rrf;
    // Query-level context (rows that record it): ln N scaled to 1 at 100k chunks, and
    // the share of the query's words that some candidate holds (instruction filler lowers it).
    if (r.q) { f.ln_n = Math.log(Math.max(1, r.q.n)) / Math.log(1e5); f.match_share = r.q.matchable / Math.max(1, r.q.terms); }
  }
  // A feature named "a*b" is the product of two features (interaction terms for studies).
  const value = (f: Record<string, number>, n: string): number => (n.includes('*') ? n.split('*').reduce((p, m) => p * (f[m] ?? 0), 1) : f[n] ?? 0);
  const X = rows.map((r) => FEATURES.map((n) => value(r.f as unknown as Record<string, number>, n)));
  const y = rows.map((r) => r.y);
  // --shipped: report the shipped model (relevance-model.ts) on these rows instead of fitting one, to compare a
  // refit with the weights in use on the same rows.
  const w = process.argv.includes('--shipped')
    ? [RELEVANCE_MODEL.intercept, ...FEATURES.map((n) => RELEVANCE_MODEL.weights[n as keyof typeof RELEVANCE_MODEL.weights] ?? 0)]
    : fitLogistic(X, y, 1, 100, weight);
  const prob = (x: number[]) => 1 / (1 + Math.exp(-(w[0] + x.reduce((s, xi, j) => s + xi * w[j + 1], 0))));
  const report: Array<Record<string, unknown>> = [];
  // Reported per kind and per form (plain / wrapped in an instruction): the two forms should score alike.
  const formOf = (r: TrainRow) => r.query.slice(r.query.lastIndexOf('|') + 1);
  const groups = [...new Set(rows.map((r) => `${kindOf(r.set)} ${formOf(r)}`))].sort();
  for (const kind of groups) {
    const idx = rows.map((r, i) => (`${kindOf(r.set)} ${formOf(r)}` === kind ? i : -1)).filter((i) => i >= 0);
    let relPass = 0, rel = 0, irrPass = 0, irr = 0, top1 = 0, llSum = 0;
    const byQ = new Map<string, number[]>();
    for (const i of idx) {
      const p = prob(X[i]);
      llSum -= y[i] ? Math.log(p) : Math.log(1 - p);
      if (y[i]) { rel++; if (p >= 0.3) relPass++; } else { irr++; if (p >= 0.3) irrPass++; }
      const k = rows[i].set + rows[i].query;
      byQ.set(k, [...(byQ.get(k) ?? []), i]);
    }
    let anyRelPass = 0, ndcgSum = 0;
    for (const ids of byQ.values()) {
      const best = ids.reduce((a, b) => (prob(X[b]) > prob(X[a]) ? b : a));
      if (y[best]) top1++;
      if (ids.some((i) => y[i] && prob(X[i]) >= 0.3)) anyRelPass++;
      ndcgSum += ndcg10(ids.map((i) => ({ p: prob(X[i]), y: y[i] })));
    }
    report.push({ kind, queries: byQ.size, top1: round(top1 / byQ.size), 'nDCG@10': round(ndcgSum / byQ.size), anyRelevantAbove03: round(anyRelPass / byQ.size), relevantAbove03: round(relPass / Math.max(1, rel)), irrelevantAbove03: round(irrPass / Math.max(1, irr)), logLoss: round(llSum / idx.length) });
  }
  console.table(report);
  const bins = Array.from({ length: 10 }, () => ({ n: 0, p: 0, pos: 0 }));
  X.forEach((x, i) => { const p = prob(x); const b = bins[Math.min(9, Math.floor(p * 10))]; b.n++; b.p += p; b.pos += y[i]; });
  console.log('calibration, all rows unweighted (bin: n, mean predicted, observed)');
  bins.forEach((b, i) => { if (b.n) console.log(`  ${(i / 10).toFixed(1)}-${((i + 1) / 10).toFixed(1)}: ${String(b.n).padStart(7)}  ${(b.p / b.n).toFixed(3)}  ${(b.pos / b.n).toFixed(3)}`); });
  const model = {
    intercept: round(w[0]),
    weights: Object.fromEntries(FEATURES.map((n, i) => [n, round(w[i + 1])])),
    source: `logistic regression on training splits (${[...queriesPerKind.keys()].sort().join(', ')}; ${rows.length} candidates of ${perQuery.size} queries, ${y.filter(Boolean).length} relevant), ${embedder ? `${embedder.provider}/${embedder.model} (${embedder.dimension}-d)` : 'builtin'} embedder + LanceDB BM25, bench/fit-relevance.ts, ${new Date().toISOString().slice(0, 10)}`,
  };
  console.log(`export const RELEVANCE_MODEL: RelevanceModel = ${JSON.stringify(model, null, 2)};`);
  writeResult('fit-relevance', { model, report, calibration: bins });
  if (out) writeModelFile(out, model, X, y, weight);
}

await main();
