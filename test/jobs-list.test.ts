// GET /v3/jobs (the project's ingest jobs, newest first, paged) and GET /v3/project (the project a
// credential acts on), over real HTTP on both control-plane backends. Workers are off: jobs stay pending
// unless cancelled, which makes every state the listing filters on deterministic.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, createProject, request, BACKENDS, type TestServer } from './helpers/index.ts';

async function ingest(server: TestServer, key: string, name: string): Promise<string> {
  const r = await request(server, 'POST', '/v3/docsearch/ingest', {
    token: key, body: `# ${name}\n\nSome text about ${name}.\n`,
    headers: { 'content-type': 'application/octet-stream', 'content-disposition': `attachment; filename="${name}.md"` },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.job_id;
}

for (const backend of BACKENDS) {
  describe(`job listing and current project (${backend})`, () => {
    let server: TestServer;
    let a: Awaited<ReturnType<typeof createProject>>;
    let b: Awaited<ReturnType<typeof createProject>>;
    const ids: string[] = [];

    before(async () => {
      server = await startTestServer({ backend, workers: false });
      a = await createProject(server, { name: 'jobs list A' });
      b = await createProject(server, { name: 'jobs list B' });
      for (const name of ['one', 'two', 'three', 'four', 'five']) ids.push(await ingest(server, a.apiKey, name));
      await ingest(server, b.apiKey, 'other');
    });
    after(async () => server?.close());

    test('newest first, paged by cursor, each job as its status view', async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const q: string = cursor ? `?limit=2&cursor=${encodeURIComponent(cursor)}` : '?limit=2';
        const r = await request(server, 'GET', `/v3/jobs${q}`, { token: a.apiKey });
        assert.equal(r.status, 200, JSON.stringify(r.body));
        assert.ok(r.body.jobs.length <= 2);
        seen.push(...r.body.jobs.map((j: { job_id: string }) => j.job_id));
        cursor = r.body.next_cursor;
        pages++;
      } while (cursor);
      assert.equal(pages, 3);
      assert.deepEqual(seen, [...ids].reverse(), 'all five of A, newest first, none of B');
      const whole = await request(server, 'GET', '/v3/jobs', { token: a.apiKey });
      assert.equal(whole.body.next_cursor, null);
      const status = await request(server, 'GET', `/v3/jobs/${ids[0]}/status`, { token: a.apiKey });
      assert.deepEqual(whole.body.jobs.at(-1), status.body, 'the same view as GET /jobs/{id}/status');
      assert.equal(whole.body.jobs[0].properties.file.filename, 'five.md');
    });

    test('status filter', async () => {
      const cancelled = await request(server, 'DELETE', `/v3/jobs/${ids[1]}`, { token: a.apiKey });
      assert.equal(cancelled.body.result, 'cancelled');
      const failed = await request(server, 'GET', '/v3/jobs?status=failed', { token: a.apiKey });
      assert.deepEqual(failed.body.jobs.map((j: { job_id: string }) => j.job_id), [ids[1]]);
      assert.equal(failed.body.jobs[0].error.code, 'job_cancelled');
      const open = await request(server, 'GET', '/v3/jobs?status=pending,processing', { token: a.apiKey });
      assert.equal(open.body.jobs.length, 4);
      assert.ok(open.body.jobs.every((j: { status: string }) => j.status === 'pending'));
      assert.equal((await request(server, 'GET', '/v3/jobs?status=done', { token: a.apiKey })).body.jobs.length, 0);
    });

    test('account-level credentials name the project; bad queries are 400 with a code', async () => {
      const account = server.accountKey;
      const noProject = await request(server, 'GET', '/v3/jobs', { token: account });
      assert.equal(noProject.status, 400);
      const viaHeader = await request(server, 'GET', '/v3/jobs', { token: account, projectId: b.projectId });
      assert.equal(viaHeader.status, 200);
      assert.equal(viaHeader.body.jobs.length, 1);
      assert.equal((await request(server, 'GET', '/v3/jobs', {})).status, 401);
      assert.equal((await request(server, 'GET', '/v3/jobs', { token: a.apiKey, projectId: b.projectId })).status, 403);
      for (const q of ['limit=0', 'limit=101', 'limit=x', 'status=running', 'status=done,', 'cursor=abc', 'cursor=j1.AAAA', `cursor=j1.${Buffer.from('2026-01-01T00:00:00.000Z').toString('base64url')}`]) {
        const r = await request(server, 'GET', `/v3/jobs?${q}`, { token: a.apiKey });
        assert.equal(r.status, 400, `${q}: ${JSON.stringify(r.body)}`);
        assert.equal(r.body.code, 'validation_failed', q);
      }
    });

    test('GET /v3/project describes the credential\'s project', async () => {
      const own = await request(server, 'GET', '/v3/project', { token: a.apiKey });
      assert.equal(own.status, 200, JSON.stringify(own.body));
      assert.deepEqual({ id: own.body.id, name: own.body.name, product: own.body.product, protected: own.body.protected, namespace: own.body.namespace },
        { id: a.projectId, name: 'jobs list A', product: 'docsearch', protected: false, namespace: a.namespace });
      assert.ok(!JSON.stringify(own.body).includes('svc_'), 'no key in the answer');
      const viaHeader = await request(server, 'GET', '/v3/project', { token: server.accountKey, projectId: b.projectId });
      assert.equal(viaHeader.body.name, 'jobs list B');
      const alt = await createProject(server, { product: 'altproduct', name: 'alt one' });
      const altOwn = await request(server, 'GET', '/v3/project', { token: alt.apiKey });
      assert.equal(altOwn.status, 200, 'any product');
      assert.equal(altOwn.body.product, 'altproduct');
      assert.equal((await request(server, 'GET', '/v3/project', {})).status, 401);
      assert.equal((await request(server, 'GET', '/v3/project', { token: server.accountKey })).status, 400);
      await request(server, 'DELETE', `/v3/projects/${alt.projectId}`, { token: server.accountKey });
      assert.equal((await request(server, 'GET', '/v3/project', { token: alt.apiKey })).status, 401, 'a deleted project\'s key');
    });
  });
}
