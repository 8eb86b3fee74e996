// Filtered retrieval on a large namespace: does a selective typed-attribute filter still return
// the top hits of the documents it keeps? Builds a namespace of N chunks (default 100k) cut from BEIR
// SciFact abstracts, embedded with the builtin embedder, every document carrying `tenant` (int, 100
// values -> 1% of documents each) and `tags` ([]string), optimised like production (FTS index and, past
// 50k rows, the IVF_HNSW_SQ index). For SciFact test queries it compares the filtered vector and BM25
// retrievers (prefilters evaluated inside LanceDB) with brute force over exactly the kept chunks:
// exact cosine for vectors, the engine's own BM25 scores of an unfiltered exhaustive search for BM25.
// Recall is tie-aware: a returned chunk counts if its true score reaches the k-th best true score.
// Also shown: what a naive post-filter (top-100 unfiltered, then filter) would keep, and latencies.
// Then the same filtered queries again after building scalar indexes on the attribute columns (BTREE on
// the int column, LABEL_LIST on the []string one), to measure what a scalar index on attribute columns buys
// filtered queries.
// Run: npx tsx bench/attribute-filter.ts [--chunks 100000] [--queries 100]   (≈10 min at 100k on 2 cores;
// writes bench/results/attribute-filter.json when run at ≥ 100k chunks)
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { analyze, initAnalysis } from '../src/analysis/analyzer.ts';
import { createBuiltinEmbedder } from '../src/models/builtin-embedder.ts';
import { openLanceIndex } from '../src/storage/lance-index.ts';
import type { AttrExpr, ChunkFilter, ChunkRecord, IndexHit } from '../src/storage/namespace-index.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DATA = path.resolve(repoRoot, '../shared/data/beir/scifact');
const arg = (name: string, dflt: number) => (process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : dflt);
const N_CHUNKS = arg('--chunks', 100_000);
const N_QUERIES = arg('--queries', 100);
const K = 50;
const NS = 'ns_attr_bench';

interface Row extends ChunkRecord { tenant: number; tags: string[] }

/** SciFact abstracts cut into ~350-character chunks at sentence ends, repeated until `n` chunks exist. */
async function loadRows(n: number): Promise<Row[]> {
  const lines = (await readFile(path.join(DATA, 'corpus.jsonl'), 'utf8')).split('\n').filter(Boolean);
  const rows: Row[] = [];
  let doc = 0;
  for (let pass = 0; rows.length < n; pass++) {
    for (const line of lines) {
      if (rows.length >= n) break;
      const d = JSON.parse(line) as { _id: string; title: string; text: string };
      const pieces: string[] = [];
      for (const s of d.text.split(/(?<=\.)\s+/)) {
        if (pieces.length && pieces[pieces.length - 1].length < 350) pieces[pieces.length - 1] += ' ' + s;
        else pieces.push(s);
      }
      const docId = `d${d._id}_${pass}`;
      const tenant = doc % 100;
      const tags = [`t${(doc * 7) % 100}`, 'all'];
      doc++;
      const attributes = { tenant: { storage: 'int' as const, value: tenant }, tags: { storage: 'string_list' as const, value: tags } };
      pieces.slice(0, n - rows.length).forEach((content, i) => rows.push({
        id: `${docId}:${i}`, doc_id: docId, source_job_id: `job_${pass}`, chunk_index: i, chunkset_index: 0,
        page_start: 1, page_end: 1, heading_path: d.title, content, tokens: analyze(`${d.title}\n${content}`, 'en').join(' '),
        token_count: Math.ceil(content.length / 4), vector: new Float32Array(0), attributes, tenant, tags,
      }));
    }
  }
  return rows;
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
const fmt = (xs: number[]) => `p50 ${pct(xs, 0.5).toFixed(1).padStart(6)} ms  p95 ${pct(xs, 0.95).toFixed(1).padStart(6)} ms`;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

/** Tie-aware recall@k: share of the true top-k that the returned list covers (by true score). */
function recallAt(k: number, truth: Map<string, number>, got: string[]): number {
  const sorted = [...truth.values()].sort((a, b) => b - a);
  const want = Math.min(k, sorted.length);
  if (want === 0) return 1;
  const kth = sorted[want - 1] - 1e-6;
  const hits = got.slice(0, k).filter((id) => (truth.get(id) ?? -Infinity) >= kth).length;
  return Math.min(1, hits / want);
}

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const out = await fn();
  return [out, performance.now() - t0];
}

const dir = await mkdtemp(path.join(tmpdir(), 'attr-bench-'));
try {
  await initAnalysis();
  let t0 = performance.now();
  const rows = await loadRows(N_CHUNKS);
  const embedder = await createBuiltinEmbedder({ dataDir: path.join(repoRoot, '.tmp', 'test-cache') });
  for (let i = 0; i < rows.length; i += 512) {
    const batch = rows.slice(i, i + 512);
    const vecs = await embedder.embedDocuments(batch.map((r) => `${r.heading_path}\n${r.content}`));
    batch.forEach((r, j) => { r.vector = vecs[j]; });
  }
  const docs = new Set(rows.map((r) => r.doc_id)).size;
  console.log(`prepared and embedded ${rows.length} chunks of ${docs} documents in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const index = await openLanceIndex({ uri: dir, autoOptimizeEveryWrites: 0 });
  t0 = performance.now();
  for (let i = 0; i < rows.length; i += 10_000) await index.addChunks(NS, rows.slice(i, i + 10_000), embedder.signature);
  console.log(`wrote ${rows.length} rows with 2 attribute columns in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  t0 = performance.now();
  await index.optimize(NS);
  console.log(`optimize (FTS + vector index past 50k rows): ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const queries = (await readFile(path.join(DATA, 'queries.jsonl'), 'utf8')).split('\n').filter(Boolean)
    .map((l) => JSON.parse(l).text as string).slice(0, N_QUERIES);
  const filters: Array<{ label: string; expr: AttrExpr; keep: (r: Row) => boolean }> = [
    { label: 'tenant eq 7 (int, 1%)', expr: { kind: 'cmp', attr: 'tenant', storage: 'int', op: 'eq', value: 7 }, keep: (r) => r.tenant === 7 },
    { label: 'tags contains t42 ([]string, 1%)', expr: { kind: 'has', attr: 'tags', storage: 'string_list', value: 't42' }, keep: (r) => r.tags.includes('t42') },
    { label: 'tenant in 0..9 (int, 10%)', expr: { kind: 'in', attr: 'tenant', storage: 'int', negate: false, values: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] }, keep: (r) => r.tenant < 10 },
  ];
  const qv = await Promise.all(queries.map((q) => embedder.embedQuery(q)));
  const qt = queries.map((q) => analyze(q, 'en'));
  // Unfiltered baselines (latency) and the exhaustive BM25 scores used as BM25 ground truth.
  const base = { vec: [] as number[], bm25: [] as number[] };
  const allBm25: Array<Map<string, number>> = [];
  for (let q = 0; q < queries.length; q++) {
    base.vec.push((await timed(() => index.vectorSearch(NS, qv[q], K)))[1]);
    base.bm25.push((await timed(() => index.bm25Search(NS, qt[q], K)))[1]);
    allBm25.push(new Map((await index.bm25Search(NS, qt[q], rows.length)).map((h) => [h.chunk.id, h.score])));
  }
  console.log(`\n${rows.length} chunks, ${queries.length} SciFact queries, top-${K}`);
  console.log(`unfiltered vector                         ${fmt(base.vec)}`);
  console.log(`unfiltered BM25                           ${fmt(base.bm25)}`);
  const measure = async (index: Awaited<ReturnType<typeof openLanceIndex>>, results: Record<string, unknown>) => {
    for (const f of filters) {
      const kept = rows.filter(f.keep);
      const filter: ChunkFilter = { attributes: f.expr };
      const lat = { vec: [] as number[], bm25: [] as number[], hybrid: [] as number[] };
      const rec = { vec10: [] as number[], vec50: [] as number[], bm10: [] as number[], bm50: [] as number[], naiveVec: [] as number[], naiveBm: [] as number[] };
      for (let q = 0; q < queries.length; q++) {
        const exactVec = new Map<string, number>();
        for (const r of kept) { let d = 0; for (let i = 0; i < r.vector.length; i++) d += r.vector[i] * qv[q][i]; exactVec.set(r.id, d); }
        const keptIds = new Set(kept.map((r) => r.id));
        const exactBm = new Map([...allBm25[q]].filter(([id]) => keptIds.has(id)));
        const [vec, tv] = await timed(() => index.vectorSearch(NS, qv[q], K, filter));
        const [bm, tb] = await timed(() => index.bm25Search(NS, qt[q], K, filter));
        const [, th] = await timed(() => Promise.all([index.vectorSearch(NS, qv[q], 100, filter), index.bm25Search(NS, qt[q], 100, filter)]));
        lat.vec.push(tv); lat.bm25.push(tb); lat.hybrid.push(th);
        const ids = (hs: IndexHit[]) => hs.map((h) => h.chunk.id);
        if (ids(vec).some((id) => !keptIds.has(id)) || ids(bm).some((id) => !keptIds.has(id))) throw new Error(`${f.label}: a hit outside the filter`);
        rec.vec10.push(recallAt(10, exactVec, ids(vec))); rec.vec50.push(recallAt(K, exactVec, ids(vec)));
        rec.bm10.push(recallAt(10, exactBm, ids(bm))); rec.bm50.push(recallAt(K, exactBm, ids(bm)));
        // Naive post-filter: unfiltered top-100, then drop what the filter excludes.
        rec.naiveVec.push(recallAt(K, exactVec, ids(await index.vectorSearch(NS, qv[q], 100)).filter((id) => keptIds.has(id))));
        rec.naiveBm.push(recallAt(K, exactBm, ids(await index.bm25Search(NS, qt[q], 100)).filter((id) => keptIds.has(id))));
      }
      console.log(`\nfilter ${f.label}: keeps ${kept.length} chunks (${((100 * kept.length) / rows.length).toFixed(1)}%)`);
      console.log(`  vector prefiltered   ${fmt(lat.vec)}   recall@10 ${mean(rec.vec10).toFixed(3)}  recall@${K} ${mean(rec.vec50).toFixed(3)}   (naive post-filter recall@${K} ${mean(rec.naiveVec).toFixed(3)})`);
      console.log(`  BM25 prefiltered     ${fmt(lat.bm25)}   recall@10 ${mean(rec.bm10).toFixed(3)}  recall@${K} ${mean(rec.bm50).toFixed(3)}   (naive post-filter recall@${K} ${mean(rec.naiveBm).toFixed(3)})`);
      console.log(`  retrieve (both, top-100, in parallel)  ${fmt(lat.hybrid)}`);
      results[f.label] = { kept: kept.length, latency: { vec: pct(lat.vec, 0.5), bm25: pct(lat.bm25, 0.5), hybrid: pct(lat.hybrid, 0.5) }, recall: Object.fromEntries(Object.entries(rec).map(([k, v]) => [k, mean(v)])) };
    }
  };
  const results: Record<string, unknown> = {};
  await measure(index, results);
  await index.close();
  // Scalar indexes on the attribute columns, built on the same table, then the same queries.
  const lancedb = await import('@lancedb/lancedb');
  const db = await lancedb.connect(dir);
  const table = await db.openTable(NS);
  t0 = performance.now();
  await table.createIndex('attr_tenant', { config: lancedb.Index.btree() });
  await table.createIndex('attr_tags', { config: lancedb.Index.labelList() });
  console.log(`\nscalar indexes on attr_tenant (BTREE) and attr_tags (LABEL_LIST) built in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  table.close();
  db.close();
  const indexed = await openLanceIndex({ uri: dir, autoOptimizeEveryWrites: 0 });
  const withScalar: Record<string, unknown> = {};
  await measure(indexed, withScalar);
  await indexed.close();
  const out = { chunks: rows.length, documents: docs, queries: queries.length, k: K, results, withScalarIndexes: withScalar };
  console.log('\n' + JSON.stringify(out));
  if (rows.length >= 100_000) await writeFile(path.join(repoRoot, 'bench', 'results', 'attribute-filter.json'), JSON.stringify(out, null, 2) + '\n');
} finally {
  await rm(dir, { recursive: true, force: true });
}
