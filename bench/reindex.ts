// Cost of an online reindex through the real service (docs/reindex.md): a namespace of about N chunks
// (synthetic Markdown documents of ~41 chunks each, ingested over HTTP) is reindexed while search loops run
// against it. Reports the reindex time (request -> job done) and per 1 000 chunks, the searches answered
// during it (none may fail, be empty, show a chunk twice or differ from the results before), search latency
// before and during, and whether the results after equal those before. Writes bench/results/reindex.json.
// Run: npx tsx bench/reindex.ts [--chunks 3000] [--searchers 2] [--backend sqlite|postgres] [--workers 2]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestServer, createProject } from '../test/helpers/start-test-server.ts';
import { api, waitForJob } from '../test/helpers/api.ts';
import { markerOf, syntheticDoc } from '../test/helpers/synthetic-docs.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name: string, dflt: string) => (process.argv.indexOf(name) > 0 ? process.argv[process.argv.indexOf(name) + 1] : dflt);
const CHUNKS = Number(arg('--chunks', '3000'));
const SEARCHERS = Number(arg('--searchers', '2'));
const BACKEND = arg('--backend', 'sqlite') as 'sqlite' | 'postgres';
const WORKERS = arg('--workers', '2');
/** Sections per document: one chunk each, plus the title's. */
const SECTIONS = 40;
const QUERIES = ['river stone market', 'winter signal harbor garden', 'copper forest valley lantern', 'orchard bridge canvas', 'velvet timber saddle pepper'];

const pct = (xs: number[], p: number) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] : 0);
const regions = (body: any): string[] => (body.results as any[]).map((h) => `${h.doc_id}:${(h.chunk_indices as number[]).join('.')}`);

async function main(): Promise<void> {
  // The search loops outrun the default 1 200 searches per project per minute: rate limits off.
  const server = await startTestServer({ backend: BACKEND, env: { DOCSEARCH_WORKER_CONCURRENCY: WORKERS, DOCSEARCH_RATE_LIMIT_SEARCH_PER_MIN: '0' } });
  try {
    const { apiKey: key } = await createProject(server);
    const docs = Math.ceil(CHUNKS / (SECTIONS + 1));
    const tIngest = Date.now();
    for (let i = 0; i < docs; i += 8) {
      await Promise.all(Array.from({ length: Math.min(8, docs - i) }, async (_, j) => {
        const res = await fetch(`${server.baseUrl}/v3/docsearch/ingest`, {
          method: 'POST', body: syntheticDoc(markerOf(i + j), i + j, SECTIONS),
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream', 'content-disposition': `attachment; filename="b${i + j}.md"` },
        });
        const done = await waitForJob(server.baseUrl, key, ((await res.json()) as { job_id: string }).job_id, 600_000);
        if (done.status !== 'done') throw new Error(JSON.stringify(done));
      }));
    }
    const ingestSeconds = (Date.now() - tIngest) / 1000;
    const before = (await api(server.baseUrl, key, 'GET', '/v3/docsearch/index')).body as any;
    const search = async (q: string) => {
      const t = performance.now();
      const r = await api(server.baseUrl, key, 'POST', '/v3/docsearch/search', { query: q, format: 'json', min_relevance: 0 });
      return { ms: performance.now() - t, status: r.status, body: r.body as any };
    };
    const baseline = new Map<string, string>();
    const latBefore: number[] = [];
    for (let i = 0; i < 40; i++) {
      const q = QUERIES[i % QUERIES.length];
      const r = await search(q);
      latBefore.push(r.ms);
      baseline.set(q, regions(r.body).join());
    }

    let running = true;
    const latDuring: number[] = [];
    const problems: Record<string, number> = { failed: 0, empty: 0, chunk_twice: 0, other_results: 0 };
    const failedStatuses: Record<string, number> = {};
    const loop = async (n: number) => {
      for (let i = n; running; i++) {
        const q = QUERIES[i % QUERIES.length];
        const r = await search(q);
        latDuring.push(r.ms);
        if (r.status !== 200) {
          problems.failed++;
          failedStatuses[`${r.status} ${r.body?.code ?? ''}`] = (failedStatuses[`${r.status} ${r.body?.code ?? ''}`] ?? 0) + 1;
          continue;
        }
        const got = regions(r.body);
        const chunks = got.flatMap((h) => { const [d, c] = h.split(':'); return c.split('.').map((x) => `${d}:${x}`); });
        if (got.length === 0) problems.empty++;
        else if (new Set(chunks).size !== chunks.length) problems.chunk_twice++;
        else if (got.join() !== baseline.get(q)) problems.other_results++;
      }
    };
    const loops = Array.from({ length: SEARCHERS }, (_, i) => loop(i));
    const t0 = Date.now();
    const started = await api(server.baseUrl, key, 'POST', '/v3/docsearch/reindex');
    if (started.status !== 202) throw new Error(JSON.stringify(started.body));
    const done = await waitForJob(server.baseUrl, key, (started.body as any).job_id, 3_600_000);
    const seconds = (Date.now() - t0) / 1000;
    running = false;
    await Promise.all(loops);
    const after = (await api(server.baseUrl, key, 'GET', '/v3/docsearch/index')).body as any;
    let identical = true;
    for (const q of QUERIES) identical &&= regions((await search(q)).body).join() === baseline.get(q);
    const result = {
      backend: BACKEND, documents: docs, chunks: before.chunks, ingest_seconds: Number(ingestSeconds.toFixed(1)),
      reindex: { status: done.status, seconds: Number(seconds.toFixed(2)), seconds_per_1000_chunks: Number((seconds / (before.chunks / 1000)).toFixed(2)), generation: after.generation, chunks_after: after.chunks },
      searchers: SEARCHERS, searches_during: latDuring.length, problems, failed_statuses: failedStatuses,
      search_ms: { before_p50: Number(pct(latBefore, 0.5).toFixed(1)), before_p99: Number(pct(latBefore, 0.99).toFixed(1)), during_p50: Number(pct(latDuring, 0.5).toFixed(1)), during_p99: Number(pct(latDuring, 0.99).toFixed(1)) },
      results_identical_after: identical, machine: '2 cores (shared)', date: new Date().toISOString(),
    };
    console.log(JSON.stringify(result, null, 2));
    fs.mkdirSync(path.join(repoRoot, 'bench/results'), { recursive: true });
    fs.writeFileSync(path.join(repoRoot, 'bench/results/reindex.json'), JSON.stringify(result, null, 2) + '\n');
    if (done.status !== 'done' || !identical || Object.values(problems).some((n) => n > 0) || after.chunks !== before.chunks) process.exitCode = 1;
  } finally {
    await server.close();
  }
}

await main();
