// Search latency, throughput and memory at 10k, 100k or 1M chunks (DESIGN.md §8, §9). Builds a
// synthetic but realistic namespace (bench/lib/synthetic.ts: documents × 20 chunks of real SciFact
// sentences) in a temp data dir, optimises it (FTS + IVF_HNSW_SQ index, as the maintainer would), then
// starts the real server as a separate process (`node --import tsx src/main.ts`, role api) and measures, warm:
//   - search through the HTTP API at 1 and 8 concurrent clients: p50/p95/p99, searches/s, and beside every
//     row the mean number of hits (result_count) and of context tokens (tokens_estimated), for
//       default: the default request body (prompt_ready, min_relevance 0.3, 5 000-token target);
//       filled:  `min_relevance: 0`, so the context is filled to target_tokens (5 000) — what a search
//                costs once the context holds real evidence;
//     on the standard and the advanced tier;
//   - LanceDB queried directly on the same table (the engine part of standard search: vector top-100 ∥
//     BM25 top-100 with the same parameters), in blocks alternating with each HTTP row's (same queries, same
//     client count), each HTTP row given as a ratio to its own paired engine blocks;
//   - the server's resident memory (VmRSS) and peak (VmHWM) from /proc.
// Prints tables; writes bench/results/latency[-<chunks>].json.
// Usage: npm run bench:latency [-- --chunks N] [--keep] [--reuse DIR] [--scale F] [--cpu-prof DIR]
//   --chunks N   namespace size (default 100000; 10000 and 1000000 for the growth curve; 20 chunks a doc)
//   --keep       keep the built data dir (its path and keys go to DIR/bench-latency-state.json)
//   --reuse DIR  skip the build and measure the namespace kept in DIR by an earlier --keep run
//   --scale F    multiply the request counts by F (e.g. 0.25 for a quick run while iterating)
//   --cpu-prof D start the server with `node --cpu-prof --cpu-prof-dir D` (profile written on exit)
//   --only K     measure only request kind K (default|filled), e.g. while profiling one path
//   --dump FILE  write every (request, response) of a fixed query set to FILE (before/after comparisons);
//                --dump-queries N sets its size (default 40 queries × 6 request kinds)
//   --client C   the HTTP client of the load loops: `undici` (default: undici's request(), a keep-alive pool
//                with plain Node streams) or `fetch` (Node's global fetch, built on the same undici but
//                with WHATWG streams). On this 2-core machine the client shares the cores with the server,
//                and fetch cost ≈ 2.4 ms more per request at 1 client than request() against the same
//                server (100k chunks), which the engine baseline (in process, no HTTP) never pays;
//                `--client fetch` reproduces figures measured with it.
import fs from 'node:fs';
import path from 'node:path';
import { request } from 'undici';
import { initAnalysis } from '../src/analysis/analyzer.ts';
import { analyseQuery } from '../src/search/stages/analyze-query.ts';
import { loadBeir, readJsonl, beirDir, repoRoot, writeResult } from './lib/beir.ts';
import { startApiProcess } from './lib/api-process.ts';
import { openBaselineTable, vectorAndBm25 } from './lib/engine-baseline.ts';
import { createBenchProject, startBenchApp } from './lib/bench-app.ts';
import { percentile } from './lib/quality.ts';
import { writeSyntheticCorpus } from './lib/synthetic.ts';

const argOf = (name: string): string | undefined => { const i = process.argv.indexOf(name); return i >= 0 ? process.argv[i + 1] : undefined; };
const CHUNKS_PER_DOC = 20;
const DOCS = argOf('--docs') ? Number(argOf('--docs')) : Math.ceil(Number(argOf('--chunks') ?? 100_000) / CHUNKS_PER_DOC);
const ONLY = argOf('--only');
const DUMP = argOf('--dump');
const DUMP_QUERIES = Number(argOf('--dump-queries') ?? 40);
const KEEP = process.argv.includes('--keep');
const REUSE = argOf('--reuse');
const SCALE = Number(argOf('--scale') ?? 1);
const CPU_PROF = argOf('--cpu-prof');
const CLIENT = argOf('--client') ?? 'undici';
if (CLIENT !== 'undici' && CLIENT !== 'fetch') throw new Error(`--client must be undici or fetch, not ${CLIENT}`);
const STATE_FILE = 'bench-latency-state.json';
interface KeptState { dataDir: string; secret: string; accountKey: string; apiKey: string; namespace: string; chunks: number; docs: number; writeSeconds: number; optimizeSeconds: number }
type Kind = 'default' | 'filled';
/** Request bodies beside the query: the default one, and one whose context is filled to target_tokens. */
const BODIES: Record<Kind, Record<string, unknown>> = { default: {}, filled: { min_relevance: 0, target_tokens: 5000 } };
const RUNS: Array<{ tier: 'standard' | 'advanced'; kind: Kind; clients: number; requests: number }> = ([
  { tier: 'standard', kind: 'default', clients: 1, requests: 400 },
  { tier: 'standard', kind: 'default', clients: 8, requests: 800 },
  { tier: 'standard', kind: 'filled', clients: 1, requests: 400 },
  { tier: 'standard', kind: 'filled', clients: 8, requests: 800 },
  { tier: 'advanced', kind: 'default', clients: 1, requests: 200 },
  { tier: 'advanced', kind: 'filled', clients: 1, requests: 200 },
  { tier: 'advanced', kind: 'filled', clients: 8, requests: 400 },
] as const).filter((r) => !ONLY || r.kind === ONLY);

interface Stats { p50: number; p95: number; p99: number; perSecond: number; n: number; errors: number }

function summarise(ms: number[], wallMs: number, errors: number): Stats {
  const r = (x: number) => Number(x.toFixed(1));
  return { p50: r(percentile(ms, 50)), p95: r(percentile(ms, 95)), p99: r(percentile(ms, 99)), perSecond: r((ms.length / wallMs) * 1000), n: ms.length, errors };
}

/** Run `total` calls of `fn(i)` with `clients` concurrent loops; returns per-call latency and wall time. */
async function timedCalls(clients: number, total: number, fn: (i: number) => Promise<boolean>): Promise<{ ms: number[]; wallMs: number; errors: number }> {
  const ms: number[] = [];
  let next = 0;
  let errors = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: clients }, async () => {
    for (let i = next++; i < total; i = next++) {
      const t = performance.now();
      if (!(await fn(i))) errors++;
      ms.push(performance.now() - t);
    }
  }));
  return { ms, wallMs: performance.now() - t0, errors };
}

/** timedCalls() summarised (warm-up loops use it too). */
async function load(clients: number, total: number, fn: (i: number) => Promise<boolean>): Promise<Stats> {
  const r = await timedCalls(clients, total, fn);
  return summarise(r.ms, r.wallMs, r.errors);
}

/** Blocks per side in paired(): enough alternations to even out load swings, blocks long enough to fill 8 clients. */
const PAIR_BLOCKS = 4;

/**
 * Measure `service` and its engine baseline `engine` on the same request indices, in PAIR_BLOCKS blocks each,
 * alternating (engine first in even rounds, service first in odd ones), each block at `clients` concurrent
 * loops. Latencies are pooled per side; throughput is requests over the summed block wall times.
 */
async function paired(clients: number, total: number, engine: (i: number) => Promise<boolean>, service: (i: number) => Promise<boolean>): Promise<{ engine: Stats; service: Stats }> {
  const acc = { engine: { ms: [] as number[], wall: 0, errors: 0 }, service: { ms: [] as number[], wall: 0, errors: 0 } };
  const per = Math.ceil(total / PAIR_BLOCKS);
  for (let b = 0; b < PAIR_BLOCKS; b++) {
    const offset = b * per;
    const count = Math.min(per, total - offset);
    if (count <= 0) break;
    const order = b % 2 === 0 ? (['engine', 'service'] as const) : (['service', 'engine'] as const);
    for (const side of order) {
      const fn = side === 'engine' ? engine : service;
      const r = await timedCalls(clients, count, (i) => fn(offset + i));
      acc[side].ms.push(...r.ms);
      acc[side].wall += r.wallMs;
      acc[side].errors += r.errors;
    }
  }
  return { engine: summarise(acc.engine.ms, acc.engine.wall, acc.engine.errors), service: summarise(acc.service.ms, acc.service.wall, acc.service.errors) };
}

function memoryOf(pid: number): { rssMb: number; peakRssMb: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rssMb: Math.round(kb('VmRSS') / 1024), peakRssMb: Math.round(kb('VmHWM') / 1024) };
}

async function main(): Promise<void> {
  await initAnalysis();
  const queries = readJsonl<{ text: string }>(path.join(beirDir('scifact'), 'queries.jsonl')).map((q) => q.text);
  loadBeir('scifact', 'test'); // fail early when the data is missing
  // 1. Build the namespace in-process (or reuse a kept one), then close the app so the server owns the
  //    data dir alone.
  const secret = 'bench-secret-0123456789abcdef0123456789abcdef';
  const app = await startBenchApp({ env: { DOCSEARCH_SECRET: secret } });
  const s = app.handle.services;
  let kept: KeptState;
  if (REUSE) {
    kept = JSON.parse(fs.readFileSync(path.join(REUSE, STATE_FILE), 'utf8')) as KeptState;
  } else {
    const project = await createBenchProject(app, 'latency');
    let t0 = performance.now();
    const chunks = await writeSyntheticCorpus({ cp: s.cp, index: s.index, embedder: s.embedder, projectId: project.projectId, namespace: project.namespace }, {
      docs: DOCS, chunksPerDoc: CHUNKS_PER_DOC, chunksPerSection: 5,
      onProgress: (n) => { if (n % 20_000 < 10_000) console.log(`  ${n} chunks written (${((performance.now() - t0) / 1000).toFixed(0)} s)`); },
    });
    const writeSeconds = (performance.now() - t0) / 1000;
    t0 = performance.now();
    await s.index.optimize(project.namespace);
    const optimizeSeconds = (performance.now() - t0) / 1000;
    kept = { dataDir: app.dataDir, secret, accountKey: app.accountKey, apiKey: project.apiKey, namespace: project.namespace, chunks, docs: DOCS, writeSeconds, optimizeSeconds };
    if (KEEP) fs.writeFileSync(path.join(app.dataDir, STATE_FILE), JSON.stringify(kept, null, 2));
  }
  const { chunks, writeSeconds: writeS, optimizeSeconds: optimizeS } = kept;
  const project = { apiKey: kept.apiKey, namespace: kept.namespace };
  console.log(`namespace: ${chunks} chunks in ${kept.docs} documents; written in ${writeS.toFixed(0)} s, optimised (FTS + ANN) in ${optimizeS.toFixed(0)} s${REUSE ? ` (reused ${REUSE})` : ''}`);
  const vectors = await Promise.all(queries.map((q) => s.embedder.embedQuery(q)));
  const terms = queries.map((q) => analyseQuery(q, 'en').terms);
  const dataDir = kept.dataDir;
  if (REUSE) await app.close();
  else await app.handle.close();

  // 2. The server as its own process.
  const profArgs = CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(CPU_PROF)] : [];
  const { child, base } = await startApiProcess({ dataDir, secret, accountKey: kept.accountKey, nodeArgs: profArgs });
  const result: Record<string, unknown> = { chunks, documents: kept.docs, writeSeconds: writeS, optimizeSeconds: optimizeS };
  try {
    // Every response's hit count and context tokens are summed per run (shown beside the latency).
    const seen = { hits: 0, tokens: 0, n: 0 };
    const post = { method: 'POST', headers: { authorization: `Bearer ${project.apiKey}`, 'content-type': 'application/json' } } as const;
    const url = `${base}/v3/docsearch/search`;
    const search = async (i: number, tier: string, kind: Kind) => {
      const payload = JSON.stringify({ query: queries[i % queries.length], retrieval_tier: tier, ...BODIES[kind] });
      let status: number;
      let body: { result_count?: number; tokens_estimated?: number };
      if (CLIENT === 'fetch') {
        const res = await fetch(url, { ...post, body: payload });
        status = res.status;
        body = (await res.json()) as typeof body;
      } else {
        const res = await request(url, { ...post, body: payload });
        status = res.statusCode;
        body = (await res.body.json()) as typeof body;
      }
      seen.hits += body.result_count ?? 0;
      seen.tokens += body.tokens_estimated ?? 0;
      seen.n++;
      return status === 200;
    };
    const n = (x: number) => Math.max(8, Math.round(x * SCALE));
    if (DUMP) await dumpOutputs(base, project.apiKey, queries, DUMP);

    // 3. LanceDB directly on the same table, from this (client) process, with the service's query parameters:
    //    the chunk rows with their text and vectors, as a client of raw LanceDB reads them to build a
    //    context (the service reads fewer columns here: no text, docs/performance.md).
    const baseline = await openBaselineTable(dataDir, project.namespace);
    const direct = async (i: number) => {
      const k = i % queries.length;
      const [v, b] = await vectorAndBm25(baseline, vectors[k], terms[k]);
      return v.numRows > 0 && b.numRows >= 0;
    };
    // Warm-up grows with the namespace: at 1M chunks 250 searches left the first measured row reading a cold
    // table on both sides (engine p50 58.7 ms against ≈ 20 ms warm).
    const warm = Math.max(100, Math.round(chunks / 2500));
    await load(2, warm, (i) => search(i + 500, 'standard', 'filled'));
    await load(2, Math.round(warm / 2), (i) => search(i + 600, 'advanced', 'filled'));
    await load(2, warm, (i) => direct(i + 500));
    await load(2, warm, (i) => search(i + 700, 'standard', 'default'));
    type Row = Stats & { engine: string; tier: string; request: Kind | 'raw'; clients: number; hits: number; tokens: number };
    const http: Row[] = [];
    const engine: Row[] = [];
    const ratios: Record<string, number> = {};
    for (const run of RUNS) {
      Object.assign(seen, { hits: 0, tokens: 0, n: 0 });
      // The engine baseline of this row is measured in blocks alternating with the service's (PAIR_BLOCKS
      // each, same queries, same client count), so both see the same machine load: on this shared 2-core
      // machine the load swings within minutes, and a baseline measured in another phase moved the ratios
      // by 0.3 and more between runs.
      const pair = await paired(run.clients, n(run.requests), direct, (i) => search(i, run.tier, run.kind));
      const mean = (x: number) => Number((x / Math.max(1, seen.n)).toFixed(1));
      http.push({ engine: 'docsearch HTTP', tier: run.tier, request: run.kind, clients: run.clients, ...pair.service, hits: mean(seen.hits), tokens: mean(seen.tokens) });
      engine.push({ engine: 'LanceDB direct (vector ∥ BM25, top 100 each), paired', tier: run.tier, request: 'raw', clients: run.clients, ...pair.engine, hits: 100, tokens: 0 });
      // Same-run ratios: p50 against the paired engine blocks, throughput likewise.
      ratios[`p50 ${run.tier} ${run.kind} ×${run.clients}`] = Number((pair.service.p50 / pair.engine.p50).toFixed(2));
      if (run.clients > 1) ratios[`throughput ${run.tier} ${run.kind} ×${run.clients}`] = Number((pair.service.perSecond / pair.engine.perSecond).toFixed(2));
      console.log(JSON.stringify(http[http.length - 1]), JSON.stringify({ engineP50: pair.engine.p50, enginePerSecond: pair.engine.perSecond }));
    }
    const memory = memoryOf(child.pid!);
    baseline.close();
    console.log(`\nsearch at ${chunks} chunks (warm; HTTP on 127.0.0.1, client ${CLIENT}; 2 cores)`);
    console.table(http.flatMap((h, i) => [h, engine[i]]));
    console.log('ratios (docsearch / LanceDB direct, paired blocks of the same run):', ratios);
    console.log(`server memory: RSS ${memory.rssMb} MB, peak ${memory.peakRssMb} MB`);
    Object.assign(result, { client: CLIENT, http, engine, ratios, memory, date: new Date().toISOString() });
    console.log(`wrote ${writeResult(chunks === 100_000 ? 'latency' : `latency-${chunks}`, result)}`);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    if (KEEP || REUSE) console.log(`kept ${dataDir} (reuse with -- --reuse ${dataDir})`);
    else fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * Write the outputs of a fixed set of requests (first DUMP_QUERIES queries × default/filled × standard/advanced, plus
 * json format) to `file`, so that two builds of the service can be compared for identical results.
 */
async function dumpOutputs(base: string, apiKey: string, queries: string[], file: string): Promise<void> {
  const out: unknown[] = [];
  for (let i = 0; i < Math.min(DUMP_QUERIES, queries.length); i++) {
    for (const tier of ['standard', 'advanced']) {
      for (const [kind, extra] of Object.entries({ ...BODIES, json: { min_relevance: 0, format: 'json' } })) {
        const body = { query: queries[i], retrieval_tier: tier, ...extra };
        const res = await fetch(`${base}/v3/docsearch/search`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
        out.push({ kind, body, status: res.status, response: await res.json() });
      }
    }
  }
  fs.writeFileSync(file, JSON.stringify(out, null, 1) + '\n');
  console.log(`dumped ${out.length} responses to ${file}`);
}

await main();
