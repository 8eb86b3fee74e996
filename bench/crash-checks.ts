// Invariants the crash harness checks after every SIGKILL + restart:
//  1. every job ends done or failed (none stays pending/processing; internal jobs included);
//  2. nothing that was done is lost: a job seen done stays done and its document stays visible unless
//     the client deleted it; every done job has its visible document;
//  3. no document is half visible: each visible document has exactly its chunk_count chunks in the
//     index, and search returns only visible documents; no 'deleting' row survives the restart;
//  4. no chunk without a document: every doc_id in the index belongs to a visible document;
//  5. no duplicate: a job has at most one document row (a retried or re-claimed attempt never commits a
//     second copy);
//  6. notify once: every terminal ingest job gets a completion event, all its deliveries carry one
//     webhook-id, and every delivery verifies with the project's secret.
import path from 'node:path';
import { withControlReader } from './crash-db.ts';
import { openLanceIndex } from '../src/storage/lance-index.ts';
import { verifyWebhook } from '../src/notifications/webhook-signature.ts';
import type { CrashReceiver } from './crash-receiver.ts';

export interface TrackedJob {
  id: string;
  /** doc_id once a status poll saw the job done. */
  observedDoc?: string;
  cancelled?: boolean;
  cancelUncertain?: boolean;
}

export interface HarnessState {
  origin: string;
  key: string;
  namespace: string;
  dataDir: string;
  receiver: CrashReceiver;
  jobs: Map<string, TrackedJob>;
  docsDeleted: Set<string>;
  docsDeleteUncertain: Set<string>;
  recordsDeleted: Set<string>;
  idempotencyMismatches: string[];
  /** PostgreSQL control plane of the server (unset: SQLite in dataDir). */
  databaseUrl?: string;
  /**
   * Set by checkInvariants: ms from its start until no job was pending or processing and the server's
   * start-up recovery had finished (recovery time).
   */
  lastSettleMs?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface JobRow { id: string; kind: string; status: string; doc_id: string | null; error_code: string | null; payload: string }
interface DocRow { doc_id: string; state: string; chunk_count: number; source_job_id: string }

async function readDb(s: HarnessState): Promise<{ jobs: JobRow[]; docs: DocRow[] }> {
  return withControlReader(s.dataDir, s.databaseUrl, async (r) => ({
    jobs: await r.all<JobRow>('select id, kind, status, doc_id, error_code, payload from jobs'),
    docs: await r.all<DocRow>('select doc_id, state, chunk_count, source_job_id from documents'),
  }));
}

/** True once the server's start-up recovery has ended (or the server does not report one). */
async function recoveryFinished(origin: string): Promise<boolean> {
  try {
    const r = await fetch(`${origin}/readyz`);
    const status = ((await r.json()) as { recovery?: { status: string } }).recovery?.status;
    return r.status === 200 && status !== 'running' && status !== 'pending';
  } catch {
    return false;
  }
}

/** Wait for quiescence, then check every invariant. @returns human-readable violations (empty = all held) */
export async function checkInvariants(s: HarnessState, timeoutMs: number): Promise<string[]> {
  const out: string[] = [];
  const started = Date.now();
  const deadline = started + timeoutMs;
  // Quiescence: no job pending or processing, and start-up recovery (orphan chunks, interrupted
  // deletes), which runs behind readiness, finished as /readyz reports.
  let db = await readDb(s);
  while (Date.now() < deadline) {
    const busy = db.jobs.some((j) => j.status === 'pending' || j.status === 'processing');
    if (!busy && (await recoveryFinished(s.origin))) break;
    await sleep(100);
    db = await readDb(s);
  }
  s.lastSettleMs = Date.now() - started;
  for (const j of db.jobs.filter((x) => x.status === 'pending' || x.status === 'processing')) out.push(`job ${j.id} (${j.kind}) still ${j.status}`);

  const jobs = new Map(db.jobs.map((j) => [j.id, j]));
  const visible = new Map(db.docs.filter((d) => d.state === 'visible').map((d) => [d.doc_id, d]));
  for (const d of db.docs.filter((x) => x.state !== 'visible')) out.push(`document ${d.doc_id} left in state ${d.state}`);
  const deleted = (doc: string) => s.docsDeleted.has(doc) || s.docsDeleteUncertain.has(doc);
  for (const t of s.jobs.values()) {
    const row = jobs.get(t.id);
    if (!row) {
      if (!s.recordsDeleted.has(t.id) && !t.cancelUncertain) out.push(`job ${t.id} lost its record`);
      continue;
    }
    if (t.observedDoc) {
      if (row.status !== 'done') out.push(`job ${t.id} was seen done, now ${row.status}`);
      if (!deleted(t.observedDoc) && !visible.has(t.observedDoc)) out.push(`document ${t.observedDoc} of done job ${t.id} was lost`);
    }
    if (t.cancelled && row.status === 'done') out.push(`job ${t.id} was cancelled but is done`);
  }
  for (const j of db.jobs.filter((x) => x.kind === 'ingest' && x.status === 'done')) {
    if (j.doc_id && !visible.has(j.doc_id) && !deleted(j.doc_id)) out.push(`done job ${j.id} has no visible document ${j.doc_id}`);
  }
  for (const d of s.docsDeleted) if (visible.has(d)) out.push(`deleted document ${d} is visible again`);
  const perJob = new Map<string, number>();
  for (const d of db.docs) perJob.set(d.source_job_id, (perJob.get(d.source_job_id) ?? 0) + 1);
  for (const [job, n] of perJob) if (n > 1) out.push(`job ${job} has ${n} document rows (duplicated)`);
  for (const d of visible.values()) {
    const job = jobs.get(d.source_job_id);
    if (job && job.status !== 'done') out.push(`visible document ${d.doc_id} belongs to ${job.status} job ${job.id}`);
  }

  const index = await openLanceIndex({ uri: path.join(s.dataDir, 'lance') });
  try {
    const ids = await index.listDocIds(s.namespace).catch(() => [] as string[]);
    for (const id of ids) if (!visible.has(id)) out.push(`chunks of ${id} have no visible document (orphan)`);
    for (const d of visible.values()) {
      const n = (await index.getChunks(s.namespace, d.doc_id, 0, 1_000_000)).length;
      if (n !== d.chunk_count) out.push(`document ${d.doc_id} has ${n} chunks in the index, ${d.chunk_count} recorded (half visible)`);
    }
  } finally {
    await index.close();
  }

  const res = await fetch(`${s.origin}/v3/docsearch/search`, { method: 'POST', headers: { authorization: `Bearer ${s.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: 'the city football club history', format: 'json', min_relevance: 0 }) });
  if (res.status !== 200) out.push(`search answered ${res.status}`);
  else for (const h of ((await res.json()) as { results: Array<{ doc_id: string }> }).results) if (!visible.has(h.doc_id)) out.push(`search returned invisible document ${h.doc_id}`);

  const secret = ((await (await fetch(`${s.origin}/v3/webhooks/secret`, { headers: { authorization: `Bearer ${s.key}` } })).json()) as { secret: string }).secret;
  const terminal = db.jobs.filter((j) => j.kind === 'ingest' && (j.status === 'done' || j.status === 'failed') && JSON.parse(j.payload).completion);
  while (terminal.some((j) => s.receiver.deliveries(j.id).length === 0) && Date.now() < deadline) await sleep(100);
  for (const j of terminal) {
    const got = s.receiver.deliveries(j.id);
    if (got.length === 0) out.push(`terminal job ${j.id} got no completion event`);
    const ids = new Set(got.map((g) => g.headers['webhook-id']));
    if (ids.size > 1) out.push(`job ${j.id} got ${ids.size} different events (${[...ids].join(', ')})`);
    for (const g of got) {
      if (!verifyWebhook(secret, g.headers, g.body, 300, Math.floor(g.receivedAt / 1000))) out.push(`event ${g.headers['webhook-id']} of job ${j.id} does not verify`);
      if (JSON.parse(g.body).data.status !== j.status) out.push(`event of job ${j.id} says ${JSON.parse(g.body).data.status}, job is ${j.status}`);
    }
  }
  return out;
}
