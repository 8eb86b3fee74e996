// Which signals should order the standard tier's hits? Compares relevance-model feature sets on BEIR
// SciFact: each set gets a logistic regression (the same fit as bench/fit-relevance.ts) on TRAIN qrels and
// is judged by 5-fold cross-validated nDCG@10 on train (folds by query). Selection rule (forward
// selection from the previously shipped model): a feature joins when it raises train CV nDCG@10 by at
// least MIN_GAIN; no feature is dropped on SciFact evidence alone, because with the weak builtin embedder
// SciFact cannot show what the dense features are worth (the trade-off on XQuAD en is in docs/search.md). Test
// nDCG@10 is printed for the record only — it never chooses — with paired sign-flip randomisation tests
// (10 000 draws) of the chosen set against BM25 only and against the previous model. Usage:
//   npx tsx bench/fusion-study.ts [--data-dir DIR]   (DIR holds the GloVe cache; default .tmp/test-cache)
import { relevanceFeatures } from '../src/search/stages/score.ts';
import { loadBeir, mean, ndcgAt, writeResult, type Qrels } from './lib/beir.ts';
import { fitLogistic } from './lib/logistic.ts';
import { rng } from './lib/random.ts';
import { collectCandidates, indexBeirCorpus, withScratchIndex, type Candidate, type QueryCandidates } from './lib/scifact-candidates.ts';

/** Every feature any set may use: the service's own definitions (score.ts). */
function allFeatures(c: Candidate, q: QueryCandidates): Record<string, number> {
  return relevanceFeatures(c.input, q.stats) as unknown as Record<string, number>;
}

/** Least train-CV nDCG@10 gain for a feature to join the model (≈ the CV noise seen between folds). */
const MIN_GAIN = 0.002;
const PREVIOUS = 'previous model (cos, cos_gap, bm25, rrf)';
const CANDIDATE = 'previous model + anchor';

const SETS: Record<string, string[]> = {
  'BM25 only': ['bm25_rel', 'bm25_per_term'],
  'BM25 + query cosine': ['bm25_rel', 'bm25_per_term', 'cos'],
  'previous model (cos, cos_gap, bm25, rrf)': ['cos', 'cos_gap', 'bm25_rel', 'bm25_per_term', 'rrf'],
  'previous model + anchor': ['cos', 'cos_gap', 'bm25_rel', 'bm25_per_term', 'rrf', 'anchor_cos'],
  'BM25 + anchor': ['bm25_rel', 'bm25_per_term', 'anchor_cos'],
  'BM25 + anchor + query cosine': ['bm25_rel', 'bm25_per_term', 'anchor_cos', 'cos'],
  'BM25 + anchor + cos_gap': ['bm25_rel', 'bm25_per_term', 'anchor_cos', 'cos_gap'],
  'BM25 + anchor + rrf': ['bm25_rel', 'bm25_per_term', 'anchor_cos', 'rrf'],
};

type Split = { ids: string[]; found: Map<string, QueryCandidates>; qrels: Qrels };

function rows(split: Split, ids: string[], names: string[]): { X: number[][]; y: number[] } {
  const X: number[][] = [];
  const y: number[] = [];
  for (const id of ids) {
    const q = split.found.get(id)!;
    for (const c of q.candidates) { const f = allFeatures(c, q); X.push(names.map((n) => f[n])); y.push((split.qrels.get(id)!.get(c.doc) ?? 0) > 0 ? 1 : 0); }
  }
  return { X, y };
}

/** Per-query nDCG@10 of ordering by the fitted linear predictor (ties: RRF order). */
function perQuery(split: Split, ids: string[], names: string[], w: number[]): number[] {
  return ids.map((id) => {
    const q = split.found.get(id)!;
    const z = (c: Candidate) => { const f = allFeatures(c, q); return names.reduce((s, n, j) => s + w[j + 1] * f[n], w[0]); };
    const ranked = q.candidates.map((c) => ({ c, z: z(c) })).sort((a, b) => b.z - a.z || a.c.rrfRank - b.c.rrfRank);
    return ndcgAt(10, ranked.map((r) => r.c.doc), split.qrels.get(id)!);
  });
}

function fit(split: Split, ids: string[], names: string[]): number[] {
  const { X, y } = rows(split, ids, names);
  return fitLogistic(X, y);
}

/** Two-sided paired sign-flip randomisation test of mean(a − b) (Smucker et al., CIKM 2007). */
function randomisationP(a: number[], b: number[], draws = 10_000): number {
  const d = a.map((x, i) => x - b[i]);
  const observed = Math.abs(mean(d));
  const rand = rng(7);
  let extreme = 0;
  for (let k = 0; k < draws; k++) {
    const m = Math.abs(mean(d.map((x) => (rand() < 0.5 ? -x : x))));
    if (m >= observed - 1e-12) extreme++;
  }
  return (extreme + 1) / (draws + 1);
}

async function main(): Promise<void> {
  await withScratchIndex('fusion-study', async ({ index, embedder }) => {
    const train = loadBeir('scifact', 'train');
    const test = loadBeir('scifact', 'test');
    await indexBeirCorpus(index, embedder, 'scifact', train.corpus);
    const split = async (d: typeof train): Promise<Split> => ({
      ids: d.queries.map((q) => q._id),
      found: await collectCandidates(index, embedder, 'scifact', d.queries, d.corpus.length),
      qrels: d.qrels,
    });
    const tr = await split(train);
    const te = await split(test);
    const table: Array<Record<string, string | number>> = [];
    const testPer = new Map<string, number[]>();
    for (const [name, names] of Object.entries(SETS)) {
      const cv: number[] = [];
      for (let k = 0; k < 5; k++) {
        const fitIds = tr.ids.filter((_, i) => i % 5 !== k);
        const heldOut = tr.ids.filter((_, i) => i % 5 === k);
        cv.push(...perQuery(tr, heldOut, names, fit(tr, fitIds, names)));
      }
      const w = fit(tr, tr.ids, names);
      testPer.set(name, perQuery(te, te.ids, names, w));
      table.push({ 'feature set': name, 'train CV nDCG@10': Number(mean(cv).toFixed(4)), 'train nDCG@10': Number(mean(perQuery(tr, tr.ids, names, w)).toFixed(4)), 'test nDCG@10': Number(mean(testPer.get(name)!).toFixed(4)) });
    }
    const cvOf = (name: string) => Number(table.find((r) => r['feature set'] === name)!['train CV nDCG@10']);
    const gain = cvOf(CANDIDATE) - cvOf(PREVIOUS);
    const chosen = gain >= MIN_GAIN ? CANDIDATE : PREVIOUS;
    console.log(`BEIR SciFact: feature sets of the relevance model (logistic regression, ${tr.ids.length} train / ${te.ids.length} test queries)`);
    console.table(table);
    const vs = (other: string) => ({
      delta: Number((mean(testPer.get(chosen)!) - mean(testPer.get(other)!)).toFixed(4)),
      p: Number(randomisationP(testPer.get(chosen)!, testPer.get(other)!).toFixed(3)),
    });
    const vsBm25 = vs('BM25 only');
    const vsPrevious = vs(PREVIOUS);
    console.log(`anchor_cos: train CV gain ${gain.toFixed(4)} (rule: ≥ ${MIN_GAIN}) -> chosen: ${chosen}`);
    console.log(`test, chosen vs BM25 only: Δ nDCG@10 ${vsBm25.delta}, randomisation p = ${vsBm25.p}; vs the previous model: Δ ${vsPrevious.delta}, p = ${vsPrevious.p}`);
    writeResult('fusion-study', { table, cvGain: gain, chosen, vsBm25, vsPrevious });
  });
}

await main();
