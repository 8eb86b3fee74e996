// Bulk bucket ingestion end to end through the HTTP API, against a real S3-protocol server
// (s3rver behind a SigV4-verifying proxy), a real SMTP server and a webhook receiver, on SQLite and on
// PostgreSQL: a prefix + glob selection ingests to done and every file is searchable; completion reaches
// the webhook (signed) and the inbox exactly once; a wrong secret pauses with paused_credential_error
// and PATCH credentials resumes it to done; files that fail to parse are listed by the failures endpoint
// and retryFailed re-runs exactly those; credentials never come back out.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestServer, createProject, BACKENDS, type TestServer } from './helpers/start-test-server.ts';
import fs from 'node:fs';
import { terminal, waitForTask } from './helpers/bucket-tasks.ts';
import { api, dataPath } from './helpers/api.ts';
import { startS3Server, type S3TestServer } from './helpers/s3-server.ts';
import { startSmtpServer, type SmtpTestServer } from './helpers/smtp-server.ts';
import { verifyWebhook } from '../src/notifications/webhook-signature.ts';

const word = (i: number) => `zorblat${i.toString(36)}quix`;

/** The bucket layout: N matching text files under docs/<group>/, plus objects the prefix or glob exclude. */
function objects(n: number): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (let i = 0; i < n; i++) {
    const ext = i % 2 ? 'md' : 'txt';
    out.push([`docs/g${i % 5}/note-${i}.${ext}`, `# Field note ${i}\n\nThe specimen ${word(i)} was catalogued in group ${i % 5} during survey number ${i}.\n`]);
  }
  out.push(['docs/g0/image.png', 'not text'], ['docs/g1/data.bin', 'binary'], ['other/outside.txt', 'outside the prefix'], ['docs/g2/', '']);
  return out;
}

interface Receiver { url: string; events: Array<{ headers: http.IncomingHttpHeaders; body: string }>; close(): Promise<void> }

async function startReceiver(): Promise<Receiver> {
  const events: Receiver['events'] = [];
  const srv = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => { events.push({ headers: req.headers, body }); res.writeHead(204).end(); });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}/hook`, events, close: () => new Promise((r) => srv.close(() => r())) };
}


for (const backend of BACKENDS) {
  // 200 files on SQLite (bench/bucket-ingest.ts runs 2,000); the same flow with fewer on PostgreSQL.
  const N = Number(process.env.BUCKET_TEST_FILES ?? (backend === 'sqlite' ? 200 : 60));
  describe(`bucket ingest from S3 (${backend})`, () => {
    let server: TestServer;
    let s3: S3TestServer;
    let smtp: SmtpTestServer;
    let hook: Receiver;
    const bucket = `bucket-${backend}`;
    const source = (secret?: string, extra: Record<string, unknown> = {}) => ({
      type: 's3', bucket, prefix: 'docs/', endpoint: s3.endpoint, region: s3.region,
      credentials: { access_key_id: s3.accessKeyId, secret_access_key: secret ?? s3.secretAccessKey }, ...extra,
    });

    before(async () => {
      [s3, smtp, hook] = await Promise.all([startS3Server(), startSmtpServer(), startReceiver()]);
      await s3.createBucket(bucket);
      await s3.putObjects(bucket, objects(N));
      server = await startTestServer({ backend, env: { DOCSEARCH_ALLOWED_PRIVATE_HOSTS: '127.0.0.1', DOCSEARCH_SMTP_URL: smtp.url, DOCSEARCH_SMTP_FROM: 'ingest@docsearch.test' } });
    });
    after(async () => {
      await server?.close();
      await Promise.all([s3?.close(), smtp?.close(), hook?.close()]);
    });

    test(`${N} objects under a prefix with a glob ingest to done, every file searchable, completion once`, async () => {
      const { apiKey: key } = await createProject(server);
      const t0 = Date.now();
      const r = await api(server.baseUrl, key, 'POST', '/v3/docsearch/ingestBucket',
        { source: source(), filter_glob: '**/*.{md,txt}' }, { 'x-completion': `${hook.url}|owner@example.com` });
      assert.equal(r.status, 202, JSON.stringify(r.body));
      const created = r.body as any;
      assert.ok(created.bucket_ingest_task_id);
      assert.ok(['created', 'queued_org', 'listing'].includes(created.state));
      assert.equal(typeof created.state_description, 'string');
      assert.equal(created.poll_url, `/v3/docsearch/ingestBucket/${created.bucket_ingest_task_id}`);
      assert.deepEqual(created.polling_guidance, { min_interval_seconds: 5, max_interval_seconds: 60 });
      assert.ok(!JSON.stringify(created).includes(s3.secretAccessKey), 'the secret is never returned');

      const seen = new Set<string>();
      const done = await waitForTask(server.baseUrl, key, created.bucket_ingest_task_id, (t) => { seen.add(t.state); return terminal(t); }, { timeoutMs: 120_000 });
      const seconds = (Date.now() - t0) / 1000;
      assert.equal(done.state, 'done', JSON.stringify(done));
      assert.equal(done.progress.files_found, N);
      assert.equal(done.progress.files_done, N);
      assert.equal(done.progress.files_failed, 0);
      assert.ok(done.finished_at);
      for (const s of seen) assert.ok(['created', 'queued_org', 'listing', 'materialising', 'done'].includes(s), s);
      console.log(`# bucket ingest (${backend}): ${N} files in ${seconds.toFixed(1)} s = ${(N / seconds).toFixed(1)} files/s`);

      const list = await api(server.baseUrl, key, 'GET', '/v3/docsearch/docs');
      assert.equal((list.body as any).total_documents, N);
      const names = new Set(((list.body as any).documents as any[]).map((d) => d.filename));
      assert.ok(names.has('docs/g1/note-1.md') && !names.has('docs/g0/image.png') && !names.has('other/outside.txt'));
      const note = ((list.body as any).documents as any[]).find((d) => d.filename === 'docs/g1/note-1.md');
      assert.match(note.canonical_url, /^s3:\/\/[^/]+\/docs\/g1\/note-1\.md$/, 'bucket documents cite s3://bucket/key');
      // Every file is searchable by its own unique word (sampled evenly when N is large).
      const step = Math.max(1, Math.floor(N / 200));
      for (let i = 0; i < N; i += step) {
        const s = await api(server.baseUrl, key, 'POST', '/v3/docsearch/search', { query: word(i), format: 'json' });
        assert.equal(s.status, 200);
        const top = (s.body as any).results[0];
        assert.ok(top, `no hit for file ${i}`);
        assert.ok(String(top.content).includes(word(i)), `file ${i}: top hit is ${top.title}`);
      }

      // Completion: exactly one signed webhook and exactly one e-mail.
      await smtp.waitFor(1);
      const deadline = Date.now() + 10_000;
      while (hook.events.length < 1 && Date.now() < deadline) await new Promise((res) => setTimeout(res, 50));
      await new Promise((res) => setTimeout(res, 1500));
      const mine = hook.events.filter((e) => e.body.includes(created.bucket_ingest_task_id));
      assert.equal(mine.length, 1, 'one webhook');
      const event = JSON.parse(mine[0].body);
      assert.equal(event.type, 'bucket_ingest.completed');
      assert.equal(event.data.bucket_ingest_task_id, created.bucket_ingest_task_id);
      assert.equal(event.data.state, 'done');
      const secret = (await api(server.baseUrl, key, 'GET', '/v3/webhooks/secret')).body as { secret: string };
      assert.ok(verifyWebhook(secret.secret, mine[0].headers as Record<string, string>, mine[0].body), 'signature verifies');
      const mails = smtp.inbox.filter((m) => m.raw.includes(created.bucket_ingest_task_id));
      assert.equal(mails.length, 1, 'one e-mail');
      assert.deepEqual(mails[0].to, ['owner@example.com']);
      assert.match(mails[0].raw, /finished: done/);

      // Credentials are encrypted at rest.
      const row = await server.services.cp.db.selectFrom('bucket_tasks').select('credentials').where('id', '=', created.bucket_ingest_task_id).executeTakeFirstOrThrow();
      assert.ok(!row.credentials.includes(s3.secretAccessKey) && row.credentials.startsWith('v1.'));
    });

    test('a wrong secret pauses with paused_credential_error; PATCH credentials resumes it to done', async () => {
      const { apiKey: key } = await createProject(server);
      const r = await api(server.baseUrl, key, 'POST', '/v3/docsearch/ingestBucket', { source: { ...source('wrong-secret'), prefix: 'docs/g3/' } });
      assert.equal(r.status, 202, JSON.stringify(r.body));
      const id = (r.body as any).bucket_ingest_task_id;
      const paused = await waitForTask(server.baseUrl, key, id, (t) => t.state !== 'queued_org' && t.state !== 'listing' && t.state !== 'created');
      assert.equal(paused.state, 'paused_credential_error', JSON.stringify(paused));
      assert.match(paused.state_description, /SignatureDoesNotMatch|credentials/);
      assert.equal(paused.resume_state, 'listing');
      // Another wrong secret is refused up front and the task stays paused.
      const bad = await api(server.baseUrl, key, 'PATCH', `/v3/docsearch/ingestBucket/${id}/credentials`, { credentials: { access_key_id: s3.accessKeyId, secret_access_key: 'still-wrong' } });
      assert.equal(bad.status, 400);
      assert.equal((bad.body as any).code, 'source_access_denied');
      const fixed = await api(server.baseUrl, key, 'PATCH', `/v3/docsearch/ingestBucket/${id}/credentials`, { credentials: { access_key_id: s3.accessKeyId, secret_access_key: s3.secretAccessKey } });
      assert.equal(fixed.status, 200, JSON.stringify(fixed.body));
      assert.ok(['listing', 'materialising', 'done'].includes((fixed.body as any).state));
      assert.ok(!JSON.stringify(fixed.body).includes(s3.secretAccessKey));
      const done = await waitForTask(server.baseUrl, key, id, terminal);
      assert.equal(done.state, 'done');
      assert.equal(done.progress.files_done, objects(N).filter(([k]) => k.startsWith('docs/g3/') && !k.endsWith('/')).length);
    });

    test('files that fail to parse are listed as failures; retryFailed re-runs only them', async () => {
      const { apiKey: key } = await createProject(server);
      const b2 = `${bucket}-broken`;
      await s3.createBucket(b2);
      const good: Array<[string, string]> = Array.from({ length: 6 }, (_, i) => [`in/ok-${i}.md`, `# Good ${i}\n\nplain text about ${word(1000 + i)}\n`]);
      const broken: Array<[string, Buffer]> = [['in/broken-1.pdf', fs.readFileSync(dataPath('docs', 'pdf', 'password_protected_pw-password.pdf'))], ['in/broken-2.docx', Buffer.from('not a zip archive')]];
      await s3.putObjects(b2, [...good, ...broken]);
      const r = await api(server.baseUrl, key, 'POST', '/v3/docsearch/ingestBucket', { source: { ...source(), bucket: b2, prefix: 'in/' } });
      assert.equal(r.status, 202);
      const id = (r.body as any).bucket_ingest_task_id;
      const first = await waitForTask(server.baseUrl, key, id, terminal);
      assert.equal(first.state, 'done_with_errors', JSON.stringify(first));
      assert.equal(first.progress.files_done, 6);
      assert.equal(first.progress.files_failed, 2);
      const f1 = await api(server.baseUrl, key, 'GET', `/v3/docsearch/ingestBucket/${id}/failures?limit=1`);
      assert.equal(f1.status, 200);
      const p1 = f1.body as any;
      assert.equal(p1.failures.length, 1);
      assert.equal(p1.failures[0].key, 'in/broken-1.pdf');
      assert.ok(p1.failures[0].error_code && p1.failures[0].job_id);
      const f2 = (await api(server.baseUrl, key, 'GET', `/v3/docsearch/ingestBucket/${id}/failures?limit=1&cursor=${p1.next_cursor}`)).body as any;
      assert.equal(f2.failures[0].key, 'in/broken-2.docx');
      assert.equal(f2.next_cursor, null);
      // A cursor this endpoint did not make is a 400, never an empty 200 page that reads as the end of the list.
      const malformed = ['not-a-cursor', 'zzzz', '!!', 'f1.', 'f1.%%%', `f1.${Buffer.from([0xff, 0xfe, 0xfd]).toString('base64url')}`,
        `${p1.next_cursor}=`, `x${p1.next_cursor}`, Buffer.from('in/broken-1.pdf').toString('base64url')];
      for (const cursor of malformed) {
        const bad = await api(server.baseUrl, key, 'GET', `/v3/docsearch/ingestBucket/${id}/failures?limit=1&cursor=${encodeURIComponent(cursor)}`);
        assert.equal(bad.status, 400, `cursor ${cursor}: ${JSON.stringify(bad.body)}`);
        assert.equal((bad.body as any).code, 'validation_failed');
        assert.equal((bad.body as any).details.field, 'querystring.cursor');
      }

      // Fix the objects in the bucket, then retry: only the two failed files are ingested again.
      await s3.putObjects(b2, [['in/broken-1.pdf', fs.readFileSync(dataPath('docs', 'pdf', 'multi-column-2p.pdf'))],
        ['in/broken-2.docx', fs.readFileSync(dataPath('docs', 'docx', 'eng_spa_mult.docx'))]]);
      const retry = await api(server.baseUrl, key, 'POST', `/v3/docsearch/ingestBucket/${id}/retryFailed`);
      assert.equal(retry.status, 200, JSON.stringify(retry.body));
      assert.equal((retry.body as any).retried, 2);
      assert.equal((retry.body as any).run, 2);
      const second = await waitForTask(server.baseUrl, key, id, terminal);
      assert.equal(second.state, 'done', JSON.stringify(second));
      assert.equal(second.progress.files_done, 8);
      const docs = (await api(server.baseUrl, key, 'GET', '/v3/docsearch/docs')).body as any;
      assert.equal(docs.total_documents, 8, 'the six good files were not ingested twice');
      assert.equal(new Set(docs.documents.map((d: any) => d.filename)).size, 8);
      const again = await api(server.baseUrl, key, 'POST', `/v3/docsearch/ingestBucket/${id}/retryFailed`);
      assert.equal((again.body as any).retried, 0);
    });
  });
}
