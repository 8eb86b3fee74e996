// The job endpoints over real HTTP: the status stream (SSE) from a real client through every
// transition, heartbeats, Last-Event-ID resume, 204 after the end, the root mount and an nginx reverse
// proxy; GET /jobs/{id}/status scoping; DELETE /jobs/{id} in each state (pending, processing, done,
// failed) with its data effects; failure codes a user can act on; Idempotency-Key replay.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { startTestServer, createProject, type TestServer } from './helpers/start-test-server.ts';
import { api, ingestFile, waitForJob, dataPath } from './helpers/api.ts';
import { openSse, statusEvents, startFileServer, startNginx, NGINX } from './jobs-helpers.ts';

const TEXT = fs.readFileSync(dataPath('docs/txt/norwich-city.txt'));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function remoteIngest(server: TestServer, key: string, url: string, headers: Record<string, string> = {}) {
  return api(server.baseUrl, key, 'POST', '/v3/docsearch/ingest', undefined, { 'x-remote-url': url, ...headers });
}

async function statusOf(server: TestServer, key: string, jobId: string) {
  return (await api(server.baseUrl, key, 'GET', `/v3/jobs/${jobId}/status`)).body as Record<string, any>;
}

async function waitStatus(server: TestServer, key: string, jobId: string, status: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = await statusOf(server, key, jobId);
    if (s.status === status) return s;
    if (Date.now() > deadline) throw new Error(`job ${jobId} is ${s.status}, not ${status}`);
    await sleep(30);
  }
}

describe('job endpoints', () => {
  let server: TestServer;
  let files: Awaited<ReturnType<typeof startFileServer>>;
  let key: string;
  let namespace: string;

  before(async () => {
    files = await startFileServer(TEXT);
    server = await startTestServer({ backend: 'sqlite', workers: false, env: {
      DOCSEARCH_ALLOWED_PRIVATE_HOSTS: '127.0.0.1', DOCSEARCH_SSE_HEARTBEAT_MS: '150', DOCSEARCH_JOB_LEASE_MS: '3000',
    } });
    ({ apiKey: key, namespace } = await createProject(server));
  });
  after(async () => {
    await server?.close();
    await files?.close();
  });

  test('DELETE a pending job cancels it: failed/job_cancelled (499), upload removed, never processed; again deletes the record', async () => {
    const created = await ingestFile(server.baseUrl, key, dataPath('docs/md/wiki.md'));
    assert.equal(created.status, 201);
    const jobId = (created.body as { job_id: string }).job_id;
    const p = (await statusOf(server, key, jobId));
    assert.equal(p.status, 'pending');
    assert.equal(p.code, 202);
    const blob = `${server.dataDir}/blobs/projects/${(await server.services.queue.get(jobId))!.project_id}/originals/${jobId}`;
    assert.ok(fs.existsSync(blob));
    const del = await api(server.baseUrl, key, 'DELETE', `/v3/jobs/${jobId}`);
    assert.equal(del.status, 200);
    const body = del.body as Record<string, any>;
    assert.equal(body.result, 'cancelled');
    assert.equal(body.job.status, 'failed');
    assert.equal(body.job.code, 499);
    assert.equal(body.job.error.code, 'job_cancelled');
    assert.match(body.job.error.message, /cancelled/);
    assert.ok(!fs.existsSync(blob), 'the upload is removed');
    assert.equal(await server.handle.worker.drain(), 0, 'a cancelled job is never processed');
    const again = await api(server.baseUrl, key, 'DELETE', `/v3/jobs/${jobId}`);
    assert.equal((again.body as Record<string, any>).result, 'record_deleted');
    assert.equal((await api(server.baseUrl, key, 'GET', `/v3/jobs/${jobId}/status`)).status, 404);
  });

  test('status stream: pending -> processing -> done over SSE, heartbeats, resume, 204 after the end, root mount', async () => {
    files.hold();
    const created = await remoteIngest(server, key, files.url('norwich.txt'));
    const jobId = (created.body as { job_id: string }).job_id;
    const auth = { authorization: `Bearer ${key}` };
    const s = await openSse(`${server.baseUrl}/v3/status/v1/jobs/${jobId}`, auth);
    assert.equal(s.status, 200);
    assert.match(s.headers.get('content-type')!, /^text\/event-stream/);
    assert.equal(s.headers.get('x-accel-buffering'), 'no');
    await s.next((e) => e.event === 'job_status' && JSON.parse(e.data!).status === 'pending');
    server.handle.worker.start();
    await s.next((e) => e.event === 'job_status' && JSON.parse(e.data!).status === 'processing');
    await s.next((e) => e.comment === 'heartbeat');
    // A second client (at the root mount) resumes from the processing event: only newer events follow.
    const processingId = statusEvents(s.events).find((e) => e.status === 'processing')!.id;
    const resumed = await openSse(`${server.baseUrl}/status/v1/jobs/${jobId}`, { ...auth, 'last-event-id': String(processingId) });
    assert.equal(resumed.status, 200);
    await sleep(300);
    assert.deepEqual(statusEvents(resumed.events), [], 'nothing new since the processing event');
    files.release();
    await s.ended;
    await resumed.ended;
    const all = statusEvents(s.events);
    // Status changes in order; the processing events after the first carry the ingest's progress.
    const statuses = all.map((e) => e.status);
    assert.deepEqual(statuses.filter((st, i) => i === 0 || st !== statuses[i - 1]), ['pending', 'processing', 'done']);
    for (const e of all.slice(2, -1)) assert.ok(e.progress, JSON.stringify(e));
    assert.ok(all.every((e, i) => i === 0 || e.id > all[i - 1].id), JSON.stringify(all.map((e) => e.id)));
    const last = all.at(-1)!;
    assert.equal(last.is_terminal, true);
    assert.equal(last.code, 200);
    assert.ok(last.doc_id);
    assert.deepEqual(statusEvents(resumed.events).map((e) => e.status).filter((st) => st !== 'processing'), ['done']);
    // Reconnecting from the terminal event: 204 tells an EventSource to stop.
    const after = await fetch(`${server.baseUrl}/v3/status/v1/jobs/${jobId}`, { headers: { ...auth, 'last-event-id': String(last.id) } });
    assert.equal(after.status, 204);
    // Resuming from an older id gets the current (terminal) state once, then the stream ends.
    const late = await openSse(`${server.baseUrl}/v3/status/v1/jobs/${jobId}`, { ...auth, 'last-event-id': '0' });
    await late.ended;
    assert.deepEqual(statusEvents(late.events).map((e) => e.status), ['done']);
    const root = await api(server.baseUrl, key, 'GET', `/jobs/${jobId}/status`);
    assert.equal(root.status, 200);
    assert.equal((root.body as Record<string, any>).doc_id, last.doc_id);
  });

  test('status stream through an nginx reverse proxy arrives live', { skip: !NGINX && 'nginx is not installed (apt-get install nginx-light)' }, async () => {
    server.handle.worker.start();
    const proxy = await startNginx(server.baseUrl);
    let s: Awaited<ReturnType<typeof openSse>> | undefined;
    try {
      files.hold();
      const created = await remoteIngest(server, key, files.url('proxied.txt'));
      const jobId = (created.body as { job_id: string }).job_id;
      s = await openSse(`${proxy.origin}/v3/status/v1/jobs/${jobId}`, { authorization: `Bearer ${key}` });
      assert.equal(s.status, 200);
      const processing = await s.next((e) => e.event === 'job_status' && JSON.parse(e.data!).status === 'processing');
      await s.next((e) => e.comment === 'heartbeat' && e.at > processing.at);
      const releasedAt = Date.now();
      files.release();
      await s.ended;
      assert.ok(processing.at < releasedAt, 'the processing event came through before the job finished');
      assert.deepEqual(statusEvents(s.events).map((e) => e.status).slice(-2), ['processing', 'done']);
    } finally {
      s?.close();
      files.release();
      await proxy.close();
    }
  });

  test('DELETE a processing job aborts it: no document, no chunks, never marked done', async () => {
    server.handle.worker.start();
    files.hold();
    const created = await remoteIngest(server, key, files.url('stalled.txt'));
    const jobId = (created.body as { job_id: string }).job_id;
    await waitStatus(server, key, jobId, 'processing');
    const abortedBefore = files.aborted;
    const del = await api(server.baseUrl, key, 'DELETE', `/v3/jobs/${jobId}`);
    assert.equal(del.status, 200);
    assert.equal((del.body as Record<string, any>).result, 'cancelled');
    files.release();
    assert.ok(files.aborted > abortedBefore, 'the running fetch was aborted');
    await sleep(300);
    const s = await statusOf(server, key, jobId);
    assert.equal(s.status, 'failed');
    assert.equal(s.error.code, 'job_cancelled');
    const docs = await server.services.cp.db.selectFrom('documents').select('doc_id').where('source_job_id', '=', jobId).execute();
    assert.deepEqual(docs, []);
    const row = (await server.services.queue.get(jobId))!;
    assert.ok(!(await server.services.index.listDocIds(namespace)).includes(row.doc_id!));
  });

  test('DELETE a job cancelled mid-pipeline (large upload) leaves no chunks behind', async () => {
    server.handle.worker.start();
    const created = await ingestFile(server.baseUrl, key, dataPath('docs/txt/UDHR_first_article_all.txt'));
    const jobId = (created.body as { job_id: string }).job_id;
    await waitStatus(server, key, jobId, 'processing');
    await sleep(150);
    const del = await api(server.baseUrl, key, 'DELETE', `/v3/jobs/${jobId}`);
    const result = (del.body as Record<string, any>).result;
    const row = await server.services.queue.get(jobId);
    if (result === 'cancelled') {
      assert.equal(row!.status, 'failed');
      const docId = row!.doc_id!;
      assert.ok(!(await server.services.index.listDocIds(namespace)).includes(docId), 'chunks removed');
      assert.equal((await server.services.cp.db.selectFrom('documents').select('doc_id').where('doc_id', '=', docId).execute()).length, 0);
    } else {
      assert.equal(result, 'record_deleted', 'it finished first; then the record is deleted and the document stays');
    }
  });

  test('DELETE a done job deletes its record, the document stays; a failed one likewise', async () => {
    server.handle.worker.start();
    const created = await ingestFile(server.baseUrl, key, dataPath('docs/md/nested.md'));
    const jobId = (created.body as { job_id: string }).job_id;
    const done = await waitForJob(server.baseUrl, key, jobId);
    assert.equal(done.status, 'done');
    const del = await api(server.baseUrl, key, 'DELETE', `/v3/jobs/${jobId}`);
    assert.equal((del.body as Record<string, any>).result, 'record_deleted');
    assert.equal((del.body as Record<string, any>).job.doc_id, done.doc_id);
    assert.equal((await api(server.baseUrl, key, 'GET', `/v3/jobs/${jobId}/status`)).status, 404);
    assert.equal((await api(server.baseUrl, key, 'GET', `/v3/docsearch/docs/${done.doc_id}`)).status, 200);

    const bad = await remoteIngest(server, key, files.url('missing.txt'));
    const badId = (bad.body as { job_id: string }).job_id;
    const failed = await waitForJob(server.baseUrl, key, badId, 60_000);
    assert.equal(failed.status, 'failed');
    const delBad = await api(server.baseUrl, key, 'DELETE', `/v3/jobs/${badId}`);
    assert.equal((delBad.body as Record<string, any>).result, 'record_deleted');
  });

  test('failures carry a code and a message a user can act on; transient errors are visible while retrying', async () => {
    server.handle.worker.start();
    const missing = await remoteIngest(server, key, files.url('missing.txt'));
    const m = await waitForJob(server.baseUrl, key, (missing.body as { job_id: string }).job_id);
    assert.equal(m.status, 'failed');
    assert.equal(m.code, 424);
    assert.equal(m.error!.code, 'remote_fetch_failed');
    assert.match(m.error!.message, /HTTP 404/);

    const refused = await remoteIngest(server, key, 'http://127.0.0.1:9/unreachable.txt');
    const jobId = (refused.body as { job_id: string }).job_id;
    const deadline = Date.now() + 20_000;
    let retrying: Record<string, any> | undefined;
    for (;;) {
      const s = await statusOf(server, key, jobId);
      if (s.status === 'pending' && s.attempts > 0) retrying ??= s;
      if (s.is_terminal || Date.now() > deadline) break;
      await sleep(30);
    }
    assert.ok(retrying, 'seen pending between attempts');
    assert.match(retrying!.last_error, /fetching .* failed/);
    assert.ok(Date.parse(retrying!.next_attempt_at) > Date.parse(retrying!.updated_at) - 1);
    const final = await statusOf(server, key, jobId);
    assert.equal(final.status, 'failed');
    assert.equal(final.attempts, 3);
    assert.equal(final.code, 502);
    assert.equal(final.error.code, 'retries_exhausted');
    assert.match(final.error.message, /Gave up after 3 attempts/);
  });

  test('jobs are scoped to their project: another project\'s job id is 404 everywhere', async () => {
    const other = await createProject(server);
    const created = await ingestFile(server.baseUrl, key, dataPath('docs/md/codeblock.md'));
    const jobId = (created.body as { job_id: string }).job_id;
    for (const p of [`/v3/jobs/${jobId}/status`, `/jobs/${jobId}/status`, `/v3/status/v1/jobs/${jobId}`, `/status/v1/jobs/${jobId}`]) {
      const r = await api(server.baseUrl, other.apiKey, 'GET', p);
      assert.equal(r.status, 404, p);
      assert.equal((r.body as Record<string, any>).code, 'job_not_found');
    }
    assert.equal((await api(server.baseUrl, other.apiKey, 'DELETE', `/v3/jobs/${jobId}`)).status, 404);
    assert.equal((await statusOf(server, key, jobId)).job_id, jobId, 'untouched');
    assert.equal((await api(server.baseUrl, undefined, 'GET', `/v3/jobs/${jobId}/status`)).status, 401);
  });

  test('Idempotency-Key: a retried ingest returns the same job; a different file with the key is 409', async () => {
    const h = { 'idempotency-key': 'upload-7f3a' };
    const a = await ingestFile(server.baseUrl, key, dataPath('docs/md/simple-table.md'), h);
    const b = await ingestFile(server.baseUrl, key, dataPath('docs/md/simple-table.md'), h);
    assert.equal(a.status, 201);
    assert.equal(b.status, 201);
    assert.equal((b.body as { job_id: string }).job_id, (a.body as { job_id: string }).job_id);
    const rows = await server.services.cp.db.selectFrom('jobs').select('id').where('idempotency_key', '=', 'upload-7f3a').execute();
    assert.equal(rows.length, 1);
    const c = await ingestFile(server.baseUrl, key, dataPath('docs/md/wiki.md'), h);
    assert.equal(c.status, 409);
    assert.equal((c.body as Record<string, any>).code, 'idempotency_key_reused');
    const bad = await ingestFile(server.baseUrl, key, dataPath('docs/md/wiki.md'), { 'idempotency-key': 'x'.repeat(300) });
    assert.equal(bad.status, 400);
    const other = await createProject(server);
    const d = await ingestFile(server.baseUrl, other.apiKey, dataPath('docs/md/simple-table.md'), h);
    assert.notEqual((d.body as { job_id: string }).job_id, (a.body as { job_id: string }).job_id, 'keys are per project');
  });
});
