// Multilingual retrieval quality on the 12 XQuAD-derived BEIR sets (../shared/data/beir/xquad-*): MRR@10
// of docsearch's BM25 alone, vector alone, the standard and the advanced tier, same-language (queries and
// corpus in one language), plus German and Chinese queries against the English corpus (doc and query ids
// are shared across languages, so the qrels apply). Each language gets its own project in one app
// (temp data dir); documents go through the pipeline's layers (bench/lib/corpus.ts). Prints a table;
// writes bench/results/xquad.json. Usage:
//   npm run bench:xquad [-- --limit N] [-- --langs en,de]   (N queries per set, default all 1 190; sets)
import { initAnalysis } from '../src/analysis/analyzer.ts';
import { loadBeir, mean, mrrAt, writeResult, type BeirQuery, type Qrels } from './lib/beir.ts';
import { createBenchProject, startBenchApp } from './lib/bench-app.ts';
import { ingestCorpus } from './lib/corpus.ts';
import { fallbackLanguage, percentile, runVariant, VARIANTS, type QualityTarget, type Variant } from './lib/quality.ts';

const LANGS = ['ar', 'de', 'el', 'en', 'es', 'hi', 'ro', 'ru', 'th', 'tr', 'vi', 'zh'];
const CROSS: Array<[string, string]> = [['de', 'en'], ['zh', 'en']];
const li = process.argv.indexOf('--limit');
const limit = li >= 0 ? Number(process.argv[li + 1]) : Infinity;
const ki = process.argv.indexOf('--langs');
/** Same-language sets to run (`--langs en,de`); the cross-language rows run when both ends are included. */
const langs = ki >= 0 ? process.argv[ki + 1].split(',').filter((l) => LANGS.includes(l)) : LANGS;

type Row = { set: string } & Record<Variant, number> & { 'p50 ms standard': number; 'p50 ms advanced': number };

async function evaluate(target: QualityTarget, queries: BeirQuery[], qrels: Qrels, set: string): Promise<Row> {
  const fallback = await fallbackLanguage(target);
  const rr: Record<Variant, number[]> = { bm25: [], vector: [], standard: [], advanced: [] };
  const ms: Record<Variant, number[]> = { bm25: [], vector: [], standard: [], advanced: [] };
  for (const q of queries) {
    for (const v of VARIANTS) {
      const r = await runVariant(target, v, q.text, fallback);
      rr[v].push(mrrAt(10, r.docs, qrels.get(q._id)!));
      ms[v].push(r.ms);
    }
  }
  const row = { set } as Row;
  for (const v of VARIANTS) row[v] = Number(mean(rr[v]).toFixed(4));
  row['p50 ms standard'] = Number(percentile(ms.standard, 50).toFixed(1));
  row['p50 ms advanced'] = Number(percentile(ms.advanced, 50).toFixed(1));
  return row;
}

async function main(): Promise<void> {
  await initAnalysis();
  const app = await startBenchApp();
  const rows: Row[] = [];
  const t0 = performance.now();
  try {
    const s = app.handle.services;
    const targets = new Map<string, QualityTarget>();
    for (const lang of langs) {
      const { corpus, queries, qrels } = loadBeir(`xquad-${lang}`);
      const p = await createBenchProject(app, `xquad-${lang}`);
      await ingestCorpus({ cp: s.cp, index: s.index, embedder: s.embedder, projectId: p.projectId, namespace: p.namespace }, corpus);
      const target = { services: s, projectId: p.projectId, namespace: p.namespace };
      targets.set(lang, target);
      const row = await evaluate(target, queries.slice(0, limit), qrels, `${lang} -> ${lang}`);
      rows.push(row);
      console.log(JSON.stringify(row));
    }
    for (const [from, to] of CROSS.filter(([f, t]) => langs.includes(f) && langs.includes(t))) {
      const { queries, qrels } = loadBeir(`xquad-${from}`);
      const row = await evaluate(targets.get(to)!, queries.slice(0, limit), qrels, `${from} -> ${to}`);
      rows.push(row);
      console.log(JSON.stringify(row));
    }
    const seconds = (performance.now() - t0) / 1000;
    console.log(`\nXQuAD MRR@10 (${Number.isFinite(limit) ? limit : 1190} queries per set, 240 paragraphs per corpus), ${seconds.toFixed(0)} s`);
    console.table(rows);
    const same = rows.slice(0, langs.length);
    console.log(`mean over the ${langs.length} same-language sets: ${VARIANTS.map((v) => `${v} ${mean(same.map((r) => r[v])).toFixed(4)}`).join(', ')}`);
    const file = writeResult('xquad', {
      models: { embedder: s.embedder.signature, reranker: s.reranker ? { ...s.reranker.reranker.info, depth: s.reranker.depth } : null },
      queriesPerSet: Number.isFinite(limit) ? limit : 1190, rows, seconds, date: new Date().toISOString(),
    });
    console.log(`wrote ${file}`);
  } finally {
    await app.close();
  }
}

await main();
