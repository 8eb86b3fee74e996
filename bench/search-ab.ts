// Before/after comparison of two builds of the search code in ONE process, on a namespace kept by
// `npm run bench:latency -- --keep`. Two server processes disagree in LanceDB's BM25 `_score`
// in the 7th significant digit, which flips near-ties (docs/performance.md), so comparing `--dump` files of
// two processes cannot prove that a change leaves results identical; two apps in one process can:
//   1. identity: every (query × tier × body) response of the base build and of this checkout, byte for byte;
//   2. latency: both builds through app.inject, interleaved per query (same load for both), beside LanceDB
//      queried directly (vector ∥ BM25 top-100, as bench/latency.ts), p50 and ratio to the engine;
//   3. throughput: 8 concurrent clients, alternating blocks, searches/s and process CPU ms per search.
// A response that differs only by LanceDB's BM25 ulp noise (equalUpToEngineUlp) is counted apart from real
// differences.
// Usage: tsx bench/search-ab.ts --reuse DIR --base ROOT [--queries N] [--skip identity,latency,throughput] [--tier T]
//   --tier T     the tier timed in 2. and 3. (default standard; identity always checks both)
//   AB_SHOW_DIFF=1 (environment) prints the first differing response pair around its first differing character
//                (AB_SHOW_DIFF=standard: the first of that tier)
//   --base ROOT  another checkout of the repository (e.g. `git archive main | tar -x -C ROOT`, with
//                node_modules linked and ../shared beside it), loaded as the "before" build
//   --base-reuse DIR2  the before build reads this kept namespace instead of DIR: for a change of what rows
//                store, DIR2 written by the base build and DIR by this one (same generator, so the same
//                documents; identity then also compares two tables, whose BM25 scores may differ by an ulp)
import fs from 'node:fs';
import path from 'node:path';
import { analyseQuery } from '../src/search/stages/analyze-query.ts';
import { beirDir, readJsonl, repoRoot } from './lib/beir.ts';
import { percentile } from './lib/quality.ts';
import { openBaselineTable, vectorAndBm25 } from './lib/engine-baseline.ts';

const argOf = (name: string): string | undefined => { const i = process.argv.indexOf(name); return i >= 0 ? process.argv[i + 1] : undefined; };
const DIR = argOf('--reuse');
const BASE = argOf('--base');
const BASE_DIR = argOf('--base-reuse') ?? DIR;
const N = Number(argOf('--queries') ?? 100);
const SKIP = new Set((argOf('--skip') ?? '').split(','));
const TIER = argOf('--tier') ?? 'standard';
if (!DIR || !BASE) throw new Error('usage: tsx bench/search-ab.ts --reuse DIR --base ROOT [--queries N]');
type Kept = { secret: string; accountKey: string; apiKey: string; namespace: string };
const keptOf = (dir: string): Kept => JSON.parse(fs.readFileSync(path.join(dir, 'bench-latency-state.json'), 'utf8')) as Kept;
const kept = keptOf(DIR);

/** Request bodies checked for identity; the first two are also timed (bench/latency.ts's default and filled). */
const BODIES: Record<string, object> = {
  default: {},
  filled: { min_relevance: 0, target_tokens: 5000 },
  json: { min_relevance: 0, format: 'json' },
  small: { min_relevance: 0, target_tokens: 800, max_tokens: 1200 },
  tight: { min_relevance: 0, expand_tightness: 0 },
  wide: { min_relevance: 0.1, expand_tightness: 1, target_tokens: 12000 },
};

interface App { http: { inject(o: object): Promise<{ body: string }> }; services: { embedder: { embedQuery(q: string): Promise<Float32Array> } }; close(): Promise<void>; apiKey: string }

/** The app of the checkout at `root` on the kept data dir `dir` (its own module graph: createApp of that build). */
async function openApp(root: string, dir: string): Promise<App> {
  const { createApp } = await import(path.join(root, 'src', 'app.ts'));
  const { loadConfig } = await import(path.join(root, 'src', 'internal', 'config.ts'));
  const k = keptOf(dir);
  const config = loadConfig({
    DOCSEARCH_DATA_DIR: dir, DOCSEARCH_SECRET: k.secret, DOCSEARCH_BOOTSTRAP_ACCOUNT_KEY: k.accountKey, LOG_LEVEL: 'warn',
    DOCSEARCH_ROLE: 'api', DOCSEARCH_RATE_LIMIT_SEARCH_PER_MIN: '0', DOCSEARCH_RATE_LIMIT_IP_PER_MIN: '0',
  });
  return Object.assign(await createApp(config, { logger: false }), { apiKey: k.apiKey });
}

/**
 * True when two responses differ only as LanceDB's BM25 `_score` noise explains: its float32 value for the
 * same row and query can move by one ulp with what the process ran before (docs/decisions/2026-11-25-benchmark-method-and-native-hybrid.md),
 * which changes json scores in the 7th digit and may swap near-tied hits. json: the same hits (doc, content)
 * in the same order with every score within 1e-5 relative, or the same hits in another order;
 * prompt_ready: the same context lines in another order and the same token count.
 */
function equalUpToEngineUlp(a: string, b: string): boolean {
  const x = JSON.parse(a) as Record<string, unknown>;
  const y = JSON.parse(b) as Record<string, unknown>;
  type Hit = { doc_id: string; content: string; score: number; scores: Record<string, number | null> };
  if (Array.isArray(x.results) && Array.isArray(y.results)) {
    const [p, q] = [x.results as Hit[], y.results as Hit[]];
    if (p.length !== q.length) return false;
    const near = (u: number | null, v: number | null) => (u === null || v === null ? u === v : Math.abs(u - v) <= 1e-5 * Math.max(1, Math.abs(u)));
    const sameOrder = p.every((h, i) => h.doc_id === q[i].doc_id && h.content === q[i].content && near(h.score, q[i].score) && Object.keys(h.scores).every((k) => near(h.scores[k], q[i].scores[k])));
    const key = (h: Hit) => `${h.doc_id}\u0000${h.content}`;
    return sameOrder || JSON.stringify(p.map(key).sort()) === JSON.stringify(q.map(key).sort());
  }
  if (typeof x.context === 'string' && typeof y.context === 'string') {
    return x.tokens_estimated === y.tokens_estimated && JSON.stringify(x.context.split('\n').sort()) === JSON.stringify(y.context.split('\n').sort());
  }
  return false;
}

async function main(): Promise<void> {
  const apps: Record<'before' | 'after', App> = { before: await openApp(path.resolve(BASE!), BASE_DIR!), after: await openApp(repoRoot, DIR!) };
  const queries = readJsonl<{ text: string }>(path.join(beirDir('scifact'), 'queries.jsonl')).map((q) => q.text);
  const search = (app: App, query: string, kind: string, tier = 'standard') => app.http.inject({
    method: 'POST', url: '/v3/docsearch/search', payload: { query, retrieval_tier: tier, ...BODIES[kind] },
    headers: { authorization: `Bearer ${app.apiKey}`, 'content-type': 'application/json' },
  });
  if (!SKIP.has('identity')) {
    let same = 0;
    const differ: string[] = [];
    const ulp: string[] = [];
    for (let i = 0; i < N; i++) {
      for (const tier of ['standard', 'advanced']) {
        for (const kind of Object.keys(BODIES)) {
          const [a, b] = [await search(apps.before, queries[i], kind, tier), await search(apps.after, queries[i], kind, tier)];
          // Two kept namespaces differ in their name only (the response's `namespace` field).
          if (BASE_DIR !== DIR) a.body = a.body.split(keptOf(BASE_DIR!).namespace).join(kept.namespace);
          if (a.body === b.body) same++;
          else if (equalUpToEngineUlp(a.body, b.body)) ulp.push(`query ${i} ${tier} ${kind}`);
          else {
            differ.push(`query ${i} ${tier} ${kind}`);
            // AB_SHOW_DIFF=1: the first differing pair; AB_SHOW_DIFF=<tier>: the first of that tier.
            if (process.env.AB_SHOW_DIFF && differ.filter((d) => process.env.AB_SHOW_DIFF === '1' || d.includes(` ${process.env.AB_SHOW_DIFF} `)).length === 1 && (process.env.AB_SHOW_DIFF === '1' || tier === process.env.AB_SHOW_DIFF)) {
              const at = [...a.body].findIndex((c, k) => c !== b.body[k]);
              console.log(`first difference at ${at}:\n  before …${a.body.slice(Math.max(0, at - 150), at + 150)}\n  after  …${b.body.slice(Math.max(0, at - 150), at + 150)}`);
            }
          }
        }
      }
    }
    console.log(`identity: ${same} responses identical, ${ulp.length} equal up to LanceDB's BM25 ulp${ulp.length ? ` (${ulp.slice(0, 10).join('; ')})` : ''}, ${differ.length} differ${differ.length ? `: ${differ.slice(0, 20).join('; ')}` : ''}`);
    const perTier = new Map<string, number>();
    for (const d of differ) { const t = d.split(' ')[2]; perTier.set(t, (perTier.get(t) ?? 0) + 1); }
    if (differ.length) console.log(`  differing responses per tier: ${[...perTier].map(([t, n]) => `${t} ${n}`).join(', ')}`);
  }
  if (!SKIP.has('latency')) {
    const baseline = await openBaselineTable(DIR!, kept.namespace);
    const direct = async (k: number) => {
      const vector = await apps.after.services.embedder.embedQuery(queries[k]);
      await vectorAndBm25(baseline, vector, analyseQuery(queries[k], 'en').terms);
    };
    const ms: Record<string, number[]> = {};
    const timed = async (key: string, fn: () => Promise<unknown>) => {
      const t = performance.now();
      await fn();
      (ms[key] ??= []).push(performance.now() - t);
    };
    for (let i = 0; i < 20; i++) for (const app of Object.values(apps)) for (const kind of ['default', 'filled']) await search(app, queries[(N + i) % queries.length], kind, TIER);
    for (let i = 0; i < N; i++) {
      await timed('engine', () => direct(i));
      for (const kind of ['default', 'filled']) {
        for (const name of i % 2 ? (['before', 'after'] as const) : (['after', 'before'] as const)) await timed(`${kind} ${name}`, () => search(apps[name], queries[i], kind, TIER));
      }
    }
    const engine = percentile(ms.engine, 50);
    console.log(`latency, 1 client, interleaved (p50 ms, ratio to the engine), ${TIER} tier:`);
    for (const [key, v] of Object.entries(ms)) console.log(`  ${key.padEnd(16)} ${percentile(v, 50).toFixed(1).padStart(7)}  ${(percentile(v, 50) / engine).toFixed(2)}×`);
    baseline.close();
  }
  if (!SKIP.has('throughput')) {
    console.log(`throughput, 8 clients (searches/s, process CPU ms per search), alternating blocks of 120, ${TIER} tier:`);
    for (const kind of ['default', 'filled']) {
      for (const round of [0, 1]) {
        for (const name of ['before', 'after'] as const) {
          let next = 0;
          const total = 120;
          const t0 = performance.now();
          const c0 = process.cpuUsage();
          await Promise.all(Array.from({ length: 8 }, async () => {
            for (let i = next++; i < total; i = next++) await search(apps[name], queries[(i + round * total) % queries.length], kind, TIER);
          }));
          const cpu = process.cpuUsage(c0);
          console.log(`  ${kind} ${name} round ${round}: ${(total / ((performance.now() - t0) / 1000)).toFixed(1)}/s, CPU ${((cpu.user + cpu.system) / 1000 / total).toFixed(1)} ms`);
        }
      }
    }
  }
  for (const app of Object.values(apps)) await app.close();
}

await main();
