// Bucket sync end to end through the HTTP API, against a real S3-protocol server, on SQLite and
// PostgreSQL: a bucket of 200 objects (60 on PostgreSQL) is synced into a namespace; after 20 changes,
// 20 deletions and 20 additions a sync run reports exactly 20 new, 20 changed, 160 unchanged and 20 deleted, changed
// objects keep their doc_id and answer with their new text, deleted ones are gone; an unchanged re-sync
// (repeating every second) ingests nothing, and cancelling it stops the repeats.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, createProject, BACKENDS, type TestServer } from './helpers/start-test-server.ts';
import { terminal, waitForTask } from './helpers/bucket-tasks.ts';
import { api } from './helpers/api.ts';
import { startS3Server, type S3TestServer } from './helpers/s3-server.ts';

const word = (i: number) => `quarvel${i.toString(36)}zet`;
const key = (i: number) => `kb/g${i % 4}/note-${i}.md`;
const text = (i: number, rev = 0) => `# Note ${i}\n\nThe archive entry ${word(i)} describes shelf ${i % 4}${rev ? `, revised as edition${rev}mark` : ''}.\n`;

for (const backend of BACKENDS) {
  // The full 200 objects (20 of each change) on SQLite; the same flow scaled to 60 (6 of each) on PostgreSQL.
  const N = backend === 'sqlite' ? 200 : 60;
  const D = N / 10;
  describe(`bucket sync (${backend})`, () => {
    let server: TestServer;
    let s3: S3TestServer;
    const bucket = `sync-${backend}`;
    const source = () => ({
      type: 's3', bucket, prefix: 'kb/', endpoint: s3.endpoint, region: s3.region,
      credentials: { access_key_id: s3.accessKeyId, secret_access_key: s3.secretAccessKey },
    });

    before(async () => {
      s3 = await startS3Server();
      await s3.createBucket(bucket);
      await s3.putObjects(bucket, [...Array.from({ length: N }, (_, i) => [key(i), text(i)] as [string, string]), ['kb/skip.bin', 'x']]);
      server = await startTestServer({ backend, env: { DOCSEARCH_ALLOWED_PRIVATE_HOSTS: '127.0.0.1', DOCSEARCH_WORKER_CONCURRENCY: '4' } });
    });
    after(async () => {
      await server?.close();
      await s3?.close();
    });

    test(`${N} objects, then ${D} changed, ${D} deleted, ${D} added: exact counts; an unchanged re-sync ingests nothing`, async () => {
      const { apiKey, projectId } = await createProject(server);
      const run = async (sync: Record<string, unknown>) => {
        const r = await api(server.baseUrl, apiKey, 'POST', '/v3/docsearch/ingestBucket', { source: source(), filter_glob: '**/*.md', sync });
        assert.equal(r.status, 202, JSON.stringify(r.body));
        return r.body as any;
      };
      const finished = async (id: string, runNo = 1) => waitForTask(server.baseUrl, apiKey, id, (t) => terminal(t) && t.run === runNo, { timeoutMs: 240_000 });
      const docs = async () => (await api(server.baseUrl, apiKey, 'GET', '/v3/docsearch/docs')).body as any;
      const ingestJobs = async () => Number((await server.services.cp.db.selectFrom('jobs').select((eb) => eb.fn.countAll<number>().as('n'))
        .where('project_id', '=', projectId).where('kind', '=', 'ingest').executeTakeFirstOrThrow()).n);
      const counts = (t: any) => ({ new: t.sync.files_new, changed: t.sync.files_changed, unchanged: t.sync.files_unchanged, deleted: t.sync.files_deleted, failed: t.sync.files_failed });

      const first = await finished((await run({ delete_missing: true })).bucket_ingest_task_id);
      assert.equal(first.state, 'done', JSON.stringify(first));
      assert.deepEqual(counts(first), { new: N, changed: 0, unchanged: 0, deleted: 0, failed: 0 });
      const before = await docs();
      assert.equal(before.total_documents, N);
      const idOf = new Map<string, string>((before.documents as any[]).map((d) => [d.filename, d.doc_id]));

      // D changed, D deleted, D added.
      await s3.putObjects(bucket, Array.from({ length: D }, (_, i) => [key(i), text(i, 2)] as [string, string]));
      await s3.deleteObjects(bucket, Array.from({ length: D }, (_, i) => key(D + i)));
      await s3.putObjects(bucket, Array.from({ length: D }, (_, i) => [key(N + i), text(N + i)] as [string, string]));

      const second = await finished((await run({ delete_missing: true })).bucket_ingest_task_id);
      assert.equal(second.state, 'done', JSON.stringify(second));
      assert.deepEqual(counts(second), { new: D, changed: D, unchanged: N - 2 * D, deleted: D, failed: 0 });
      assert.match(second.state_description, new RegExp(`${D} new, ${D} changed, ${N - 2 * D} unchanged, ${D} deleted, 0 failed`));
      const after = await docs();
      assert.equal(after.total_documents, N);
      const now = new Map<string, string>((after.documents as any[]).map((d) => [d.filename, d.doc_id]));
      for (let i = 0; i < D; i++) assert.equal(now.get(key(i)), idOf.get(key(i)), 'a changed object keeps its doc_id');
      for (let i = D; i < 2 * D; i++) assert.equal(now.has(key(i)), false);
      for (let i = N; i < N + D; i++) assert.ok(now.has(key(i)));
      const changed = await api(server.baseUrl, apiKey, 'POST', '/v3/docsearch/search', { query: `${word(3)} edition2mark`, format: 'json', min_relevance: 0 });
      const hit = ((changed.body as any).results as any[]).find((h) => h.doc_id === idOf.get(key(3)));
      assert.match(hit?.content ?? '', /edition2mark/);
      const gone = await api(server.baseUrl, apiKey, 'POST', '/v3/docsearch/search', { query: word(D + 1), format: 'json', min_relevance: 0 });
      assert.equal(((gone.body as any).results as any[]).filter((h) => h.content.includes(word(D + 1))).length, 0);

      // Unchanged: nothing is fetched or ingested, run after run, until the repeats are cancelled.
      const jobs = await ingestJobs();
      const repeating = await run({ delete_missing: true, interval_seconds: 1 });
      const third = await finished(repeating.bucket_ingest_task_id);
      assert.deepEqual(counts(third), { new: 0, changed: 0, unchanged: N, deleted: 0, failed: 0 });
      assert.ok(third.sync.next_run_at, 'a repeating task schedules its next run');
      const again = await finished(repeating.bucket_ingest_task_id, 2);
      assert.deepEqual(counts(again), { new: 0, changed: 0, unchanged: N, deleted: 0, failed: 0 });
      assert.equal(await ingestJobs(), jobs);
      const cancelled = await api(server.baseUrl, apiKey, 'DELETE', `/v3/docsearch/ingestBucket/${repeating.bucket_ingest_task_id}`);
      assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
      assert.equal((cancelled.body as any).cancelled, true);
      assert.equal((cancelled.body as any).sync.next_run_at, null);
      assert.equal((await docs()).total_documents, N);

      const bad = await api(server.baseUrl, apiKey, 'POST', '/v3/docsearch/ingestBucket', { source: source(), sync: { interval_seconds: 0 } });
      assert.equal(bad.status, 400);
      assert.equal((bad.body as any).code, 'validation_failed');
    });
  });
}
