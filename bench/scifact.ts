// Retrieval quality on BEIR SciFact, TEST split (DESIGN.md §8, §9): nDCG@10 and recall@100 for docsearch's
// BM25 alone, vector alone, the standard hybrid tier and the advanced tier, through the real SearchService
// and NamespaceIndex of an app started in a temp data dir (corpus ingested by bench/lib/corpus.ts). Also
// the calibration check of `score`: how often hits scoring ≥ 0.3 (the default min_relevance) are relevant
// compared with hits below, per tier. Prints tables; writes bench/results/scifact.json. Usage:
//   npm run bench:scifact [-- --split test] [-- --limit N] [-- --variants standard,bm25] [-- --per-query FILE]
// (--per-query writes each query's nDCG@10 per variant as JSON, to compare two builds query by query)
import fs from 'node:fs';
import { initAnalysis } from '../src/analysis/analyzer.ts';
import { loadBeir, mean, ndcgAt, recallAt, writeResult } from './lib/beir.ts';
import { createBenchProject, startBenchApp } from './lib/bench-app.ts';
import { ingestCorpus } from './lib/corpus.ts';
import { fallbackLanguage, percentile, runVariant, VARIANTS as ALL_VARIANTS, type Variant } from './lib/quality.ts';

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const split = arg('--split') ?? 'test';
const limit = Number(arg('--limit') ?? Infinity);
// --variants standard,bm25 measures only those (e.g. to compare ranking changes on the train split quickly).
const VARIANTS = (arg('--variants')?.split(',') ?? ALL_VARIANTS).filter((v): v is Variant => (ALL_VARIANTS as string[]).includes(v));
const THRESHOLD = 0.3;
const perQueryFile = arg('--per-query');

async function main(): Promise<void> {
  await initAnalysis();
  const { corpus, queries: allQueries, qrels } = loadBeir('scifact', split);
  const queries = allQueries.slice(0, limit);
  const app = await startBenchApp();
  try {
    const s = app.handle.services;
    const p = await createBenchProject(app, 'scifact');
    let t0 = performance.now();
    const chunks = await ingestCorpus({ cp: s.cp, index: s.index, embedder: s.embedder, projectId: p.projectId, namespace: p.namespace }, corpus);
    const ingestS = (performance.now() - t0) / 1000;
    console.log(`ingested ${corpus.length} documents as ${chunks} chunks in ${ingestS.toFixed(1)} s; ${queries.length} ${split} queries`);
    const target = { services: s, projectId: p.projectId, namespace: p.namespace };
    const fallback = await fallbackLanguage(target);
    const per: Record<Variant, { ndcg: number[]; recall: number[]; ms: number[] }> = Object.fromEntries(VARIANTS.map((v) => [v, { ndcg: [], recall: [], ms: [] }])) as never;
    const calib: Record<'standard' | 'advanced', { above: number[]; below: number[]; bins: Array<{ n: number; rel: number; p: number }> }> = {
      standard: { above: [], below: [], bins: Array.from({ length: 10 }, () => ({ n: 0, rel: 0, p: 0 })) },
      advanced: { above: [], below: [], bins: Array.from({ length: 10 }, () => ({ n: 0, rel: 0, p: 0 })) },
    };
    t0 = performance.now();
    const perQuery: Record<string, Partial<Record<Variant, number>>> = {};
    for (const q of queries) {
      const rel = qrels.get(q._id)!;
      for (const v of VARIANTS) {
        const r = await runVariant(target, v, q.text, fallback);
        per[v].ndcg.push(ndcgAt(10, r.docs, rel));
        (perQuery[q._id] ??= {})[v] = per[v].ndcg[per[v].ndcg.length - 1];
        per[v].recall.push(recallAt(100, r.docs, rel));
        per[v].ms.push(r.ms);
        if (v === 'standard' || v === 'advanced') {
          const seen = new Set<string>();
          for (const h of r.hits) {
            if (seen.has(h.doc)) continue; // a document's best hit stands for it
            seen.add(h.doc);
            const y = (rel.get(h.doc) ?? 0) > 0 ? 1 : 0;
            (h.score >= THRESHOLD ? calib[v].above : calib[v].below).push(y);
            const b = calib[v].bins[Math.min(9, Math.floor(h.score * 10))];
            b.n++; b.rel += y; b.p += h.score;
          }
        }
      }
    }
    const runS = (performance.now() - t0) / 1000;
    const table = VARIANTS.map((v) => ({
      variant: v,
      'nDCG@10': Number(mean(per[v].ndcg).toFixed(4)),
      'recall@100': Number(mean(per[v].recall).toFixed(4)),
      'p50 ms': Number(percentile(per[v].ms, 50).toFixed(1)),
      'p95 ms': Number(percentile(per[v].ms, 95).toFixed(1)),
    }));
    console.log(`\nBEIR SciFact ${split} (${queries.length} queries), in-process, ${runS.toFixed(0)} s`);
    console.table(table);
    const calibration = (['standard', 'advanced'] as const).map((v) => {
      const c = calib[v];
      const relevantTotal = c.above.reduce((a, b) => a + b, 0) + c.below.reduce((a, b) => a + b, 0);
      return {
        tier: v,
        'hits ≥ 0.3': c.above.length,
        'relevant among ≥ 0.3': Number(mean(c.above).toFixed(4)),
        'hits < 0.3': c.below.length,
        'relevant among < 0.3': Number(mean(c.below).toFixed(4)),
        'margin (pp)': Number(((mean(c.above) - mean(c.below)) * 100).toFixed(1)),
        'relevant kept at 0.3': Number((c.above.reduce((a, b) => a + b, 0) / Math.max(1, relevantTotal)).toFixed(4)),
      };
    });
    console.log('\ncalibration: share of hits (best hit per document) whose document is relevant, by score');
    console.table(calibration);
    const bins = (['standard', 'advanced'] as const).flatMap((v) => calib[v].bins.map((b, i) => ({ tier: v, bin: `${(i / 10).toFixed(1)}-${((i + 1) / 10).toFixed(1)}`, hits: b.n, 'mean score': b.n ? Number((b.p / b.n).toFixed(3)) : null, observed: b.n ? Number((b.rel / b.n).toFixed(3)) : null })).filter((b) => b.hits > 0));
    console.table(bins);
    const file = writeResult('scifact', {
      split, queries: queries.length, corpus: corpus.length, chunks, ingestSeconds: ingestS, runSeconds: runS,
      models: { embedder: s.embedder.signature, reranker: s.reranker ? { ...s.reranker.reranker.info, depth: s.reranker.depth } : null },
      results: table, calibration, bins, date: new Date().toISOString(),
    });
    console.log(`\nwrote ${file}`);
    if (perQueryFile) fs.writeFileSync(perQueryFile, JSON.stringify(perQuery));
  } finally {
    await app.close();
  }
}

await main();
