// Many small tenants on one node (docs/deployment.md "Memory with many namespaces"): N projects of 20 small
// documents each (one chunk apiece), written through the ingest pipeline's own layers (bench/lib/corpus.ts),
// and ONE project holding the same N × 20 documents. The service then runs as its own `api` process (as
// `npm start` runs it) and the bench measures, in one run:
//   - cold first search: the first search of namespaces not searched since the process started (table open,
//     index loads, the project's label and language reads), K of them one at a time;
//   - random-namespace workload: C clients, each search in a random project, against the one-namespace
//     workload (the big project), in 2-second blocks alternating between the two for S seconds each;
//   - the server's RSS after start, after the cold searches and after the workloads (and its peak).
// With several checkpoints (--projects 300,1000) the projects are built cumulatively and each checkpoint is
// measured on a fresh server process, so the trend with N is read from one run.
//   npx tsx bench/many-tenants.ts -- --projects 300,1000 --clients 8 --seconds 10 --cold 30
// --keep DIR keeps the data directory and the projects' keys there, so a later run with the same DIR only
// builds what is missing (e.g. to measure another --env setting on the same 10 000 projects). --one-max D
// caps the one namespace at D documents (0 = the same total), where building it would take too long.
// Results go to bench/results/many-tenants-<time>.json.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { ChildProcess } from 'node:child_process';
import { startBenchApp, createBenchProject } from './lib/bench-app.ts';
import { startApiProcess } from './lib/api-process.ts';
import { ingestCorpus } from './lib/corpus.ts';
import { repoRoot } from './lib/beir.ts';
import { markerOf, syntheticDoc } from '../test/helpers/synthetic-docs.ts';

const { values: args } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: {
    projects: { type: 'string', default: '300,1000' }, docs: { type: 'string', default: '20' },
    clients: { type: 'string', default: '8' }, seconds: { type: 'string', default: '10' }, cold: { type: 'string', default: '30' },
    env: { type: 'string', default: '' }, keep: { type: 'string' }, 'one-max': { type: 'string', default: '0' },
  },
});
const extraEnv: Record<string, string> = Object.fromEntries(args.env.split(',').filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
const DOCS = Number(args.docs);
const pct = (sorted: number[], p: number) => sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] : 0;
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);

/** Small documents: a title with the document's marker word and one section (one chunk). */
const docsFor = (project: number, count: number, offset = 0) => Array.from({ length: count }, (_, i) => {
  const n = project * 1_000_000 + offset + i;
  const marker = markerOf(n);
  const body = syntheticDoc(marker, n, 1).split('\n').slice(2).join('\n');
  return { _id: `d${offset + i}`, title: `Report ${marker}`, text: body, marker };
});

function rssMb(pid: number): { rss: number; peak: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

async function search(base: string, key: string, query: string): Promise<number> {
  const t = performance.now();
  const res = await fetch(`${base}/v3/docsearch/search`, {
    method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ query, format: 'json' }),
  });
  const body = await res.text();
  if (res.status !== 200) throw new Error(`search ${res.status}: ${body.slice(0, 300)}`);
  return performance.now() - t;
}

const app = await startBenchApp({ keepDir: args.keep });
const stateFile = args.keep ? path.join(path.resolve(args.keep), 'many-tenants.json') : '';
const saved = stateFile && fs.existsSync(stateFile) ? JSON.parse(fs.readFileSync(stateFile, 'utf8')) : null;
const tenants: Array<{ key: string; markers: string[] }> = saved?.tenants ?? [];
type Big = { key: string; markers: string[]; projectId: string; namespace: string };
const rows: Array<Record<string, unknown>> = [];
try {
  const embedder = app.handle.services.embedder;
  let big: Big = saved?.big ?? await createBenchProject(app, 'one-namespace').then((p) => ({ projectId: p.projectId, namespace: p.namespace, key: p.apiKey, markers: [] }));
  const target = (p: { projectId: string; namespace: string }) => ({ cp: app.handle.services.cp, index: app.handle.services.index, embedder, projectId: p.projectId, namespace: p.namespace });
  for (const n of args.projects.split(',').map(Number)) {
    const t0 = Date.now();
    // Four projects at a time: each build waits on its table's writes as much as it computes.
    while (tenants.length < n) {
      const batch = Array.from({ length: Math.min(4, n - tenants.length) }, (_, k) => tenants.length + k);
      const built = await Promise.all(batch.map(async (p) => {
        const proj = await createBenchProject(app, `tenant-${p}`);
        const docs = docsFor(p, DOCS);
        await ingestCorpus(target(proj), docs);
        return { key: proj.apiKey, markers: docs.map((d) => d.marker) };
      }));
      tenants.push(...built);
      if (tenants.length % 100 < 4) console.error(`built ${tenants.length} projects (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
      if (stateFile && tenants.length % 500 < 4) fs.writeFileSync(stateFile, JSON.stringify({ tenants, big }));
    }
    // The one namespace grows to the same total: N × DOCS documents, written in batches of 1 000.
    const have = big.markers.length;
    const oneTotal = Number(args['one-max']) > 0 ? Math.min(n * DOCS, Number(args['one-max'])) : n * DOCS;
    const more = docsFor(999_999, Math.max(0, oneTotal - have), have);
    if (more.length) await ingestCorpus(target(big), more);
    big = { ...big, markers: [...big.markers, ...more.map((d) => d.marker)] };
    if (stateFile) fs.writeFileSync(stateFile, JSON.stringify({ tenants, big }));
    const buildSeconds = (Date.now() - t0) / 1000;

    // Measure on a fresh `api` process over the same data directory.
    const { accountKey } = app;
    const secret = app.handle.services.config.serverSecret;
    let server: { child: ChildProcess; base: string } | null = null;
    try {
      server = await startApiProcess({ dataDir: app.dataDir, secret, accountKey, env: extraEnv });
      const pid = server.child.pid!;
      const atStart = rssMb(pid);
      const coldOrder = [...tenants.keys()].sort(() => Math.random() - 0.5).slice(0, Number(args.cold));
      const cold: number[] = [];
      for (const i of coldOrder) cold.push(await search(server.base, tenants[i].key, `${tenants[i].markers[3]} harbor`));
      const afterCold = rssMb(pid);
      const clients = Number(args.clients);
      const blocks = Math.max(1, Math.round(Number(args.seconds) / 2));
      const random: number[] = [];
      const one: number[] = [];
      let randomMs = 0;
      let oneMs = 0;
      const loop = async (until: number, out: number[], pick: () => [string, string]) => Promise.all(Array.from({ length: clients }, async () => {
        while (Date.now() < until) {
          const [key, q] = pick();
          out.push(await search(server!.base, key, q));
        }
      }));
      const pickRandom = (): [string, string] => {
        const t = tenants[Math.floor(Math.random() * tenants.length)];
        return [t.key, `${t.markers[Math.floor(Math.random() * DOCS)]} harbor`];
      };
      const pickOne = (): [string, string] => [big.key, `${big.markers[Math.floor(Math.random() * big.markers.length)]} harbor`];
      await loop(Date.now() + 2000, [], pickOne);
      for (let b = 0; b < blocks; b++) {
        let t = Date.now();
        await loop(t + (Number(args.seconds) * 1000) / blocks, random, pickRandom);
        randomMs += Date.now() - t;
        t = Date.now();
        await loop(t + (Number(args.seconds) * 1000) / blocks, one, pickOne);
        oneMs += Date.now() - t;
      }
      const after = rssMb(pid);
      const r = sorted(random);
      const o = sorted(one);
      const c = sorted(cold);
      const row = {
        projects: n, docsPerProject: DOCS, oneNamespaceDocs: big.markers.length, buildSeconds, rssStartMb: atStart.rss, rssAfterColdMb: afterCold.rss, rssAfterMb: after.rss, rssPeakMb: after.peak,
        coldP50Ms: pct(c, 0.5), coldP99Ms: pct(c, 0.99), coldSamples: c.length,
        randomP50Ms: pct(r, 0.5), randomP99Ms: pct(r, 0.99), randomPerSecond: r.length / (randomMs / 1000), randomSearches: r.length,
        oneP50Ms: pct(o, 0.5), oneP99Ms: pct(o, 0.99), onePerSecond: o.length / (oneMs / 1000), oneSearches: o.length,
        load: os.loadavg()[0],
      };
      rows.push(row);
      console.error(JSON.stringify(row));
    } finally {
      server?.child.kill('SIGTERM');
      if (server) await new Promise((res) => server!.child.once('exit', res));
    }
  }
} finally {
  await app.close();
}

const f = (x: unknown, d = 1) => Number(x).toFixed(d);
console.log(`\nmany tenants: ${DOCS} documents per project (one chunk each); ${args.clients} clients, ${args.seconds} s per workload in alternating 2 s blocks; ${args.cold} cold first searches; ${os.cpus().length} cores${args.env ? `; env ${args.env}` : ''}`);
console.log('| projects | RSS start / after cold / after workloads / peak MB | cold first search p50 / p99 ms | random namespace p50 / p99 ms, searches/s | one namespace: documents, p50 / p99 ms, searches/s | random/one p50 | load |');
console.log('|---|---|---|---|---|---|---|');
for (const r of rows) {
  console.log(`| ${r.projects} | ${f(r.rssStartMb, 0)} / ${f(r.rssAfterColdMb, 0)} / ${f(r.rssAfterMb, 0)} / ${f(r.rssPeakMb, 0)} | ${f(r.coldP50Ms)} / ${f(r.coldP99Ms)} | ${f(r.randomP50Ms)} / ${f(r.randomP99Ms)}, ${f(r.randomPerSecond)} | ${r.oneNamespaceDocs}: ${f(r.oneP50Ms)} / ${f(r.oneP99Ms)}, ${f(r.onePerSecond)} | ×${f(Number(r.randomP50Ms) / Number(r.oneP50Ms), 2)} | ${f(r.load)} |`);
}
const out = path.join(repoRoot, 'bench', 'results', `many-tenants-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, JSON.stringify({ args, rows }, null, 2));
console.log(`\n${out}`);
process.exit(0);
