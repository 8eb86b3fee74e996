// What the API process holds while it serves searches ("RSS ≤ 1.5 GB throughout"): starts the
// server as its own process on a namespace kept by `npm run bench:latency -- --keep`, runs rounds of C
// concurrent searches (SciFact queries; default, filled and advanced bodies mixed) and prints, every 100
// rounds, the process's RSS (/proc/<pid>/status) beside the V8 heap and external memory its /metrics
// report, so native memory (LanceDB, allocator) can be told from JavaScript's.
// Usage: npx tsx bench/memory.ts DIR [--rounds 200] [--clients 8] [--env NAME=VALUE ...]
//   e.g. --env MALLOC_ARENA_MAX=64 to compare against the glibc default arenas (npm start sets 2).
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from './lib/beir.ts';
import { startApiProcess } from './lib/api-process.ts';

const dir = process.argv[2];
if (!dir || dir.startsWith('--')) throw new Error('usage: npx tsx bench/memory.ts DIR [--rounds N] [--clients C] [--env NAME=VALUE ...]');
const argOf = (n: string, d: string) => { const i = process.argv.indexOf(n); return i >= 0 ? process.argv[i + 1] : d; };
const rounds = Number(argOf('--rounds', '200'));
const clients = Number(argOf('--clients', '8'));
const extraEnv = Object.fromEntries(process.argv.flatMap((a, i) => (a === '--env' ? [process.argv[i + 1].split('=')] : [])));

const state = JSON.parse(fs.readFileSync(path.join(dir, 'bench-latency-state.json'), 'utf8')) as { secret: string; accountKey: string; apiKey: string };
const { child, base } = await startApiProcess({ dataDir: dir, secret: state.secret, accountKey: state.accountKey, env: extraEnv });
try {
  const rssMb = () => Math.round(Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]) / 1024);
  const metricsMb = async () => {
    const text = await (await fetch(`${base}/metrics`)).text();
    const mb = (name: string) => { const m = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)`, 'm').exec(text); return m ? Math.round(Number(m[1]) / 1048576) : null; };
    return { heapTotal: mb('nodejs_heap_size_total_bytes'), heapUsed: mb('nodejs_heap_size_used_bytes'), external: mb('nodejs_external_memory_bytes') };
  };
  const queries = fs.readFileSync(path.join(repoRoot, '..', 'shared', 'data', 'beir', 'scifact', 'queries.jsonl'), 'utf8')
    .trim().split('\n').map((l) => (JSON.parse(l) as { text: string }).text);
  const report = async (searches: number) => console.log(JSON.stringify({ searches, rssMb: rssMb(), ...(await metricsMb()) }));
  await report(0);
  for (let r = 0; r < rounds; r++) {
    // Odd rounds fill the context (min_relevance 0); every fourth asks the advanced tier.
    const body = { ...(r % 2 ? { min_relevance: 0 } : {}), ...(r % 4 === 3 ? { retrieval_tier: 'advanced' } : {}) };
    await Promise.all(Array.from({ length: clients }, (_, k) => fetch(`${base}/v3/docsearch/search`, {
      method: 'POST', headers: { authorization: `Bearer ${state.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...body, query: queries[(r * clients + k) % queries.length] }),
    }).then((res) => res.text())));
    if ((r + 1) % 100 === 0) await report((r + 1) * clients);
  }
} finally {
  child.kill();
}
