// Fits the relevance model (src/search/stages/relevance-model.ts) on BEIR SciFact TRAIN qrels — never
// test. The corpus (title + abstract, one chunk per document) goes into a real LanceDB namespace with the
// builtin embedder and the shared analyser; each train query runs the real search stages (analyse,
// retrieve 100 + 100, fuse, lexical anchor, group, features); every candidate is labelled relevant iff the qrels say so,
// and a logistic regression (Newton's method, light L2) is fitted on the features of score.ts.
// Prints the coefficients as a RELEVANCE_MODEL literal, calibration by score bin, and train nDCG@10 of
// the RRF order vs the score order. Usage:
//   npx tsx bench/fit-relevance.ts [--data-dir DIR]   (DIR holds models/glove cache; default .tmp/test-cache)
import { relevanceFeatures } from '../src/search/stages/score.ts';
import { RELEVANCE_FEATURES, type RelevanceModel } from '../src/search/stages/relevance-model.ts';
import { loadBeir, ndcgAt, writeResult } from './lib/beir.ts';
import { fitLogistic } from './lib/logistic.ts';
import { collectCandidates, indexBeirCorpus, withScratchIndex, type QueryCandidates } from './lib/scifact-candidates.ts';

type Row = { doc: string; rrfRank: number; x: number[] };

/** Candidate rows with the relevance model's features, in RRF order. */
function rowsOf(found: Map<string, QueryCandidates>): Map<string, Row[]> {
  return new Map([...found].map(([id, q]) => {
    const rows = [...q.candidates].sort((a, b) => a.rrfRank - b.rrfRank).map((c) => {
      const f = relevanceFeatures(c.input, q.stats);
      return { doc: c.doc, rrfRank: c.rrfRank, x: RELEVANCE_FEATURES.map((n) => f[n]) };
    });
    return [id, rows];
  }));
}

async function main(): Promise<void> {
  await withScratchIndex('fit-relevance', async ({ index, embedder }) => {
    const { corpus, queries, qrels } = loadBeir('scifact', 'train');
    const t0 = performance.now();
    await indexBeirCorpus(index, embedder, 'scifact_full', corpus);
    console.error(`indexed ${corpus.length} docs in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    const full = rowsOf(await collectCandidates(index, embedder, 'scifact_full', queries, corpus.length));
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
        ndcgRrf += ndcgAt(10, rows.map((r) => r.doc), rel);
        const byScore = [...rows].sort((a, b) => prob(b.x) - prob(a.x) || a.rrfRank - b.rrfRank);
        ndcgScore += ndcgAt(10, byScore.map((r) => r.doc), rel);
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
    await indexBeirCorpus(index, embedder, 'scifact_small', small);
    const smallRows = rowsOf(await collectCandidates(index, embedder, 'scifact_small', some, small.length));
    const report = { full: evaluate(full, queries), fullSame40: evaluate(full, some), small: { docs: small.length, ...evaluate(smallRows, some) } };
    console.log('calibration (predicted bin: count, mean predicted, observed rate)');
    bins.forEach((b, i) => { if (b.n) console.log(`  ${(i / 10).toFixed(1)}-${((i + 1) / 10).toFixed(1)}: ${String(b.n).padStart(6)}  ${(b.p / b.n).toFixed(3)}  ${(b.pos / b.n).toFixed(3)}`); });
    console.log(`log-loss per candidate ${(ll / X.length).toFixed(4)}`);
    console.table(report);
    console.log(`export const RELEVANCE_MODEL: RelevanceModel = ${JSON.stringify(model, null, 2)};`);
    writeResult('fit-relevance', { model, logLoss: ll / X.length, calibration: bins, report });
  });
}

const round = (v: number) => Math.round(v * 1e4) / 1e4;

await main();
