// What the HNSW search parameters of the vector retriever cost and what recall they give,
// on a namespace kept by `npm run bench:latency -- --keep` (opened read-only: only queries are run).
// Ground truth: the exact cosine top-100 of each query (LanceDB flat search, `.bypassVectorIndex()`).
// Then every (ef, refineFactor) of the grid, top-100 as the service asks (src/storage/lance-index.ts
// vectorSearch), twice: selecting only ['id', '_distance'] and selecting the service's columns (standard
// tier: SEARCH_COLUMNS + search_terms + vector, with row ids). Beside them BM25 top-100 (service columns)
// and the engine part of a standard search (vector ∥ BM25) for a few (ef, refine). Per query the
// configurations run round-robin from a rotating start, so the machine's load hits all of them alike.
// Service rows also give the recall after re-sorting by the exact cosine of the vectors they return (the
// service's own rescoring, src/storage/lance-index.ts). Recall@k = share of the approximate top-k whose exact distance is within the exact k-th distance (ties
// at the cut count as hits). Times: p50/p95 wall ms per query and process CPU ms per query (LanceDB's
// native threads included). Lance rejects ef < limit × refineFactor, so those cells of the grid are skipped
// (the service raises ef to 2 × limit). LanceDB 0.37 has no query-time FTS knob (see docs/performance.md).
// (For IVF_HNSW_SQ tables; an IVF_FLAT table, src/storage/lance-ann.ts, is refused: see bench/ann-build.ts.)
// Usage: npx tsx bench/ann-params.ts --reuse DIR [--queries 200] [--ef 100,150,…] [--engine EF:REFINE,…]  (REFINE '-' = none)
//   DIR from bench:latency's "kept …" line; each run is appended to bench/results/ann-params.json.
import fs from 'node:fs';
import path from 'node:path';
import type { Table as ArrowTable } from 'apache-arrow';
import { initAnalysis } from '../src/analysis/analyzer.ts';
import { loadBuiltinEmbedder } from '../src/models/builtin-embedder.ts';
import { analyseQuery } from '../src/search/stages/analyze-query.ts';
import { SEARCH_COLUMNS } from '../src/storage/lance-arrow.ts';
import { TERMS_COLUMN } from '../src/storage/lance-layout.ts';
import { beirDir, readJsonl, repoRoot } from './lib/beir.ts';
import { annOf } from '../src/storage/lance-ann.ts';
import { exactTruth, idsOf, recallsAt, rescoredIds } from './lib/ann-recall.ts';
import { percentile } from './lib/quality.ts';

const argOf = (name: string): string | undefined => { const i = process.argv.indexOf(name); return i >= 0 ? process.argv[i + 1] : undefined; };
const DIR = argOf('--reuse');
if (!DIR) throw new Error('usage: npx tsx bench/ann-params.ts --reuse DIR [--queries 200] [--engine 300:2,200:-]');
const N = Number(argOf('--queries') ?? 200);
const LIMIT = 100; // RETRIEVE_LIMIT, src/search/stages/retrieve.ts
const EFS = (argOf('--ef') ?? '100,150,200,300,400,500,1000,2000,4000').split(',').map(Number);
const REFINES: Array<number | undefined> = [undefined, 1, 2, 4];
const ENGINE = (argOf('--engine') ?? '300:2,300:-,400:-,500:-').split(',').map((s) => s.split(':').map((x) => (x === '-' ? undefined : Number(x))) as [number, number | undefined]);
const KS = [10, 50, 100];
const WARMUP = 10;
const kept = JSON.parse(fs.readFileSync(path.join(DIR, 'bench-latency-state.json'), 'utf8')) as { namespace: string; chunks: number };

process.env.LANCEDB_LOG ??= 'error';
const lancedb = await import('@lancedb/lancedb');
await initAnalysis();
const embedder = await loadBuiltinEmbedder(DIR); // reads DIR/models/glove-100d.int8.bin
const all = readJsonl<{ text: string }>(path.join(beirDir('scifact'), 'queries.jsonl')).map((q) => q.text);
// The service skips the vector retriever for a zero vector (no vocabulary hit): so do we.
const usable = all.map((text) => ({ text, vector: embedder.embedSync(text) })).filter((q) => q.vector.some((x) => x !== 0));
const queries = usable.slice(0, N);
const warm = usable.slice(N, N + WARMUP);
const db = await lancedb.connect(path.join(DIR, 'lance'), { readConsistencyInterval: undefined });
const table = await db.openTable(kept.namespace);
if (annOf(await table.listIndices())?.kind === 'ivf_flat') {
  throw new Error('this namespace has an IVF_FLAT index, which ef and refineFactor do not tune: use bench/ann-build.ts (src/storage/lance-ann.ts)');
}
const serviceColumns = [...SEARCH_COLUMNS, TERMS_COLUMN, 'vector'];

const ids = idsOf;
const vectorQuery = (v: Float32Array, ef: number, refine: number | undefined, service: boolean) => {
  let q = table.vectorSearch(v).column('vector').distanceType('cosine').ef(ef);
  if (refine !== undefined) q = q.refineFactor(refine);
  q = q.select(service ? [...serviceColumns, '_distance'] : ['id', '_distance']).limit(LIMIT);
  return (service ? q.withRowId() : q).toArrow();
};
const bm25Query = (text: string) => table.query()
  .fullTextSearch(new lancedb.MatchQuery(analyseQuery(text, 'en').terms.join(' '), 'tokens', { operator: lancedb.Operator.Or }))
  .select([...serviceColumns, '_score']).limit(LIMIT).withRowId().toArrow();

// Ground truth: exact distances of the top LIMIT + 20 (to see ties at the cut).
const t0 = performance.now();
const exact = await exactTruth(table, queries.map((q) => q.vector), LIMIT, KS);
console.log(`${kept.chunks} chunks, ${queries.length} queries (of ${all.length}; ${all.length - usable.length} without vocabulary hits skipped); exact top-${LIMIT} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
const recalls = (q: number, got: string[]) => recallsAt(exact[q], KS, got);
const rescored = rescoredIds;

interface Config { name: string; ef?: number; refine?: number; service?: boolean; run: (q: number, set: typeof queries) => Promise<ArrowTable | unknown> }
const configs: Config[] = [];
for (const ef of EFS) {
  for (const refine of REFINES) {
    if (ef < LIMIT * (refine ?? 1)) continue; // Lance: "ef must be greater than or equal to k" (k = limit × refine)
    for (const service of [false, true]) {
      configs.push({ name: `vector ef ${ef} refine ${refine ?? '-'} ${service ? 'service' : 'ids'}`, ef, refine, service, run: (q, set) => vectorQuery(set[q].vector, ef, refine, service) });
    }
  }
}
configs.push({ name: 'bm25 service', run: (q, set) => bm25Query(set[q].text) });
for (const [ef, refine] of ENGINE) {
  configs.push({ name: `engine ef ${ef} refine ${refine ?? '-'} (vector ∥ bm25)`, run: (q, set) => Promise.all([vectorQuery(set[q].vector, ef, refine, true), bm25Query(set[q].text)]) });
}

for (let q = 0; q < warm.length; q++) for (const c of configs) await c.run(q, warm);
const ms = configs.map(() => [] as number[]);
const cpu = configs.map(() => 0);
const rec = configs.map(() => KS.map(() => 0));
const rescoredRec = configs.map(() => KS.map(() => 0));
const tRun = performance.now();
for (let q = 0; q < queries.length; q++) {
  for (let j = 0; j < configs.length; j++) {
    const c = (q + j) % configs.length;
    const c0 = process.cpuUsage();
    const t = performance.now();
    const out = await configs[c].run(q, queries);
    ms[c].push(performance.now() - t);
    const used = process.cpuUsage(c0);
    cpu[c] += (used.user + used.system) / 1000;
    if (configs[c].ef !== undefined) recalls(q, ids(out as ArrowTable)).forEach((r, i) => (rec[c][i] += r));
    if (configs[c].service) recalls(q, rescored(queries[q].vector, out as ArrowTable)).forEach((r, i) => (rescoredRec[c][i] += r));
  }
}
const runSeconds = (performance.now() - tRun) / 1000;

const rows = configs.map((c, i) => ({
  name: c.name, ef: c.ef, refine: c.refine ?? null, columns: c.service ? 'service' : c.ef !== undefined ? 'ids' : 'service',
  ...(c.ef !== undefined ? Object.fromEntries(KS.map((k, j) => [`recall@${k}`, Number((rec[i][j] / queries.length).toFixed(4))])) : {}),
  ...(c.service ? Object.fromEntries(KS.map((k, j) => [`rescoredRecall@${k}`, Number((rescoredRec[i][j] / queries.length).toFixed(4))])) : {}),
  p50: Number(percentile(ms[i], 50).toFixed(2)), p95: Number(percentile(ms[i], 95).toFixed(2)), cpuMs: Number((cpu[i] / queries.length).toFixed(2)),
}));
// Δ against (ef 300, refine 2), the former default; against the first service row when the grid lacks it.
const base = rows.find((r) => r.ef === 300 && r.refine === 2 && r.columns === 'service') ?? rows.find((r) => r.columns === 'service')!;
console.log(`measured in ${runSeconds.toFixed(0)} s; times p50/p95 wall ms, CPU ms per query; Δ = service-column p50 vs ef 300 refine 2`);
console.log('  ef  refine  R@10    R@50    R@100  | ids p50  p95   CPU  | service p50  p95   CPU    Δ   | rescored R@10  R@50');
for (let i = 0; i < rows.length; i += 2) {
  const [a, b] = [rows[i], rows[i + 1]];
  if (a.ef === undefined) break;
  const r = a as Record<string, unknown>;
  console.log(`  ${String(a.ef).padStart(3)}  ${String(a.refine ?? '-').padStart(5)}  ${[10, 50, 100].map((k) => Number(r[`recall@${k}`]).toFixed(4)).join('  ')} | ${a.p50.toFixed(1).padStart(6)} ${a.p95.toFixed(1).padStart(5)} ${a.cpuMs.toFixed(1).padStart(5)} | ${b.p50.toFixed(1).padStart(10)} ${b.p95.toFixed(1).padStart(5)} ${b.cpuMs.toFixed(1).padStart(5)}  ${(100 * (b.p50 / base.p50 - 1)).toFixed(0).padStart(4)} % | ${[10, 50].map((k) => Number((b as Record<string, unknown>)[`rescoredRecall@${k}`]).toFixed(4)).join('  ')}`);
  const rb = b as Record<string, unknown>;
  if (KS.some((k) => rb[`recall@${k}`] !== r[`recall@${k}`])) console.log(`       (service-column recall differs: ${KS.map((k) => rb[`recall@${k}`]).join(' / ')})`);
}
for (const r of rows.filter((x) => x.ef === undefined)) console.log(`  ${r.name.padEnd(40)} p50 ${r.p50.toFixed(1)}  p95 ${r.p95.toFixed(1)}  CPU ${r.cpuMs.toFixed(1)}`);

const file = path.join(repoRoot, 'bench', 'results', 'ann-params.json');
const previous = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as { runs: unknown[] }).runs : [];
fs.mkdirSync(path.dirname(file), { recursive: true });
const run = { at: new Date().toISOString(), dir: DIR, chunks: kept.chunks, queries: queries.length, limit: LIMIT, runSeconds: Number(runSeconds.toFixed(1)), loadavg: (await import('node:os')).loadavg(), rows };
fs.writeFileSync(file, JSON.stringify({ runs: [...previous, run] }, null, 2) + '\n');
console.log(`wrote ${path.relative(repoRoot, file)} (${previous.length + 1} runs)`);
table.close();
db.close();
