// Fits the relevance model (src/search/stages/relevance-model.ts) on BEIR SciFact TRAIN qrels — never
// test. The corpus (title + abstract, one chunk per document) goes into a real LanceDB namespace with the
// builtin embedder and the shared analyser; each train query runs the real search stages (analyse,
// retrieve 100 + 100, fuse, group, features); every candidate is labelled relevant iff the qrels say so,
// and a logistic regression (Newton's method, light L2) is fitted on the features of score.ts.
// Prints the coefficients as a RELEVANCE_MODEL literal, calibration by score bin, and train nDCG@10 of
// the RRF order vs the score order. Usage:
//   npx tsx bench/fit-relevance.ts [--data-dir DIR]   (DIR holds models/glove cache; default .tmp/test-cache)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { analyze, initAnalysis } from '../src/analysis/analyzer.ts';
import { countTokens } from '../src/analysis/token-count.ts';
import { createBuiltinEmbedder, type BuiltinEmbedder } from '../src/models/builtin-embedder.ts';
import { openLanceIndex, type LanceNamespaceIndex } from '../src/storage/lance-index.ts';
import type { ChunkRecord } from '../src/storage/namespace-index.ts';
import { analyseQuery } from '../src/search/stages/analyze-query.ts';
import { fuseRrf, queryStats } from '../src/search/stages/fuse.ts';
import { groupRegions } from '../src/search/stages/group-regions.ts';
import { retrieve } from '../src/search/stages/retrieve.ts';
import { relevanceFeatures } from '../src/search/stages/score.ts';
import { RELEVANCE_FEATURES, type RelevanceModel } from '../src/search/stages/relevance-model.ts';
import { fitLogistic } from './lib/logistic.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const scifact = path.resolve(repoRoot, '../shared/data/beir/scifact');
const argDir = process.argv.indexOf('--data-dir');
const modelDir = argDir > 0 ? path.resolve(process.argv[argDir + 1]) : path.join(repoRoot, '.tmp', 'test-cache');

const readJsonl = <T>(f: string): T[] => fs.readFileSync(f, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as T);

function readQrels(file: string): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  for (const line of fs.readFileSync(file, 'utf8').split('\n').slice(1)) {
    const [q, d, s] = line.trim().split('\t');
    if (!q || !d) continue;
    if (!out.has(q)) out.set(q, new Map());
    out.get(q)!.set(d, Number(s));
  }
  return out;
}

function ndcg10(ranked: string[], rel: Map<string, number>): number {
  let dcg = 0;
  ranked.slice(0, 10).forEach((id, i) => { dcg += (rel.get(id) ?? 0) / Math.log2(i + 2); });
  const ideal = [...rel.values()].sort((a, b) => b - a).slice(0, 10).reduce((s, r, i) => s + r / Math.log2(i + 2), 0);
  return ideal > 0 ? dcg / ideal : 0;
}

type Row = { doc: string; rrfRank: number; x: number[] };
type Corpus = Array<{ _id: string; title: string; text: string }>;

/** Index `docs` (one chunk each) into namespace `ns`. */
async function indexCorpus(index: LanceNamespaceIndex, embedder: BuiltinEmbedder, ns: string, docs: Corpus): Promise<void> {
  for (let i = 0; i < docs.length; i += 1000) {
    const part = docs.slice(i, i + 1000);
    const texts = part.map((d) => `${d.title}\n\n${d.text}`);
    const vectors = await embedder.embedDocuments(texts);
    const rows: ChunkRecord[] = part.map((d, j) => ({
      id: `${d._id}:0`, doc_id: d._id, source_job_id: 'fit', chunk_index: 0, chunkset_index: 0, page_start: 1, page_end: 1,
      heading_path: d.title, content: d.text, tokens: analyze(texts[j], 'en').join(' '), token_count: countTokens(d.text), vector: vectors[j],
    }));
    await index.addChunks(ns, rows, embedder.signature);
  }
  await index.optimize(ns);
}

/** Run the real stages for each query and return the candidates' features in fused order. */
async function collect(index: LanceNamespaceIndex, embedder: BuiltinEmbedder, ns: string, queries: Array<{ _id: string; text: string }>, chunkCount: number): Promise<Map<string, Row[]>> {
  const out = new Map<string, Row[]>();
  for (const q of queries) {
    const a = analyseQuery(q.text, 'en');
    const vector = await embedder.embedQuery(q.text);
    const got = await retrieve(index, ns, { vector, terms: a.terms }, undefined);
    const stats = queryStats(got.vector, got.bm25, (got.bm25?.length ?? 0) < got.limit, a.termCount, chunkCount);
    out.set(q._id, groupRegions(fuseRrf(got.vector, got.bm25)).map((r, i) => {
      const f = relevanceFeatures(r.signals, stats);
      return { doc: r.docId, rrfRank: i, x: RELEVANCE_FEATURES.map((n) => f[n]) };
    }));
  }
  return out;
}

async function main(): Promise<void> {
  await initAnalysis();
  const embedder = await createBuiltinEmbedder({ dataDir: modelDir });
  const lanceDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fit-relevance-'));
  const index = await openLanceIndex({ uri: lanceDir });
  try {
    const corpus = readJsonl<Corpus[number]>(path.join(scifact, 'corpus.jsonl'));
    const t0 = performance.now();
    await indexCorpus(index, embedder, 'scifact_full', corpus);
    console.error(`indexed ${corpus.length} docs in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    const qrels = readQrels(path.join(scifact, 'qrels', 'train.tsv'));
    const queries = readJsonl<{ _id: string; text: string }>(path.join(scifact, 'queries.jsonl')).filter((q) => qrels.has(q._id));
    const full = await collect(index, embedder, 'scifact_full', queries, corpus.length);
    const X: number[][] = [];
    const y: number[] = [];
    for (const q of queries) for (const r of full.get(q._id)!) { X.push(r.x); y.push(qrels.get(q._id)!.has(r.doc) ? 1 : 0); }
    const w = fitLogistic(X, y);
    const model: RelevanceModel = {
      intercept: round(w[0]),
      weights: Object.fromEntries(RELEVANCE_FEATURES.map((n, i) => [n, round(w[i + 1])])) as RelevanceModel['weights'],
      source: `logistic regression on BEIR SciFact train qrels (${queries.length} queries, ${X.length} candidates, ${y.filter(Boolean).length} relevant), builtin embedder + LanceDB BM25, bench/fit-relevance.ts, ${new Date().toISOString().slice(0, 10)}`,
    };
    const prob = (x: number[]) => 1 / (1 + Math.exp(-(w[0] + x.reduce((s, xi, j) => s + xi * w[j + 1], 0))));
    let ll = 0;
    const bins = Array.from({ length: 10 }, () => ({ n: 0, pos: 0, p: 0 }));
    X.forEach((x, i) => {
      const p = prob(x);
      ll -= y[i] ? Math.log(p) : Math.log(1 - p);
      const b = bins[Math.min(9, Math.floor(p * 10))];
      b.n++; b.pos += y[i]; b.p += p;
    });
    const evaluate = (rowsOf: Map<string, Row[]>, qs: typeof queries) => {
      let ndcgRrf = 0, ndcgScore = 0, recall100 = 0, top1 = 0, relPass = 0, relTotal = 0, irrPass = 0, irrTotal = 0;
      for (const q of qs) {
        const rows = rowsOf.get(q._id)!;
        const rel = qrels.get(q._id)!;
        ndcgRrf += ndcg10(rows.map((r) => r.doc), rel);
        const byScore = [...rows].sort((a, b) => prob(b.x) - prob(a.x) || a.rrfRank - b.rrfRank);
        ndcgScore += ndcg10(byScore.map((r) => r.doc), rel);
        recall100 += rows.slice(0, 100).filter((r) => rel.has(r.doc)).length / rel.size;
        if (byScore[0] && rel.has(byScore[0].doc)) top1++;
        for (const r of rows) {
          if (rel.has(r.doc)) { relTotal++; if (prob(r.x) >= 0.3) relPass++; } else { irrTotal++; if (prob(r.x) >= 0.3) irrPass++; }
        }
      }
      const n = qs.length;
      return { ndcg10Rrf: ndcgRrf / n, ndcg10Score: ndcgScore / n, recall100: recall100 / n, top1: top1 / n, relevantAbove03: relPass / Math.max(1, relTotal), irrelevantAbove03: irrPass / Math.max(1, irrTotal) };
    };
    // Size robustness: a small namespace (the relevant documents of 40 train queries plus 40 others).
    const some = queries.slice(0, 40);
    const wanted = new Set(some.flatMap((q) => [...qrels.get(q._id)!.keys()]));
    const small = corpus.filter((d, i) => wanted.has(d._id) || i % 130 === 0);
    await indexCorpus(index, embedder, 'scifact_small', small);
    const smallRows = await collect(index, embedder, 'scifact_small', some, small.length);
    const report = { full: evaluate(full, queries), fullSame40: evaluate(full, some), small: { docs: small.length, ...evaluate(smallRows, some) } };
    console.log('calibration (predicted bin: count, mean predicted, observed rate)');
    bins.forEach((b, i) => { if (b.n) console.log(`  ${(i / 10).toFixed(1)}-${((i + 1) / 10).toFixed(1)}: ${String(b.n).padStart(6)}  ${(b.p / b.n).toFixed(3)}  ${(b.pos / b.n).toFixed(3)}`); });
    console.log(`log-loss per candidate ${(ll / X.length).toFixed(4)}`);
    console.table(report);
    console.log(`export const RELEVANCE_MODEL: RelevanceModel = ${JSON.stringify(model, null, 2)};`);
    const outDir = path.join(repoRoot, 'bench', 'results');
    fs.mkdirSync(outDir, { recursive: true });
    fs.writeFileSync(path.join(outDir, 'fit-relevance.json'), JSON.stringify({ model, logLoss: ll / X.length, calibration: bins, report }, null, 2));
  } finally {
    await index.close();
    fs.rmSync(lanceDir, { recursive: true, force: true });
  }
}

const round = (v: number) => Math.round(v * 1e4) / 1e4;

await main();
