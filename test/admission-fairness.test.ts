// Fair parse slots and the in-flight ingest cap: one project flooding the service with slow
// documents (remote files that trickle in and hold a worker slot) must not delay another project's
// single small document, on either control plane; and a project past its cap of unfinished ingests gets
// 429 rate_limited with Retry-After before its upload is read, and parallel uploads never pass the cap together
// (the check and the job creation are one atomic step, on SQLite and on PostgreSQL).
// Runs alone: asserts another project's document ends within 10 s under a flood.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { BACKENDS, startTestServer, createProject, request, type TestServer } from './helpers/index.ts';
import { waitForJob } from './helpers/api.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A local file server whose responses send their headers and first bytes, then hang until released. */
async function slowFileServer(): Promise<{ url: string; release(): void; close(): Promise<void> }> {
  const held: http.ServerResponse[] = [];
  let released = false;
  const finish = (res: http.ServerResponse) => res.end(' and the rest of a slow document about tortoises.\n');
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('A slow document');
    if (released) finish(res);
    else held.push(res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    release: () => { released = true; for (const res of held.splice(0)) finish(res); },
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

const ingestText = (server: TestServer, key: string, name: string, text: string) => request(server, 'POST', '/v3/docsearch/ingest', {
  token: key, body: text, headers: { 'content-type': 'application/octet-stream', 'content-disposition': `attachment; filename="${name}"` },
});

for (const backend of BACKENDS) {
  describe(`fair worker slots (${backend})`, () => {
    let server: TestServer;
    let slow: Awaited<ReturnType<typeof slowFileServer>>;
    before(async () => {
      slow = await slowFileServer();
      // Default slots: DOCSEARCH_WORKER_CONCURRENCY=2 per project plus DOCSEARCH_WORKER_FAIR_SLOTS=1.
      server = await startTestServer({ backend, env: { DOCSEARCH_ALLOWED_PRIVATE_HOSTS: '127.0.0.1' } });
    });
    after(async () => {
      slow?.release();
      await server?.close();
      await slow?.close();
    });

    test('a project flooding slow documents holds at most its share; another project\'s small document completes promptly', async () => {
      const a = await createProject(server);
      const b = await createProject(server);
      // Warm up (first parse child, embedder load) so the timing below measures waiting for a slot.
      const warm = await ingestText(server, b.apiKey, 'warm.txt', 'Warming up the service.');
      assert.equal((await waitForJob(server.baseUrl, b.apiKey, warm.body.job_id, 60_000)).status, 'done');
      const flood: string[] = [];
      for (let i = 0; i < 6; i++) {
        const r = await request(server, 'POST', '/v3/docsearch/ingest', { token: a.apiKey, headers: { 'x-remote-url': `${slow.url}/slow-${i}.txt` } });
        assert.equal(r.status, 201, JSON.stringify(r.body));
        flood.push(r.body.job_id);
      }
      const statuses = async () => Promise.all(flood.map(async (id) => (await request(server, 'GET', `/v3/jobs/${id}/status`, { token: a.apiKey })).body.status as string));
      let running = 0;
      for (let i = 0; i < 100 && running < 2; i++) {
        await sleep(50);
        running = (await statuses()).filter((s) => s === 'processing').length;
      }
      assert.equal(running, 2, 'the flooding project runs DOCSEARCH_WORKER_CONCURRENCY jobs');
      await sleep(300);
      assert.equal((await statuses()).filter((s) => s === 'processing').length, 2, 'and never takes the fair slot');

      const started = Date.now();
      const small = await ingestText(server, b.apiKey, 'small.txt', 'A small document about hedgehogs in winter.');
      assert.equal(small.status, 201);
      const done = await waitForJob(server.baseUrl, b.apiKey, small.body.job_id, 20_000);
      const ms = Date.now() - started;
      assert.equal(done.status, 'done', JSON.stringify(done));
      assert.ok(ms < 10_000, `the other project's document took ${ms} ms`);
      const left = await statuses();
      assert.ok(left.every((s) => s === 'pending' || s === 'processing'), `the flood is still held: ${left.join()}`);

      slow.release();
      for (const id of flood) assert.equal((await waitForJob(server.baseUrl, a.apiKey, id, 60_000)).status, 'done');
    });
  });
}

describe('in-flight ingest cap per project', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ backend: 'sqlite', workers: false, env: { DOCSEARCH_MAX_INFLIGHT_INGESTS_PER_PROJECT: '2' } });
  });
  after(async () => server?.close());

  test('past the cap of unfinished ingests 429 rate_limited with Retry-After; no job is created; other projects unaffected', async () => {
    const a = await createProject(server);
    const b = await createProject(server);
    assert.equal((await ingestText(server, a.apiKey, 'one.txt', 'first')).status, 201);
    assert.equal((await ingestText(server, a.apiKey, 'two.txt', 'second')).status, 201);
    const refused = await ingestText(server, a.apiKey, 'three.txt', 'third');
    assert.equal(refused.status, 429, JSON.stringify(refused.body));
    assert.deepEqual(Object.keys(refused.body).sort(), ['code', 'details', 'message', 'retry_after_seconds', 'status']);
    assert.equal(refused.body.code, 'rate_limited');
    assert.equal(refused.body.retry_after_seconds, Number(refused.headers.get('retry-after')));
    assert.equal(refused.body.details.retry_after_s, refused.body.retry_after_seconds);
    assert.equal(refused.body.details.scope, 'in-flight ingests per project');
    assert.equal(refused.body.details.limit, 2);
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    const jobs = await server.services.cp.db.selectFrom('jobs').select('id').where('project_id', '=', a.projectId).execute();
    assert.equal(jobs.length, 2);
    assert.equal((await ingestText(server, b.apiKey, 'other.txt', 'other project')).status, 201);

    // A finished job frees its place.
    const first = jobs[0].id;
    assert.equal((await request(server, 'DELETE', `/v3/jobs/${first}`, { token: a.apiKey })).status, 200);
    assert.equal((await ingestText(server, a.apiKey, 'three.txt', 'third')).status, 201);
  });
});

for (const backend of BACKENDS) {
  describe(`in-flight ingest cap under parallel uploads (${backend})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ backend, workers: false, env: { DOCSEARCH_MAX_INFLIGHT_INGESTS_PER_PROJECT: '2' } });
    });
    after(async () => server?.close());

    const unfinished = async (projectId: string) => (await server.services.cp.db.selectFrom('jobs').select('id')
      .where('project_id', '=', projectId).where('status', 'in', ['pending', 'processing']).execute()).length;

    test('parallel uploads: exactly the cap is accepted, the rest 429, with and without Idempotency-Key', async () => {
      // Bodies of 256 KiB keep every request busy with its upload after the early check, so all of them pass
      // it before any of their jobs exists: only the atomic check at job creation can hold the cap.
      const body = 'parallel uploads of one project. '.repeat(8000);
      for (const [round, withKey] of [[0, false], [1, true], [2, false]] as Array<[number, boolean]>) {
        const p = await createProject(server);
        const results = await Promise.all(Array.from({ length: 8 }, (_, i) => request(server, 'POST', '/v3/docsearch/ingest', {
          token: p.apiKey, body,
          headers: {
            'content-type': 'application/octet-stream', 'content-disposition': `attachment; filename="p${round}-${i}.txt"`,
            ...(withKey ? { 'idempotency-key': crypto.randomUUID() } : {}),
          },
        })));
        const statuses = results.map((r) => r.status).sort();
        assert.deepEqual(statuses, [201, 201, 429, 429, 429, 429, 429, 429], `round ${round}: ${JSON.stringify(results.map((r) => r.body))}`);
        for (const r of results.filter((x) => x.status === 429)) {
          assert.equal(r.body.code, 'rate_limited');
          assert.equal(r.body.details.limit, 2);
          assert.ok(r.body.details.in_flight >= 2, JSON.stringify(r.body));
        }
        assert.equal(await unfinished(p.projectId), 2, `round ${round}`);
      }
      // Refused uploads leave no original behind: the stored files are the accepted jobs' own.
      const accepted = await server.services.cp.db.selectFrom('jobs').select(['id', 'project_id']).execute();
      assert.equal(accepted.length, 6);
      for (const j of accepted) assert.ok(await server.services.blobs.exists(`projects/${j.project_id}/originals/${j.id}`), j.id);
      const root = path.join(server.dataDir, 'blobs');
      const stored = fs.readdirSync(root, { recursive: true }).filter((f) => fs.statSync(path.join(root, String(f))).isFile());
      assert.equal(stored.length, 6, stored.join(', '));
    });

    test('an Idempotency-Key replay of an accepted upload is answered with its job, not refused by the cap', async () => {
      const p = await createProject(server);
      const headers = (i: number, key: string) => ({ 'content-type': 'application/octet-stream', 'content-disposition': `attachment; filename="r${i}.txt"`, 'idempotency-key': key });
      const keys = [crypto.randomUUID(), crypto.randomUUID()];
      const first = await Promise.all(keys.map((k, i) => request(server, 'POST', '/v3/docsearch/ingest', { token: p.apiKey, body: 'replayed upload', headers: headers(i, k) })));
      assert.deepEqual(first.map((r) => r.status), [201, 201]);
      const replays = await Promise.all(keys.map((k, i) => request(server, 'POST', '/v3/docsearch/ingest', { token: p.apiKey, body: 'replayed upload', headers: headers(i, k) })));
      assert.deepEqual(replays.map((r) => r.body.job_id), first.map((r) => r.body.job_id));
      assert.equal(await unfinished(p.projectId), 2);
    });
  });
}
