// What the BUILD parameters of the vector index and the FTS index cost and what recall they give, so
// that index parameters (HNSW/IVF, FTS) are chosen with their recall stated. bench/ann-params.ts
// measured the query-time knobs on the kept namespace read-only; the graph itself (m, ef_construction),
// other index kinds (HNSW with PQ, IVF with exact vectors) and the FTS block size need
// rebuilt indexes. This script copies `id` + `vector` (and `id` + `tokens`) of a namespace kept by
// `npm run bench:latency -- --keep` into a temporary LanceDB directory, builds every variant there, and runs
// the same 200 SciFact queries against each (the source namespace is only read).
// Vector variants: build seconds, then per query-time setting recall@10/50/100 of the top-100 after
// re-sorting by the exact cosine of the returned vectors (what src/storage/lance-index.ts does), against
// the exact cosine top-100 (flat search), and p50/p95 wall ms and process CPU ms per query (LanceDB's
// threads included). Configurations run round-robin per query from a rotating start (ann-params.ts), so
// load hits all alike. FTS: BM25 top-100 latency with blockSize 128 (default) and 256, and whether the two
// return the same ids and scores.
// Usage: npx tsx bench/ann-build.ts --reuse DIR [--queries 200] [--only sq,sq-m32,…] [--ivf 64,256]
//        [--nprobes 8,16,32] [--no-fts]
//   source      the namespace's own index as the service built it (not rebuilt), queried as the service does
//   flat        no index: exact search over the copy (bypassVectorIndex), the cost an index must beat
//   ivf-flat-P  IVF with exact vectors, P partitions (--ivf, default 64), at each --nprobes
//   appends to bench/results/ann-build.json
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Table as ArrowTable } from 'apache-arrow';
import { initAnalysis } from '../src/analysis/analyzer.ts';
import { loadBuiltinEmbedder } from '../src/models/builtin-embedder.ts';
import { analyseQuery } from '../src/search/stages/analyze-query.ts';
import { FTS_OPTIONS } from '../src/storage/lance-maintenance.ts';
import { ANN_EF, annOf, withAnnParams } from '../src/storage/lance-ann.ts';
import { beirDir, readJsonl, writeResult } from './lib/beir.ts';
import { exactTruth, idsOf, recallsAt, rescoredIds } from './lib/ann-recall.ts';
import { percentile } from './lib/quality.ts';

const argOf = (name: string): string | undefined => { const i = process.argv.indexOf(name); return i >= 0 ? process.argv[i + 1] : undefined; };
const DIR = argOf('--reuse');
if (!DIR) throw new Error('usage: npx tsx bench/ann-build.ts --reuse DIR [--queries 200] [--only sq,sq-m32]');
const N = Number(argOf('--queries') ?? 200);
const ONLY = argOf('--only')?.split(',');
const IVF_PARTITIONS = (argOf('--ivf') ?? '64').split(',').map(Number);
const NPROBES = (argOf('--nprobes') ?? '8,16,32').split(',').map(Number);
const FTS = !process.argv.includes('--no-fts');
const LIMIT = 100; // RETRIEVE_LIMIT, src/search/stages/retrieve.ts
const KS = [10, 50, 100];
const WARMUP = 10;
const kept = JSON.parse(fs.readFileSync(path.join(DIR, 'bench-latency-state.json'), 'utf8')) as { namespace: string; chunks: number };

process.env.LANCEDB_LOG ??= 'error';
const lancedb = await import('@lancedb/lancedb');
type Lance = typeof lancedb;
await initAnalysis();
const embedder = await loadBuiltinEmbedder(DIR);
const all = readJsonl<{ text: string }>(path.join(beirDir('scifact'), 'queries.jsonl')).map((q) => q.text);
const usable = all.map((text) => ({ text, vector: embedder.embedSync(text) })).filter((q) => q.vector.some((x) => x !== 0));
const queries = usable.slice(0, N);
const warm = usable.slice(N, N + WARMUP);

/** One index to build: its LanceDB config, and the query-time settings to measure it at. */
interface Variant {
  name: string;
  index: (l: Lance) => ReturnType<Lance['Index']['hnswSq']>;
  /** Query-time settings: HNSW ef, or IVF nprobes (refine: re-read exact vectors for factor × limit). */
  settings: Array<{ ef?: number; nprobes?: number; refine?: number }>;
}
const cos = { distanceType: 'cosine' as const };
const ALL_VARIANTS: Variant[] = [
  // What src/storage/lance-maintenance.ts builds: Lance's defaults m 20, ef_construction 300.
  { name: 'sq', index: (l) => l.Index.hnswSq({ ...cos, numPartitions: 1 }), settings: [{ ef: 200 }, { ef: ANN_EF }, { ef: 1000 }] },
  { name: 'sq-m32', index: (l) => l.Index.hnswSq({ ...cos, numPartitions: 1, m: 32 }), settings: [{ ef: 200 }, { ef: ANN_EF }, { ef: 1000 }] },
  { name: 'sq-efc600', index: (l) => l.Index.hnswSq({ ...cos, numPartitions: 1, efConstruction: 600 }), settings: [{ ef: 200 }, { ef: ANN_EF }, { ef: 1000 }] },
  { name: 'sq-m32-efc600', index: (l) => l.Index.hnswSq({ ...cos, numPartitions: 1, m: 32, efConstruction: 600 }), settings: [{ ef: 200 }, { ef: ANN_EF }, { ef: 1000 }] },
  { name: 'pq', index: (l) => l.Index.hnswPq({ ...cos, numPartitions: 1 }), settings: [{ ef: ANN_EF }, { ef: ANN_EF, refine: 2 }] },
  // IVF without quantisation: exact distances inside the probed partitions.
  ...IVF_PARTITIONS.map((p): Variant => ({ name: `ivf-flat-${p}`, index: (l) => l.Index.ivfFlat({ ...cos, numPartitions: p }), settings: NPROBES.map((nprobes) => ({ nprobes })) })),
  // (IVF_RQ, RaBitQ codes, is refused for the builtin embedder: "vector dimension must be divisible by 8".)
];
const VARIANTS = ALL_VARIANTS.filter((v) => !ONLY || ONLY.includes(v.name) || (v.name.startsWith('ivf-flat-') && ONLY.includes('ivf-flat')));

const src = await (await lancedb.connect(path.join(DIR, 'lance'))).openTable(kept.namespace);
const rows = await src.countRows();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'docsearch-ann-build-'));
const db = await lancedb.connect(tmp);
const ids = idsOf;

try {
  const t0 = performance.now();
  const vectors = await src.query().select(['id', 'vector']).limit(rows).toArrow();
  const base = await db.createTable('base', vectors);
  console.log(`${rows} rows copied in ${((performance.now() - t0) / 1000).toFixed(1)} s to ${tmp}`);

  // Ground truth: exact cosine distances of the top LIMIT (+20 to see ties at the cut).
  const exact = await exactTruth(base, queries.map((q) => q.vector), LIMIT, KS);
  const recalls = (q: number, got: string[]) => recallsAt(exact[q], KS, got);
  const rescored = rescoredIds;

  // Build every variant on its own copy.
  const configs: Array<{ variant: string; build: number; setting: Variant['settings'][number] & { exact?: boolean }; run: (v: Float32Array) => Promise<ArrowTable> }> = [];
  const select = ['id', 'vector', '_distance'];
  if (!ONLY || ONLY.includes('source')) {
    const ann = annOf(await src.listIndices());
    configs.push({ variant: `source (${ann?.kind === 'ivf_flat' ? `ivf-flat-${ann.partitions}` : ann ? 'hnsw-sq' : 'no index'})`, build: 0, setting: ann?.kind === 'other' ? { ef: ANN_EF } : {}, run: (vec) => withAnnParams(src.vectorSearch(vec).column('vector').distanceType('cosine'), ann, LIMIT).select(select).limit(LIMIT).toArrow() });
  }
  if (!ONLY || ONLY.includes('flat')) {
    configs.push({ variant: 'flat', build: 0, setting: { exact: true }, run: (vec) => base.vectorSearch(vec).column('vector').distanceType('cosine').bypassVectorIndex().select(select).limit(LIMIT).toArrow() });
  }
  for (const v of VARIANTS) {
    const table = await db.createTable(v.name, vectors);
    const tb = performance.now();
    await table.createIndex('vector', { config: v.index(lancedb), replace: true });
    const build = (performance.now() - tb) / 1000;
    console.log(`built ${v.name} in ${build.toFixed(1)} s`);
    for (const s of v.settings) {
      configs.push({
        variant: v.name, build, setting: s,
        run: (vec) => {
          let q = table.vectorSearch(vec).column('vector').distanceType('cosine');
          if (s.ef !== undefined) q = q.ef(s.ef);
          if (s.nprobes !== undefined) q = q.nprobes(s.nprobes);
          if (s.refine !== undefined) q = q.refineFactor(s.refine);
          return q.select(select).limit(LIMIT).toArrow();
        },
      });
    }
  }

  for (const w of warm) for (const c of configs) await c.run(w.vector);
  const ms = configs.map(() => [] as number[]);
  const cpu = configs.map(() => 0);
  const rec = configs.map(() => KS.map(() => 0));
  for (let q = 0; q < queries.length; q++) {
    for (let j = 0; j < configs.length; j++) {
      const c = (q + j) % configs.length;
      const c0 = process.cpuUsage();
      const t = performance.now();
      const out = await configs[c].run(queries[q].vector);
      ms[c].push(performance.now() - t);
      const used = process.cpuUsage(c0);
      cpu[c] += (used.user + used.system) / 1000;
      recalls(q, rescored(queries[q].vector, out)).forEach((r, i) => (rec[c][i] += r));
    }
  }
  const vectorRows = configs.map((c, i) => ({
    variant: c.variant, build_s: Number(c.build.toFixed(1)), ...c.setting,
    ...Object.fromEntries(KS.map((k, j) => [`recall@${k}`, Number((rec[i][j] / queries.length).toFixed(4))])),
    p50: Number(percentile(ms[i], 50).toFixed(2)), p95: Number(percentile(ms[i], 95).toFixed(2)), cpuMs: Number((cpu[i] / queries.length).toFixed(2)),
  }));
  console.table(vectorRows);

  // FTS: the service's analyser options at blockSize 128 (default) and 256, same BM25 queries.
  let ftsResult: Record<string, unknown> = {};
  if (FTS) {
    const tokens = await src.query().select(['id', 'tokens']).limit(rows).toArrow();
    const fts: Array<{ blockSize: 128 | 256; table: Awaited<ReturnType<typeof db.createTable>>; build: number }> = [];
    for (const blockSize of [128, 256] as const) {
      const table = await db.createTable(`fts${blockSize}`, tokens);
      const tb = performance.now();
      await table.createIndex('tokens', { config: lancedb.Index.fts({ ...FTS_OPTIONS, blockSize }), replace: true });
      fts.push({ blockSize, table, build: (performance.now() - tb) / 1000 });
    }
    const bm25 = (t: (typeof fts)[number]['table'], text: string) => t.query()
      .fullTextSearch(new lancedb.MatchQuery(analyseQuery(text, 'en').terms.join(' '), 'tokens', { operator: lancedb.Operator.Or }))
      .select(['id', '_score']).limit(LIMIT).toArrow();
    for (const w of warm) for (const f of fts) await bm25(f.table, w.text);
    const fms = fts.map(() => [] as number[]);
    let sameIds = 0, maxScoreDiff = 0;
    for (let q = 0; q < queries.length; q++) {
      const outs: ArrowTable[] = [];
      for (let j = 0; j < fts.length; j++) {
        const f = (q + j) % fts.length;
        const t = performance.now();
        outs[f] = await bm25(fts[f].table, queries[q].text);
        fms[f].push(performance.now() - t);
      }
      const [a, b] = outs.map(ids);
      if (a.join() === b.join()) sameIds++;
      const sa = outs[0].getChild('_score')!, sb = outs[1].getChild('_score')!;
      for (let i = 0; i < Math.min(outs[0].numRows, outs[1].numRows); i++) maxScoreDiff = Math.max(maxScoreDiff, Math.abs(Number(sa.get(i)) - Number(sb.get(i))));
    }
    const ftsRows = fts.map((f, i) => ({ blockSize: f.blockSize, build_s: Number(f.build.toFixed(1)), p50: Number(percentile(fms[i], 50).toFixed(2)), p95: Number(percentile(fms[i], 95).toFixed(2)) }));
    console.table(ftsRows);
    console.log(`FTS 128 vs 256: identical top-${LIMIT} ids for ${sameIds} of ${queries.length} queries; largest score difference ${maxScoreDiff.toExponential(2)}`);
    ftsResult = { fts: ftsRows, ftsSameIds: sameIds, ftsMaxScoreDiff: maxScoreDiff };
  }
  const prior = (() => { try { return JSON.parse(fs.readFileSync(path.resolve('bench/results/ann-build.json'), 'utf8')) as { runs: unknown[] }; } catch { return { runs: [] }; } })();
  writeResult('ann-build', { runs: [...(prior.runs ?? []), { at: new Date().toISOString(), rows, queries: queries.length, load: os.loadavg(), vector: vectorRows, ...ftsResult }] });
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
