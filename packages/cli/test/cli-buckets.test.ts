// `docsearch buckets …` against the real service and a real S3-protocol server (test/helpers): create
// with credentials from the AWS_* variables, pause, status, resume, watch with live progress to done;
// a finished task cannot be paused (exit 1 with the service's code); cancel ends a running task.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startS3Server, type S3TestServer } from '../../../test/helpers/s3-server.ts';
import { newProject, startTestServer, type TestServer } from '../../sdk/test/support.ts';
import { runCli } from './run-cli.ts';

const note = (i: number) => `# Note ${i}\n\nObservation ${i}: moss number ${i} grows on the north side.\n`;

describe('docsearch buckets', () => {
  let server: TestServer;
  let s3: S3TestServer;
  let env: Record<string, string>;

  before(async () => {
    s3 = await startS3Server();
    await s3.createBucket('notes');
    await s3.putObjects('notes', Array.from({ length: 60 }, (_, i) => [`n/${String(i).padStart(2, '0')}.md`, note(i)] as [string, string]));
    server = await startTestServer({ env: { DOCSEARCH_ALLOWED_PRIVATE_HOSTS: '127.0.0.1' } });
    const { apiKey } = await newProject(server);
    env = { DOCSEARCH_URL: server.baseUrl, DOCSEARCH_API_KEY: apiKey, AWS_ACCESS_KEY_ID: s3.accessKeyId, AWS_SECRET_ACCESS_KEY: s3.secretAccessKey };
  });
  after(async () => {
    await server?.close();
    await s3?.close();
  });

  const create = (...extra: string[]) => runCli(['buckets', 'create', '--bucket', 'notes', '--prefix', 'n/', '--endpoint', s3.endpoint, '--region', s3.region, ...extra], env);

  test('create, pause, status, resume, watch to done; pausing a finished task exits 1', async () => {
    const c = await create('--glob', '*.md');
    assert.equal(c.code, 0, c.err);
    const [id, state] = c.out.trim().split('\t');
    assert.ok(id && state, c.out);
    const p = await runCli(['buckets', 'pause', id], env);
    assert.equal(p.code, 0, p.err);
    assert.match(p.out, /\tpaused_user\t/);
    const s = await runCli(['buckets', 'status', id, '--json'], env);
    assert.equal(JSON.parse(s.out).state, 'paused_user');
    const r = await runCli(['buckets', 'resume', id], env);
    assert.equal(r.code, 0, r.err);
    assert.doesNotMatch(r.out, /paused/);
    const w = await runCli(['buckets', 'watch', id, '--interval', '0.2'], env);
    assert.equal(w.code, 0, w.err);
    assert.equal(w.out.trim().split('\t')[1], 'done');
    assert.match(w.err, /done +\[#+\] 60\/60 of 60 +failed 0/);
    const docs = await runCli(['docs', 'ls', '--json'], env);
    assert.equal(JSON.parse(docs.out).total_documents, 60);
    const late = await runCli(['buckets', 'pause', id], env);
    assert.equal(late.code, 1);
    assert.match(late.err, /HTTP 409, task_not_active/);
  });

  test('cancel ends a running task as failed; failures lists nothing for it', async () => {
    const c = await create('--glob', '*.md', '--json');
    assert.equal(c.code, 0, c.err);
    const id = JSON.parse(c.out).bucket_ingest_task_id;
    const x = await runCli(['buckets', 'cancel', id], env);
    assert.equal(x.code, 0, x.err);
    const w = await runCli(['buckets', 'watch', id, '--interval', '0.2'], env);
    assert.equal(w.code, 1, 'a cancelled task ends failed');
    assert.match(w.out, /\tfailed\t/);
    const f = await runCli(['buckets', 'failures', id, '--json'], env);
    assert.equal(f.code, 0, f.err);
    assert.ok(Array.isArray(JSON.parse(f.out)));
  });
});
