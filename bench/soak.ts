// Soak of the scaled-out deployment (docs/scale-out.md): 2 API + 2 worker processes (real `src/main.ts`
// children, DOCSEARCH_ROLE=api|worker) on one PostgreSQL database and one bucket of the test S3 server,
// loopback only, under mixed traffic from several projects for a fixed time: per project one ingest at a
// time (a synthetic Markdown document whose every paragraph carries a word unique to it), searches from
// several clients for the words of documents already done, and a delete every few seconds. Every request
// goes round robin over the API processes. It prints one row per minute (searches, p50/p99, ingests done,
// deletes, 429s, other errors) and then checks the end state against what the API acknowledged: each
// document whose job ended `done` and that was not deleted is listed exactly once and its word finds it;
// no deleted document is listed or found; no job failed; no document is listed that nothing ingested.
//   npx tsx bench/soak.ts -- --minutes 30 --projects 3 --clients 4 --delete-every-s 5
// Results go to bench/results/soak-<time>.json. The rate limits are left at their defaults unless
// --no-limits is given, so 429s are part of the traffic and counted apart from errors.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createTestDatabase } from '../test/helpers/postgres.ts';
import { NodeProcess } from '../test/helpers/node-process.ts';
import { saveModelCache, seedModelCache, repoRoot } from '../test/helpers/server.ts';
import { freePort } from '../test/jobs-helpers.ts';
import { syntheticDoc } from '../test/helpers/synthetic-docs.ts';
import { startS3Server } from '../test/helpers/s3-server.ts';

const { values: args } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: {
    minutes: { type: 'string', default: '30' }, projects: { type: 'string', default: '3' }, clients: { type: 'string', default: '4' },
    sections: { type: 'string', default: '4' }, 'delete-every-s': { type: 'string', default: '5' }, 'no-limits': { type: 'boolean', default: false },
  },
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)] : 0;
};
/** A word unique to one document: letters only, so the analyser keeps it whole. */
const wordOf = (project: number, i: number) => 'zs' + crypto.createHash('sha1').update(`${project}/${i}`).digest('hex').replace(/\d/g, '').slice(0, 10);

interface Minute { searches: number[]; ingestsDone: number; deletes: number; tooMany: number; errors: number }
const minutes: Minute[] = [];
let t0 = Date.now();
const minute = (): Minute => {
  const m = Math.floor((Date.now() - t0) / 60_000);
  while (minutes.length <= m) minutes.push({ searches: [], ingestsDone: 0, deletes: 0, tooMany: 0, errors: 0 });
  return minutes[m];
};
const errorLog: string[] = [];
const fail = (what: string) => {
  minute().errors++;
  if (errorLog.length < 50) errorLog.push(`${((Date.now() - t0) / 1000).toFixed(0)}s ${what}`);
};

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docsearch-soak-'));
seedModelCache(dataDir);
const database = await createTestDatabase();
const s3 = await startS3Server();
await s3.createBucket('soak');
const accountKey = 'svc_acc_' + crypto.randomBytes(24).toString('base64url');
const env: Record<string, string> = {
  DOCSEARCH_BLOB_URI: 's3://soak/blobs', DOCSEARCH_INDEX_URI: 's3://soak/index', DOCSEARCH_S3_ENDPOINT: s3.endpoint,
  DOCSEARCH_S3_REGION: s3.region, DOCSEARCH_S3_ACCESS_KEY_ID: s3.accessKeyId, DOCSEARCH_S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
  DOCSEARCH_DATA_DIR: dataDir, DOCSEARCH_DATABASE_URL: database.url, DOCSEARCH_BOOTSTRAP_ACCOUNT_KEY: accountKey,
  DOCSEARCH_SECRET: crypto.randomBytes(32).toString('base64url'), LOG_LEVEL: 'warn',
  ...(args['no-limits'] ? { DOCSEARCH_RATE_LIMIT_SEARCH_PER_MIN: '0', DOCSEARCH_RATE_LIMIT_INGEST_PER_MIN: '0', DOCSEARCH_RATE_LIMIT_IP_PER_MIN: '0' } : {}),
};
const logDir = path.join(dataDir, 'logs');
fs.mkdirSync(logDir);
const apis = [new NodeProcess('api1', 'api', env, await freePort(), logDir), new NodeProcess('api2', 'api', env, await freePort(), logDir)];
// A worker is seen started by its info-level "docsearch started" line (test/helpers/node-process.ts).
const workerEnv = { ...env, LOG_LEVEL: 'info' };
const workers = [new NodeProcess('worker1', 'worker', workerEnv, await freePort(), logDir), new NodeProcess('worker2', 'worker', workerEnv, await freePort(), logDir)];
let rr = 0;
const origin = () => apis[rr++ % apis.length].origin;

interface Project { index: number; auth: Record<string, string>; live: Map<string, string>; deleted: Map<string, string>; failedJobs: number; ingested: number }
const projects: Project[] = [];

/** One request with 429s retried after their Retry-After (counted); resolves to the final response. */
async function call(method: string, url: string, auth: Record<string, string>, body?: string, headers: Record<string, string> = {}): Promise<Response> {
  for (;;) {
    const res = await fetch(`${origin()}${url}`, { method, body, headers: { ...auth, ...headers } });
    if (res.status !== 429) return res;
    minute().tooMany++;
    await res.arrayBuffer();
    await sleep(Math.min(5000, 1000 * Number(res.headers.get('retry-after') ?? '1')));
  }
}

async function ingestLoop(p: Project, until: number): Promise<void> {
  for (let i = 0; Date.now() < until; i++) {
    const word = wordOf(p.index, i);
    const res = await call('POST', '/v3/docsearch/ingest', p.auth, syntheticDoc(word, i, Number(args.sections)), {
      'content-type': 'application/octet-stream', 'content-disposition': `attachment; filename="soak-${i}.md"`,
    });
    if (res.status !== 201) { fail(`ingest ${res.status} ${(await res.text()).slice(0, 120)}`); continue; }
    const { job_id: job } = await res.json() as { job_id: string };
    p.ingested++;
    for (;;) {
      const st = await call('GET', `/v3/jobs/${job}/status`, p.auth);
      if (st.status !== 200) { fail(`job status ${st.status}`); await sleep(500); continue; }
      const s = await st.json() as { status: string; doc_id?: string };
      if (s.status === 'done') { p.live.set(s.doc_id!, word); minute().ingestsDone++; break; }
      if (s.status === 'failed' || s.status === 'cancelled') { p.failedJobs++; fail(`job ${s.status}`); break; }
      await sleep(200);
    }
  }
}

async function searchLoop(c: number, until: number): Promise<void> {
  for (let k = 0; Date.now() < until; k++) {
    const p = projects[(c + k) % projects.length];
    const words = [...p.live.values()];
    if (words.length === 0) { await sleep(200); continue; }
    const t1 = performance.now();
    const res = await call('POST', '/v3/docsearch/search', p.auth, JSON.stringify({ query: `${words[(k * 7919) % words.length]} harbor lantern`, format: 'json' }), { 'content-type': 'application/json' });
    const ms = performance.now() - t1;
    await res.arrayBuffer();
    if (res.status === 200) minute().searches.push(ms);
    else fail(`search ${res.status}`);
  }
}

async function deleteLoop(p: Project, until: number): Promise<void> {
  while (Date.now() < until) {
    await sleep(Number(args['delete-every-s']) * 1000);
    const ids = [...p.live.keys()];
    if (ids.length < 3) continue;
    const id = ids[Math.floor(ids.length / 2)];
    const word = p.live.get(id)!;
    p.live.delete(id); // no search picks it from now on
    const res = await call('DELETE', `/v3/docsearch/docs/${id}`, p.auth);
    await res.arrayBuffer();
    if (res.status === 200) { p.deleted.set(id, word); minute().deletes++; } else { p.live.set(id, word); fail(`delete ${res.status}`); }
  }
}

interface Check { live: number; deleted: number; lost: number; duplicated: number; resurrected: number; unknown: number; notFound: number; deletedFound: number; failedJobs: number }

/** End state against what the API acknowledged. */
async function check(p: Project): Promise<Check> {
  const res = await call('GET', '/v3/docsearch/docs', p.auth);
  const listed = (await res.json() as { documents: Array<{ doc_id: string }> }).documents.map((d) => d.doc_id);
  const counts = new Map<string, number>();
  for (const id of listed) counts.set(id, (counts.get(id) ?? 0) + 1);
  const out: Check = { live: p.live.size, deleted: p.deleted.size, lost: 0, duplicated: 0, resurrected: 0, unknown: 0, notFound: 0, deletedFound: 0, failedJobs: p.failedJobs };
  for (const id of p.live.keys()) {
    if (!counts.has(id)) out.lost++;
    else if (counts.get(id)! > 1) out.duplicated++;
  }
  for (const id of p.deleted.keys()) if (counts.has(id)) out.resurrected++;
  for (const id of counts.keys()) if (!p.live.has(id) && !p.deleted.has(id)) out.unknown++;
  const find = async (word: string) => {
    const r = await call('POST', '/v3/docsearch/search', p.auth, JSON.stringify({ query: word, format: 'json', min_relevance: 0 }), { 'content-type': 'application/json' });
    return ((await r.json()) as { results: Array<{ doc_id: string }> }).results.map((h) => h.doc_id);
  };
  for (const [id, word] of p.live) if (!(await find(word)).includes(id)) out.notFound++;
  for (const [id, word] of p.deleted) if ((await find(word)).includes(id)) out.deletedFound++;
  return out;
}

try {
  await apis[0].start();
  saveModelCache(dataDir);
  await Promise.all([apis[1], ...workers].map((n) => n.start()));
  for (let i = 0; i < Number(args.projects); i++) {
    const created = await fetch(`${apis[0].origin}/v3/projects`, {
      method: 'POST', headers: { authorization: `Bearer ${accountKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `soak-${i}`, product: 'docsearch' }),
    });
    const { api_key: key } = await created.json() as { api_key: string };
    projects.push({ index: i, auth: { authorization: `Bearer ${key}` }, live: new Map(), deleted: new Map(), failedJobs: 0, ingested: 0 });
  }
  t0 = Date.now();
  const until = t0 + Number(args.minutes) * 60_000;
  let shown = 0;
  const ticker = setInterval(() => {
    // Each minute once it is complete (the bucket of the current minute is still filling).
    const current = Math.floor((Date.now() - t0) / 60_000);
    minute();
    for (; shown < current; shown++) {
      const m = minutes[shown];
      console.error(`minute ${shown}: ${m.searches.length} searches p50 ${pct(m.searches, 0.5).toFixed(0)} ms p99 ${pct(m.searches, 0.99).toFixed(0)} ms, ${m.ingestsDone} ingests, ${m.deletes} deletes, ${m.tooMany} 429, ${m.errors} errors`);
    }
  }, 10_000);
  await Promise.all([
    ...projects.map((p) => ingestLoop(p, until)),
    ...projects.map((p) => deleteLoop(p, until)),
    ...Array.from({ length: Number(args.clients) }, (_, c) => searchLoop(c, until)),
  ]);
  clearInterval(ticker);
  await sleep(3000);
  const checks = [];
  for (const p of projects) checks.push({ project: p.index, ingested: p.ingested, ...(await check(p)) });
  const rows = minutes.map((m, i) => ({
    minute: i, searches: m.searches.length, p50_ms: Math.round(pct(m.searches, 0.5)), p99_ms: Math.round(pct(m.searches, 0.99)),
    ingests_done: m.ingestsDone, deletes: m.deletes, too_many: m.tooMany, errors: m.errors,
  }));
  console.table(rows);
  console.table(checks);
  const all = minutes.flatMap((m) => m.searches);
  const summary = {
    minutes: Number(args.minutes), load: os.loadavg().map((x) => Number(x.toFixed(1))), searches: all.length,
    p50_ms: Math.round(pct(all, 0.5)), p99_ms: Math.round(pct(all, 0.99)), errors: minutes.reduce((s, m) => s + m.errors, 0),
    too_many: minutes.reduce((s, m) => s + m.tooMany, 0), lost: checks.reduce((s, c) => s + c.lost + c.notFound, 0),
    duplicated: checks.reduce((s, c) => s + c.duplicated, 0), resurrected: checks.reduce((s, c) => s + c.resurrected + c.deletedFound, 0),
  };
  console.log(JSON.stringify(summary));
  if (errorLog.length) console.log(errorLog.join('\n'));
  const out = path.join(repoRoot, 'bench', 'results', `soak-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, JSON.stringify({ args, summary, minutes: rows, checks, errors: errorLog }, null, 2));
} finally {
  await Promise.all([...apis, ...workers].map((n) => n.kill('SIGTERM')));
  // The processes' logs outlive the data directory, for the errors counted above.
  const kept = path.join(repoRoot, 'bench', 'results', `soak-logs-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  fs.cpSync(logDir, kept, { recursive: true });
  console.log(`logs: ${kept}`);
  await database.drop().catch(() => undefined);
  await s3.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
