// End-to-end ingest throughput over HTTP, and where its time goes: the 43 FinanceBench filings of
// ../shared/data/qa (financebench + financebench-dev PDFs) uploaded to a running server (its own process,
// role `all`, as `npm start` runs it) into an EMPTY namespace and into a namespace pre-filled with ~100k
// chunks, in one run. Per phase it prints pages, wall seconds, pages/s, the per-stage time of the
// server (docsearch_ingest_stage_duration_seconds from /metrics, differenced around the phase: stage
// seconds summed over jobs, write and index_refresh once per commit group) and the load average at
// start and end, and the CPU seconds of the server and its parse children, with the children's share (CPU ms
// per page does not depend on how loaded the shared machine is). "Done means searchable" is checked the moment each job reports done: the document is
// described (bm25_state) and searched with words of a FinanceBench evidence passage of that filing, over
// the whole namespace (found = the document among the hits; a sibling filing of the same company may
// outrank it) and within the document (`doc_ids`: its rows are retrievable).
//   nice -n 10 npx tsx bench/ingest-throughput.ts -- --keep DIR [--chunks 100000]
//     [--in-flight 6] [--phases empty,full] [--files N] [--env KEY=VALUE,...]
// --keep DIR builds the pre-filled data directory once (synthetic SciFact-sentence documents of 20 chunks,
// bench/lib/synthetic.ts, then optimised) and reuses it: every run copies it to a temp dir first, so both
// phases start from the same state. Results: bench/results/ingest-throughput-<time>.json.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startBenchApp, createBenchProject } from './lib/bench-app.ts';
import { startApiProcess } from './lib/api-process.ts';
import { writeSyntheticCorpus } from './lib/synthetic.ts';
import { repoRoot } from './lib/beir.ts';
import { INGEST_STAGES } from '../src/ingest/stage-times.ts';

const { values: args } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: {
    keep: { type: 'string' }, chunks: { type: 'string', default: '100000' }, 'in-flight': { type: 'string', default: '6' },
    phases: { type: 'string', default: 'empty,full' }, files: { type: 'string', default: '0' }, env: { type: 'string', default: '' },
  },
});
const extraEnv: Record<string, string> = Object.fromEntries(args.env.split(',').filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
const QA = path.resolve(repoRoot, '../shared/data/qa');
const SETS = ['financebench', 'financebench-dev'];
const STATE = 'ingest-throughput.json';
const SECRET = 'bench-secret-0123456789abcdef0123456789abcdef';

interface Filing { file: string; query: string }
interface Prefill { apiKey: string; namespace: string; chunks: number; buildSeconds: number }

/** The filings and, per filing, a query of ≈ 30 words of its first evidence passage. */
function filings(): Filing[] {
  const out: Filing[] = [];
  for (const set of SETS) {
    const evidence = new Map<string, string>();
    for (const line of fs.readFileSync(path.join(QA, set, 'questions.jsonl'), 'utf8').split('\n').filter(Boolean)) {
      const q = JSON.parse(line) as { doc_name: string; evidence: Array<{ evidence_text: string }> };
      const words = (q.evidence[0]?.evidence_text ?? '').split(/\s+/).filter((w) => /[A-Za-z]{3,}/.test(w));
      if (!evidence.has(q.doc_name) && words.length >= 5) evidence.set(q.doc_name, words.slice(0, 30).join(' '));
    }
    const dir = path.join(QA, set, 'pdfs');
    for (const f of fs.readdirSync(dir).sort()) out.push({ file: path.join(dir, f), query: evidence.get(f.replace(/\.pdf$/, '')) ?? f.replace(/\.pdf$/, '').replace(/_/g, ' ') });
  }
  const n = Number(args.files);
  return n > 0 ? out.slice(0, n) : out;
}

/** Build (once) the data directory with a pre-filled namespace; returns its state. */
async function prefill(dir: string): Promise<Prefill> {
  const stateFile = path.join(dir, STATE);
  if (fs.existsSync(stateFile)) return JSON.parse(fs.readFileSync(stateFile, 'utf8')) as Prefill;
  const app = await startBenchApp({ keepDir: dir, env: { DOCSEARCH_SECRET: SECRET } });
  try {
    const p = await createBenchProject(app, 'prefilled');
    const s = app.handle.services;
    const t0 = performance.now();
    const chunks = await writeSyntheticCorpus({ cp: s.cp, index: s.index, embedder: s.embedder, projectId: p.projectId, namespace: p.namespace }, {
      docs: Math.ceil(Number(args.chunks) / 20), chunksPerDoc: 20, chunksPerSection: 5,
      onProgress: (n) => { if (n % 20_000 < 10_000) console.error(`  pre-fill: ${n} chunks (${((performance.now() - t0) / 1000).toFixed(0)} s)`); },
    });
    await s.index.optimize(p.namespace);
    const state: Prefill = { apiKey: p.apiKey, namespace: p.namespace, chunks, buildSeconds: (performance.now() - t0) / 1000 };
    fs.writeFileSync(stateFile, JSON.stringify(state, null, 2));
    return state;
  } finally {
    await app.handle.close();
  }
}

async function call(base: string, key: string, method: string, url: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(base + url, { method, headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
  const text = await res.text();
  let json: unknown = text;
  try { json = JSON.parse(text); } catch { /* text */ }
  return { status: res.status, json };
}

/** Sum and count per stage of docsearch_ingest_stage_duration_seconds, from the server's /metrics. */
async function stageTotals(base: string): Promise<Map<string, { sum: number; count: number }>> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const out = new Map<string, { sum: number; count: number }>();
  for (const m of text.matchAll(/^docsearch_ingest_stage_duration_seconds_(sum|count)\{stage="([a-z_]+)"\} ([0-9.e+-]+)$/gm)) {
    const e = out.get(m[2]) ?? { sum: 0, count: 0 };
    e[m[1] as 'sum' | 'count'] = Number(m[3]);
    out.set(m[2], e);
  }
  return out;
}

const load = () => os.loadavg().map((x) => x.toFixed(1)).join(' ');

/**
 * CPU seconds used so far by process `pid` (`server`) and by its children (`children`: the parse children;
 * live ones read from /proc, ended ones as its cutime).
 */
function treeCpuSeconds(pid: number): { server: number; children: number } {
  const ticks = (stat: string) => stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const own = ticks(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  let children = Number(own[13]) + Number(own[14]);
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const f = ticks(fs.readFileSync(`/proc/${d}/stat`, 'utf8'));
      if (Number(f[1]) === pid) children += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
    } catch { /* gone */ }
  }
  return { server: (Number(own[11]) + Number(own[12])) / 100, children: children / 100 }; // USER_HZ
}

/** Upload every filing (at most `inFlight` jobs unfinished at once), check each as it is done. */
async function phase(name: string, base: string, key: string, docs: Filing[], pid: number): Promise<Record<string, unknown>> {
  const loadStart = load();
  const before = await stageTotals(base);
  const cpuStart = treeCpuSeconds(pid);
  const t0 = performance.now();
  let pages = 0, chunks = 0, found = 0, foundInDoc = 0, indexed = 0, failed = 0;
  const misses: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < docs.length) {
      const d = docs[next++];
      const up = await fetch(`${base}/v3/docsearch/ingest`, {
        method: 'POST', body: fs.readFileSync(d.file),
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream', 'content-disposition': `attachment; filename="${path.basename(d.file)}"` },
      });
      const job = (await up.json()) as { job_id: string };
      if (up.status !== 201) throw new Error(`upload ${path.basename(d.file)}: ${up.status} ${JSON.stringify(job)}`);
      let st: { status: string; doc_id?: string; error?: unknown };
      for (;;) {
        st = (await call(base, key, 'GET', `/v3/jobs/${job.job_id}/status`)).json;
        if (st.status === 'done' || st.status === 'failed') break;
        await new Promise((r) => setTimeout(r, 300));
      }
      if (st.status !== 'done') { failed++; misses.push(`${path.basename(d.file)}: ${JSON.stringify(st.error)}`); continue; }
      // Done means searchable: described as BM25-indexed, and found by a namespace-wide search at once.
      const desc = (await call(base, key, 'GET', `/v3/docsearch/docs/${st.doc_id}`)).json as { pages?: number; chunk_count?: number; bm25_state?: string };
      pages += desc.pages ?? 0;
      chunks += desc.chunk_count ?? 0;
      if (desc.bm25_state === 'indexed') indexed++;
      const r = await call(base, key, 'POST', '/v3/docsearch/search', { query: d.query, format: 'json', min_relevance: 0 });
      if ((r.json.results as Array<{ doc_id: string }> | undefined)?.some((h) => h.doc_id === st.doc_id)) found++;
      else misses.push(`${path.basename(d.file)}: not among the namespace-wide hits of "${d.query.slice(0, 60)}…"`);
      // The same words within the document: its rows are committed and retrievable (a sibling filing that
      // outranks it namespace-wide is a ranking matter, not an indexing one).
      const own = await call(base, key, 'POST', '/v3/docsearch/search', { query: d.query, format: 'json', min_relevance: 0, doc_ids: [st.doc_id] });
      if ((own.json.results as Array<{ doc_id: string }> | undefined)?.some((h) => h.doc_id === st.doc_id)) foundInDoc++;
      else misses.push(`${path.basename(d.file)}: no hit within the document`);
      process.stderr.write(`  ${name}: ${path.basename(d.file)} done (${desc.pages} p) at ${((performance.now() - t0) / 1000).toFixed(0)} s\n`);
    }
  };
  await Promise.all(Array.from({ length: Number(args['in-flight']) }, worker));
  const seconds = (performance.now() - t0) / 1000;
  const cpuEnd = treeCpuSeconds(pid);
  const childCpu = cpuEnd.children - cpuStart.children;
  const cpu = cpuEnd.server - cpuStart.server + childCpu;
  const after = await stageTotals(base);
  const stages: Record<string, { seconds: number; count: number; msPerPage: number }> = {};
  for (const s of INGEST_STAGES) {
    const a = after.get(s), b = before.get(s);
    if (!a) continue;
    const sec = a.sum - (b?.sum ?? 0);
    stages[s] = { seconds: +sec.toFixed(2), count: a.count - (b?.count ?? 0), msPerPage: pages ? +((sec * 1000) / pages).toFixed(2) : 0 };
  }
  return { phase: name, docs: docs.length, failed, pages, chunks, seconds: +seconds.toFixed(1), pagesPerSecond: +(pages / seconds).toFixed(1), serverCpuSeconds: +cpu.toFixed(1), cpuMsPerPage: pages ? +((cpu * 1000) / pages).toFixed(1) : 0, childCpuMsPerPage: pages ? +((childCpu * 1000) / pages).toFixed(1) : 0, indexedAtDone: indexed, foundAtDone: found, foundInDocAtDone: foundInDoc, misses, loadStart, loadEnd: load(), stages };
}

async function main(): Promise<void> {
  const keep = path.resolve(args.keep ?? path.join(os.tmpdir(), 'docsearch-ingest-prefill'));
  const docs = filings();
  const phases = args.phases.split(',');
  const pre = phases.includes('full') ? await prefill(keep) : null;
  // Each run works on a copy, so both phases of every run start from the same pre-filled state.
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docsearch-ingest-run-'));
  if (pre) fs.cpSync(keep, dataDir, { recursive: true });
  const glove = path.join(repoRoot, '.tmp', 'test-cache', 'models', 'glove-100d.int8.bin');
  if (!pre && fs.existsSync(glove)) {
    fs.mkdirSync(path.join(dataDir, 'models'));
    fs.symlinkSync(glove, path.join(dataDir, 'models', 'glove-100d.int8.bin'));
  }
  const kept = pre ? JSON.parse(fs.readFileSync(path.join(keep, 'bench-app.json'), 'utf8')) as { accountKey: string } : { accountKey: 'svc_acc_' + 'b'.repeat(43) };
  const { child, base } = await startApiProcess({ dataDir, secret: SECRET, accountKey: kept.accountKey, role: 'all', env: extraEnv });
  const results: Array<Record<string, unknown>> = [];
  try {
    for (const name of phases) {
      let key: string;
      if (name === 'full') key = pre!.apiKey;
      else {
        const r = await call(base, kept.accountKey, 'POST', '/v3/projects', { name: `empty-${Date.now()}`, product: 'docsearch' });
        if (r.status !== 201) throw new Error(`create project: ${r.status} ${JSON.stringify(r.json)}`);
        key = r.json.api_key;
      }
      console.error(`phase ${name}: ${docs.length} filings${name === 'full' ? ` into ${pre!.chunks} chunks` : ''}`);
      results.push(await phase(name, base, key, docs, child.pid!));
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  console.log(`| phase | docs | pages | chunks | s | pages/s | server CPU s | CPU ms/page (parse children) | indexed at done | found at done (namespace / in doc) | load start → end |`);
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of results) console.log(`| ${r.phase} | ${r.docs} | ${r.pages} | ${r.chunks} | ${r.seconds} | ${r.pagesPerSecond} | ${r.serverCpuSeconds} | ${r.cpuMsPerPage} (${r.childCpuMsPerPage}) | ${r.indexedAtDone} | ${r.foundAtDone} / ${r.foundInDocAtDone} | ${r.loadStart} → ${r.loadEnd} |`);
  console.log('\nstage seconds (summed over jobs; write and index_refresh per commit group) and ms per page:');
  console.log(`| stage | ${results.map((r) => `${r.phase} s | ${r.phase} ms/page | ${r.phase} n`).join(' | ')} |`);
  console.log(`|---|${results.map(() => '---|---|---').join('|')}|`);
  for (const s of INGEST_STAGES) {
    const cells = results.map((r) => { const x = (r.stages as Record<string, { seconds: number; msPerPage: number; count: number }>)[s]; return x ? `${x.seconds} | ${x.msPerPage} | ${x.count}` : '- | - | -'; });
    console.log(`| ${s} | ${cells.join(' | ')} |`);
  }
  for (const r of results) for (const m of r.misses as string[]) console.log(`miss (${r.phase}): ${m}`);
  const out = path.join(repoRoot, 'bench', 'results', `ingest-throughput-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), args, prefill: pre, results }, null, 2) + '\n');
  console.log(`written ${path.relative(repoRoot, out)}`);
}

await main();
