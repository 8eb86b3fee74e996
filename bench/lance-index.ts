// Benchmark of the LanceDB NamespaceIndex (src/storage/lance-index.ts): 20k chunks cut from SciFact
// abstracts, tokens from the project analyser, 100-d random unit vectors. Reports write throughput
// (bulk and per-document adds), BM25 / vector top-50 latency (p50/p95, with and without filters,
// before and after optimize) and, with --ann, IVF_HNSW_SQ build time, latency and recall@50.
// Run: npx tsx bench/lance-index.ts [--chunks 20000] [--ann]

import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { analyze } from '../src/analysis/analyzer.ts';
import { openLanceIndex } from '../src/storage/lance-index.ts';
import type { ChunkFilter, ChunkRecord, NamespaceIndex } from '../src/storage/namespace-index.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DATA = path.resolve(repoRoot, '../shared/data/beir/scifact');
const arg = (name: string) => process.argv.indexOf(name);
const N_CHUNKS = arg('--chunks') > 0 ? Number(process.argv[arg('--chunks') + 1]) : 20_000;
const WITH_ANN = arg('--ann') > 0;
const DIM = 100;
const SIG = { provider: 'bench', model: 'random-100', dimension: DIM };

let seed = 42;
const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
function randomUnit(): Float32Array {
  const v = new Float32Array(DIM);
  for (let i = 0; i < DIM; i++) v[i] = Math.sqrt(-2 * Math.log(rand() + 1e-12)) * Math.cos(2 * Math.PI * rand());
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

/** SciFact abstracts cut into ~`size`-char chunks at sentence ends, until `n` chunks exist. */
async function loadChunks(n: number): Promise<ChunkRecord[][]> {
  const lines = (await readFile(path.join(DATA, 'corpus.jsonl'), 'utf8')).split('\n').filter(Boolean);
  const docs: ChunkRecord[][] = [];
  let total = 0;
  for (let pass = 0; total < n; pass++) {
    for (const line of lines) {
      if (total >= n) break;
      const d = JSON.parse(line) as { _id: string; title: string; text: string };
      const sentences = d.text.split(/(?<=\.)\s+/);
      const pieces: string[] = [];
      for (const s of sentences) {
        if (pieces.length && pieces[pieces.length - 1].length < 350) pieces[pieces.length - 1] += ' ' + s;
        else pieces.push(s);
      }
      const docId = `d${d._id}_${pass}`;
      const rows = pieces.slice(0, n - total).map((content, i) => ({
        id: `${docId}:${i}`, doc_id: docId, source_job_id: `job_${pass}`, chunk_index: i, chunkset_index: 0,
        page_start: 1, page_end: 1, heading_path: d.title, content,
        tokens: analyze(`${d.title}\n${content}`, 'en').join(' '), token_count: Math.ceil(content.length / 4),
        vector: randomUnit(),
      }));
      total += rows.length;
      docs.push(rows);
    }
  }
  return docs;
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
async function timeIt(label: string, n: number, fn: (i: number) => Promise<unknown>): Promise<void> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn(i);
    times.push(performance.now() - t0);
  }
  console.log(`${label.padEnd(44)} p50 ${pct(times, 0.5).toFixed(1).padStart(6)} ms   p95 ${pct(times, 0.95).toFixed(1).padStart(6)} ms`);
}

async function searchSuite(index: NamespaceIndex, ns: string, queries: string[][], docIds: string[], tag: string) {
  const inFilter: ChunkFilter = { docIds: docIds.filter((_, i) => i % 50 === 0) };
  const outFilter: ChunkFilter = { excludeDocIds: docIds.slice(0, 200) };
  const qv = queries.map(() => randomUnit());
  await timeIt(`BM25 top-50 ${tag}`, queries.length, (i) => index.bm25Search(ns, queries[i], 50));
  await timeIt(`BM25 top-50 ${tag}, IN ${inFilter.docIds!.length} docs`, queries.length, (i) => index.bm25Search(ns, queries[i], 50, inFilter));
  await timeIt(`BM25 top-50 ${tag}, NOT IN 200 docs`, queries.length, (i) => index.bm25Search(ns, queries[i], 50, outFilter));
  await timeIt(`vector top-50 ${tag}`, queries.length, (i) => index.vectorSearch(ns, qv[i], 50));
  await timeIt(`vector top-50 ${tag}, IN ${inFilter.docIds!.length} docs`, queries.length, (i) => index.vectorSearch(ns, qv[i], 50, inFilter));
}

const dir = await mkdtemp(path.join(tmpdir(), 'lance-bench-'));
try {
  let t0 = performance.now();
  const docs = await loadChunks(N_CHUNKS);
  const rows = docs.flat();
  console.log(`prepared ${rows.length} chunks of ${docs.length} docs in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const queries = (await readFile(path.join(DATA, 'queries.jsonl'), 'utf8'))
    .split('\n').filter(Boolean).slice(0, 200).map((l) => analyze(JSON.parse(l).text as string, 'en'));

  const index = await openLanceIndex({ uri: dir, annThreshold: WITH_ANN ? 10_000 : Number.MAX_SAFE_INTEGER });
  t0 = performance.now();
  await index.addChunks('ns_bulk', rows, SIG);
  let s = (performance.now() - t0) / 1000;
  console.log(`bulk add: ${rows.length} rows in ${s.toFixed(2)} s = ${Math.round(rows.length / s)} rows/s`);

  const perDoc = docs.slice(0, 500);
  const perDocRows = perDoc.reduce((a, d) => a + d.length, 0);
  t0 = performance.now();
  for (const d of perDoc) await index.addChunks('ns_perdoc', d, SIG);
  s = (performance.now() - t0) / 1000;
  console.log(`per-document adds: ${perDoc.length} docs (${perDocRows} rows) in ${s.toFixed(2)} s = ${Math.round(perDoc.length / s)} docs/s`);
  t0 = performance.now();
  await Promise.all(docs.slice(500, 1000).map((d) => index.addChunks('ns_perdoc', d, SIG)));
  s = (performance.now() - t0) / 1000;
  console.log(`per-document adds, 500 concurrent callers: ${(s).toFixed(2)} s = ${Math.round(500 / s)} docs/s`);

  const docIds = docs.map((d) => d[0].doc_id);
  await searchSuite(index, 'ns_bulk', queries, docIds, '(fresh)');
  await searchSuite(index, 'ns_perdoc', queries, docIds.slice(0, 1000), '(1000 docs, auto-optimised every 50)');
  t0 = performance.now();
  await index.optimize('ns_perdoc');
  console.log(`optimize ns_perdoc: ${((performance.now() - t0) / 1000).toFixed(2)} s`);
  const raw = await openLanceIndex({ uri: dir, autoOptimizeEveryWrites: 0 });
  for (const d of docs.slice(0, 300)) await raw.addChunks('ns_noopt', d, SIG);
  await searchSuite(raw, 'ns_noopt', queries.slice(0, 40), docIds.slice(0, 300), '(300 docs, never optimised)');
  await raw.close();
  t0 = performance.now();
  await index.optimize('ns_bulk');
  console.log(`optimize ns_bulk${WITH_ANN ? ' (incl. IVF_HNSW_SQ build)' : ''}: ${((performance.now() - t0) / 1000).toFixed(2)} s`);
  await searchSuite(index, 'ns_bulk', queries, docIds, '(optimised)');
  t0 = performance.now();
  await index.addChunks('ns_bulk', docs.slice(0, 20).flat().map((r) => ({ ...r, id: `${r.id}x`, doc_id: `${r.doc_id}x` })), SIG);
  await index.optimize('ns_bulk');
  console.log(`add 20 docs + optimize on the optimised table: ${((performance.now() - t0) / 1000).toFixed(2)} s`);

  if (WITH_ANN) {
    // recall@50 of the ANN index against exact cosine over the raw vectors
    const qv = queries.slice(0, 50).map(() => randomUnit());
    let hit = 0;
    for (const q of qv) {
      const exact = rows.map((r, i) => { let d = 0; for (let k = 0; k < DIM; k++) d += r.vector[k] * q[k]; return [d, i] as const; })
        .sort((a, b) => b[0] - a[0]).slice(0, 50).map(([, i]) => rows[i].id);
      const got = new Set((await index.vectorSearch('ns_bulk', q, 50)).map((h) => h.chunk.id));
      hit += exact.filter((id) => got.has(id)).length;
    }
    console.log(`ANN recall@50 vs exact (random 100-d vectors, the hardest case): ${(hit / (50 * qv.length)).toFixed(3)}`);
  }
  await index.close();
} finally {
  await rm(dir, { recursive: true, force: true });
}
