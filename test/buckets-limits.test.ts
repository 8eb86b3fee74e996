// Bucket ingest limits, pauses and durability, through the HTTP API against a real S3-protocol
// server: a server restart in the middle of a task resumes from the checkpoint without re-ingesting or
// duplicating files; the file cap ends the task done_with_errors straight from listing with everything up
// to the cap ingested; the monthly file credits and egress quota pause the task
// (paused_credit_exhausted, paused_egress_quota_exhausted); a task waits in queued_org until a worker
// takes it; a blob store that refuses writes pauses with paused_destination_credential_error and resume
// continues once it accepts them again.
// Runs alone: restarts the server in the middle of a bucket task.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startTestServer, createProject, type TestServer } from './helpers/start-test-server.ts';
import { terminal, waitForTask } from './helpers/bucket-tasks.ts';
import { api } from './helpers/api.ts';
import { startS3Server, type S3TestServer } from './helpers/s3-server.ts';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/internal/config.ts';

const note = (i: number) => `# Entry ${i}\n\nLedger line ${i} records the delivery of crate glimmerwick${i} to the north depot.\n`;

describe('bucket ingest limits and durability', () => {
  let s3: S3TestServer;
  const servers: TestServer[] = [];
  const src = (bucket: string, prefix = '') => ({ type: 's3', bucket, prefix, endpoint: s3.endpoint, credentials: { access_key_id: s3.accessKeyId, secret_access_key: s3.secretAccessKey } });
  const start = async (env: Record<string, string> = {}, workers = true) => {
    const s = await startTestServer({ workers, env: { DOCSEARCH_ALLOWED_PRIVATE_HOSTS: '127.0.0.1', ...env } });
    servers.push(s);
    return s;
  };

  before(async () => {
    s3 = await startS3Server();
    for (const [b, n] of [['restart', 100], ['capped', 16], ['small', 12]] as const) {
      await s3.createBucket(b);
      await s3.putObjects(b, Array.from({ length: n }, (_, i) => [`f/${String(i).padStart(3, '0')}.md`, note(i)] as [string, string]));
    }
  });
  after(async () => {
    for (const s of servers) await s.close().catch(() => undefined);
    await s3?.close();
  });

  test('a restart mid-task resumes from the checkpoint without duplicates', async () => {
    const server = await start();
    const { apiKey: key } = await createProject(server);
    const r = await api(server.baseUrl, key, 'POST', '/v3/docsearch/ingestBucket', { source: src('restart') });
    assert.equal(r.status, 202);
    const id = (r.body as any).bucket_ingest_task_id;
    const before = await waitForTask(server.baseUrl, key, id, (t) => t.progress.files_done >= 10 || terminal(t));
    assert.ok(!terminal(before), 'stopped mid-task');
    // Stop the whole application gracefully, then start a new one on the same data dir and database.
    await server.handle.close();
    const cfg = server.services.config;
    const handle = await createApp(loadConfig({
      DOCSEARCH_DATA_DIR: server.dataDir, DOCSEARCH_BOOTSTRAP_ACCOUNT_KEY: server.accountKey, DOCSEARCH_BOOTSTRAP_EMAIL: server.email,
      DOCSEARCH_BOOTSTRAP_PASSWORD: server.password, DOCSEARCH_SECRET: cfg.serverSecret, DOCSEARCH_WORKER_POLL_MS: '50',
      DOCSEARCH_ALLOWED_PRIVATE_HOSTS: '127.0.0.1', LOG_LEVEL: 'silent',
    }), { logger: false });
    try {
      await handle.http.listen({ host: '127.0.0.1', port: 0 });
      handle.startWorkers();
      const base = `http://127.0.0.1:${(handle.http.server.address() as { port: number }).port}`;
      const done = await waitForTask(base, key, id, terminal);
      assert.equal(done.state, 'done', JSON.stringify(done));
      assert.equal(done.progress.files_done, 100);
      const docs = (await api(base, key, 'GET', '/v3/docsearch/docs')).body as any;
      assert.equal(docs.total_documents, 100);
      assert.equal(new Set(docs.documents.map((d: any) => d.filename)).size, 100, 'no file ingested twice');
      const jobs = await handle.services.cp.db.selectFrom('jobs').select((eb) => eb.fn.countAll<number>().as('n')).where('kind', '=', 'ingest').executeTakeFirstOrThrow();
      assert.equal(Number(jobs.n), 100, 'one ingest job per file');
    } finally {
      await handle.close();
    }
  });

  test('the file cap ends the task done_with_errors from listing, with everything up to the cap ingested', async () => {
    const server = await start({ DOCSEARCH_BUCKET_FILE_CAP: '10' });
    const { apiKey: key } = await createProject(server);
    const r = await api(server.baseUrl, key, 'POST', '/v3/docsearch/ingestBucket', { source: src('capped') });
    const id = (r.body as any).bucket_ingest_task_id;
    const seen = new Set<string>();
    const done = await waitForTask(server.baseUrl, key, id, terminal, { seen });
    assert.equal(done.state, 'done_with_errors', JSON.stringify(done));
    assert.equal(done.stop_reason, 'file_cap');
    assert.equal(done.file_cap, 10);
    assert.equal(done.progress.files_found, 10);
    assert.equal(done.progress.files_done, 10);
    assert.match(done.state_description, /file cap of 10/);
    assert.ok(!seen.has('materialising'), `listing -> done_with_errors directly (saw ${[...seen]})`);
    const docs = (await api(server.baseUrl, key, 'GET', '/v3/docsearch/docs')).body as any;
    assert.equal(docs.total_documents, 10);
    assert.ok(docs.documents.every((d: any) => d.filename < 'f/010.md'), 'the first 10 keys were taken');
  });

  test('file credits and the egress quota pause the task; queued_org waits for a worker', async () => {
    const credits = await start({ DOCSEARCH_BUCKET_FILE_CREDITS: '5' });
    const { apiKey: k1 } = await createProject(credits);
    const r1 = await api(credits.baseUrl, k1, 'POST', '/v3/docsearch/ingestBucket', { source: src('small') });
    const id1 = (r1.body as any).bucket_ingest_task_id;
    const p1 = await waitForTask(credits.baseUrl, k1, id1, (t) => t.state.startsWith('paused') || terminal(t));
    assert.equal(p1.state, 'paused_credit_exhausted', JSON.stringify(p1));
    await waitForTask(credits.baseUrl, k1, id1, (t) => t.progress.files_in_flight === 0);
    const again = await api(credits.baseUrl, k1, 'POST', `/v3/docsearch/ingestBucket/${id1}/resume`);
    assert.equal(again.status, 200);
    const p1b = await waitForTask(credits.baseUrl, k1, id1, (t) => t.state.startsWith('paused') || terminal(t));
    assert.equal(p1b.state, 'paused_credit_exhausted', 'still no credits: paused again');
    assert.equal(p1b.progress.files_done, 5);

    const egress = await start({ DOCSEARCH_BUCKET_EGRESS_QUOTA_BYTES: String(note(0).length * 3 + 10) }, false);
    const { apiKey: k2 } = await createProject(egress);
    const r2 = await api(egress.baseUrl, k2, 'POST', '/v3/docsearch/ingestBucket', { source: src('small') });
    assert.equal(r2.status, 202);
    const id2 = (r2.body as any).bucket_ingest_task_id;
    assert.equal((r2.body as any).state, 'queued_org');
    await new Promise((res) => setTimeout(res, 300));
    assert.equal(((await api(egress.baseUrl, k2, 'GET', `/v3/docsearch/ingestBucket/${id2}`)).body as any).state, 'queued_org', 'no worker yet');
    egress.handle.startWorkers();
    const p2 = await waitForTask(egress.baseUrl, k2, id2, (t) => t.state.startsWith('paused') || terminal(t));
    assert.equal(p2.state, 'paused_egress_quota_exhausted', JSON.stringify(p2));
    const c = await api(egress.baseUrl, k2, 'DELETE', `/v3/docsearch/ingestBucket/${id2}`);
    assert.equal((c.body as any).state, 'failed');
  });

  test('a blob store refusing writes pauses with paused_destination_credential_error; resume continues', async (t) => {
    const server = await start();
    const { apiKey: key, projectId } = await createProject(server);
    const dir = path.join(server.dataDir, 'blobs', 'projects', projectId, 'originals');
    fs.mkdirSync(dir, { recursive: true });
    try {
      execFileSync('chattr', ['+i', dir], { stdio: 'ignore' });
    } catch {
      t.skip('chattr +i is not available on this file system');
      return;
    }
    try {
      const r = await api(server.baseUrl, key, 'POST', '/v3/docsearch/ingestBucket', { source: src('small') });
      const id = (r.body as any).bucket_ingest_task_id;
      const paused = await waitForTask(server.baseUrl, key, id, (x) => x.state.startsWith('paused') || terminal(x));
      assert.equal(paused.state, 'paused_destination_credential_error', JSON.stringify(paused));
      assert.ok(['listing', 'materialising'].includes(paused.resume_state), paused.resume_state);
      execFileSync('chattr', ['-i', dir]);
      const resumed = await api(server.baseUrl, key, 'POST', `/v3/docsearch/ingestBucket/${id}/resume`);
      assert.equal(resumed.status, 200);
      const done = await waitForTask(server.baseUrl, key, id, terminal);
      assert.equal(done.state, 'done');
      assert.equal(done.progress.files_done, 12);
    } finally {
      try { execFileSync('chattr', ['-i', dir], { stdio: 'ignore' }); } catch { /* already mutable */ }
    }
  });
});
