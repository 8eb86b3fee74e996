// LanceDB's native hybrid query against the service's two engine calls: does its native hybrid
// query rank as well as the two calls fused here, and at what cost? Two measurements:
//   1. cost, on a namespace kept by bench:latency (--reuse DIR): per query, interleaved, vector ∥ BM25 as two
//      calls (the service's shape; once with the full chunk rows, once with the columns the service reads)
//      and one native hybrid call (FTS + nearest neighbours, fused by LanceDB's RRFReranker, k = 60), at
//      depths 100 and 10; p50/p90 ms.
//   2. ranking, on BEIR SciFact test (5 183 abstracts, 300 queries, scratch index): nDCG@10 of the
//      candidates in the service's standard order and in RRF order (k = 60, Cormack et al. 2009), which is
//      the order the native hybrid query returns for the same two lists.
// The native hybrid result keeps `_score` (BM25) but not `_distance`, so the per-list features the relevance
// model needs (docs/search.md) would be lost as well. Prints both tables; writes bench/results/native-hybrid.json.
// Usage: npx tsx bench/native-hybrid.ts --reuse DIR [--queries N] [--skip-quality]
import fs from 'node:fs';
import path from 'node:path';
import { analyseQuery } from '../src/search/stages/analyze-query.ts';
import { SEARCH_COLUMNS } from '../src/storage/lance-arrow.ts';
import { TERMS_COLUMN } from '../src/storage/lance-layout.ts';
import { withAnnParams } from '../src/storage/lance-ann.ts';
import { loadBuiltinEmbedder } from '../src/models/builtin-embedder.ts';
import { initAnalysis } from '../src/analysis/analyzer.ts';
import { beirDir, loadBeir, mean, ndcgAt, readJsonl, writeResult } from './lib/beir.ts';
import { collectCandidates, indexBeirCorpus, withScratchIndex } from './lib/scifact-candidates.ts';
import { BASELINE_COLUMNS, openBaselineTable, vectorAndBm25 } from './lib/engine-baseline.ts';
import { percentile } from './lib/quality.ts';

const argOf = (name: string): string | undefined => { const i = process.argv.indexOf(name); return i >= 0 ? process.argv[i + 1] : undefined; };
const REUSE = argOf('--reuse');
const QUERIES = Number(argOf('--queries') ?? 200);
const WARM = 20;
/** p50 and p90 of `ms` (nearest rank), rounded to 0.01 ms. */
function quantiles(ms: number[]): { p50: number; p90: number } {
  return { p50: Number(percentile(ms, 50).toFixed(2)), p90: Number(percentile(ms, 90).toFixed(2)) };
}

async function cost(dir: string): Promise<Array<{ call: string; depth: number; p50: number; p90: number }>> {
  const kept = JSON.parse(fs.readFileSync(path.join(dir, 'bench-latency-state.json'), 'utf8')) as { namespace: string };
  await initAnalysis();
  const queries = readJsonl<{ text: string }>(path.join(beirDir('scifact'), 'queries.jsonl')).map((q) => q.text).slice(0, QUERIES + WARM);
  const embedder = await loadBuiltinEmbedder(dir);
  const vectors = await Promise.all(queries.map((q) => embedder.embedQuery(q)));
  const terms = queries.map((q) => analyseQuery(q, 'en').terms);
  const baseline = await openBaselineTable(dir, kept.namespace);
  const { lancedb, table, ann } = baseline;
  const rrf = await lancedb.rerankers.RRFReranker.create(60);
  const service = [...SEARCH_COLUMNS, TERMS_COLUMN, 'vector'];
  const two = (k: number, depth: number, columns = BASELINE_COLUMNS) => vectorAndBm25(baseline, vectors[k], terms[k], { columns, depth, rowIds: true });
  const hybrid = (k: number, depth: number) => withAnnParams(
    table.query().fullTextSearch(new lancedb.MatchQuery(terms[k].join(' '), 'tokens', { operator: lancedb.Operator.Or })).nearestTo(vectors[k]).column('vector').distanceType('cosine'), ann, depth,
  ).rerank(rrf).select([...BASELINE_COLUMNS]).limit(depth).toArrow();
  const calls: Array<[string, number, (k: number) => Promise<unknown>]> = [
    ['vector ∥ BM25 (chunk rows)', 100, (k) => two(k, 100)],
    ['vector ∥ BM25 (service columns)', 100, (k) => two(k, 100, service)],
    ['native hybrid, RRF', 100, (k) => hybrid(k, 100)],
    ['vector ∥ BM25 (chunk rows)', 10, (k) => two(k, 10)],
    ['native hybrid, RRF', 10, (k) => hybrid(k, 10)],
  ];
  const ms = calls.map(() => [] as number[]);
  for (let k = 0; k < queries.length; k++) {
    for (const [i, [, , fn]] of calls.entries()) {
      const t = performance.now();
      await fn(k);
      if (k >= WARM) ms[i].push(performance.now() - t);
    }
  }
  baseline.close();
  return calls.map(([call, depth], i) => ({ call, depth, ...quantiles(ms[i]) }));
}

async function ranking(): Promise<{ standard: number; rrf: number; queries: number }> {
  return withScratchIndex('native-hybrid', async ({ index, embedder }) => {
    const test = loadBeir('scifact', 'test');
    await indexBeirCorpus(index, embedder, 'scifact', test.corpus);
    const found = await collectCandidates(index, embedder, 'scifact', test.queries, test.corpus.length);
    const standard: number[] = [];
    const fused: number[] = [];
    for (const q of test.queries) {
      const rel = test.qrels.get(q._id) ?? new Map<string, number>();
      const candidates = found.get(q._id)!.candidates;
      standard.push(ndcgAt(10, candidates.map((c) => c.doc), rel));
      fused.push(ndcgAt(10, [...candidates].sort((a, b) => a.rrfRank - b.rrfRank).map((c) => c.doc), rel));
    }
    return { standard: Number(mean(standard).toFixed(4)), rrf: Number(mean(fused).toFixed(4)), queries: test.queries.length };
  });
}

const result: Record<string, unknown> = { date: new Date().toISOString() };
if (REUSE) {
  const rows = await cost(REUSE);
  console.log(`cost per query (${QUERIES} SciFact queries, interleaved, one client; ${REUSE})`);
  console.table(rows);
  result.cost = rows;
}
if (!process.argv.includes('--skip-quality')) {
  const r = await ranking();
  console.log(`BEIR SciFact test nDCG@10 (${r.queries} queries): standard order ${r.standard}, RRF order (= native hybrid) ${r.rrf}`);
  result.ranking = r;
}
console.log(`wrote ${writeResult('native-hybrid', result)}`);
