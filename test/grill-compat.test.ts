// Existing status-stream clients (docs/compat.md), checked over real HTTP as the Grill MCP
// client talks: (a) the stream's `error` is the message string, its code in `error_code`, while the JSON
// status keeps `error: {code, message}`; (b) an account key reads, streams and deletes a job without
// X-Project-ID when its account owns the job (404 otherwise); (c) the document of a single-file ingest
// has its job's id, so the job id works as `doc_filter` (Idempotency-Key replays keep both).
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { startTestServer, createProject, type TestServer } from './helpers/start-test-server.ts';
import { api, ingestFile, waitForJob, dataPath } from './helpers/api.ts';
import { openSse, statusEvents, startFileServer } from './jobs-helpers.ts';

const TEXT = fs.readFileSync(dataPath('docs/txt/norwich-city.txt'));
type Project = Awaited<ReturnType<typeof createProject>>;

describe('Grill-style clients', () => {
  let server: TestServer;
  let files: Awaited<ReturnType<typeof startFileServer>>;
  let own: Project;
  let other: { accountKey: string; project: Project };

  const remoteIngest = (key: string, url: string) => api(server.baseUrl, key, 'POST', '/v3/docsearch/ingest', undefined, { 'x-remote-url': url });
  const jobIdOf = (r: { body: unknown }) => (r.body as { job_id: string }).job_id;

  before(async () => {
    files = await startFileServer(TEXT);
    server = await startTestServer({ backend: 'sqlite', env: { DOCSEARCH_ALLOWED_PRIVATE_HOSTS: '127.0.0.1' } });
    own = await createProject(server);
    const acc = await server.services.projects.createAccount({ name: 'grill-other', email: 'grill-other@test.invalid', password: 'other-password-123' });
    other = { accountKey: acc.accountKey, project: await createProject(server, { token: acc.accountKey }) };
  });
  after(async () => {
    await server?.close();
    await files?.close();
  });

  test('(a) a failed job: the stream sends error as the message string and error_code; JSON status keeps the object', async () => {
    const jobId = jobIdOf(await remoteIngest(own.apiKey, files.url('missing.txt')));
    const final = await waitForJob(server.baseUrl, own.apiKey, jobId, 60_000);
    assert.equal(final.status, 'failed');
    assert.deepEqual(Object.keys(final.error!).sort(), ['code', 'message'], 'JSON status: error stays {code, message}');
    assert.equal(final.error!.code, 'remote_fetch_failed');

    const s = await openSse(`${server.baseUrl}/status/v1/jobs/${jobId}`, { authorization: `Bearer ${own.apiKey}` });
    assert.equal(s.status, 200);
    await s.ended;
    const last = statusEvents(s.events).at(-1)!;
    assert.equal(last.status, 'failed');
    assert.equal(typeof last.error, 'string');
    assert.equal(last.error, final.error!.message);
    assert.match(String(last.error), /HTTP 404/);
    assert.equal(last.error_code, 'remote_fetch_failed');
    assert.equal(`job failed: ${last.error}`.includes('[object Object]'), false);
  });

  test('(b) account key without X-Project-ID: status, stream (both mounts) and delete resolve the job\'s project', async () => {
    const created = await ingestFile(server.baseUrl, own.apiKey, dataPath('docs/md/wiki.md'));
    const jobId = jobIdOf(created);
    const acc = server.accountKey;
    const st = await api(server.baseUrl, acc, 'GET', `/v3/jobs/${jobId}/status`);
    assert.equal(st.status, 200, JSON.stringify(st.body));
    assert.equal((st.body as { job_id: string }).job_id, jobId);
    assert.equal((await api(server.baseUrl, acc, 'GET', `/jobs/${jobId}/status`)).status, 200, 'root mount');
    await waitForJob(server.baseUrl, acc, jobId, 60_000);
    for (const prefix of ['', '/v3']) {
      const s = await openSse(`${server.baseUrl}${prefix}/status/v1/jobs/${jobId}`, { authorization: `Bearer ${acc}` });
      assert.equal(s.status, 200, `stream at ${prefix || 'root'}`);
      await s.ended;
      assert.equal(statusEvents(s.events).at(-1)!.status, 'done');
    }

    // Another account's key: 404, as for an unknown id (ids cannot be probed); the owner's id still works.
    const foreign = await api(server.baseUrl, other.accountKey, 'GET', `/v3/jobs/${jobId}/status`);
    assert.equal(foreign.status, 404);
    assert.equal((foreign.body as { code: string }).code, 'job_not_found');
    assert.equal((await api(server.baseUrl, other.accountKey, 'GET', `/status/v1/jobs/${jobId}`)).status, 404);
    assert.equal((await api(server.baseUrl, other.accountKey, 'DELETE', `/v3/jobs/${jobId}`)).status, 404);
    assert.equal((await api(server.baseUrl, acc, 'GET', '/v3/jobs/00000000-0000-4000-8000-000000000000/status')).status, 404);
    // An explicit X-Project-ID still rules: another project of the same account does not hold the job.
    const elsewhere = await createProject(server);
    assert.equal((await api(server.baseUrl, acc, 'GET', `/v3/jobs/${jobId}/status`, undefined, { 'x-project-id': elsewhere.projectId })).status, 404);
    // Routes without a job id keep requiring X-Project-ID with account credentials.
    assert.equal((await api(server.baseUrl, acc, 'GET', '/v3/webhooks/secret')).status, 400);

    const del = await api(server.baseUrl, acc, 'DELETE', `/v3/jobs/${jobId}`);
    assert.equal(del.status, 200);
    assert.equal((del.body as { result: string }).result, 'record_deleted');
  });

  test('(b) a protected project still refuses account keys when the project comes from the job id', async () => {
    const prot = await createProject(server, { protected: true });
    const jobId = jobIdOf(await ingestFile(server.baseUrl, prot.apiKey, dataPath('docs/md/wiki.md')));
    const r = await api(server.baseUrl, server.accountKey, 'GET', `/v3/jobs/${jobId}/status`);
    assert.equal(r.status, 403);
    assert.equal((r.body as { code: string }).code, 'project_access_denied');
  });

  test('(c) a single-file ingest\'s document has its job\'s id: doc_filter = job_id works; replays keep it', async () => {
    const headers = { 'idempotency-key': `grill-${Date.now()}` };
    const created = await ingestFile(server.baseUrl, own.apiKey, dataPath('docs/txt/norwich-city.txt'), headers);
    assert.equal(created.status, 201);
    const jobId = jobIdOf(created);
    const done = await waitForJob(server.baseUrl, own.apiKey, jobId, 60_000);
    assert.equal(done.status, 'done');
    assert.equal(done.doc_id, jobId);
    const replay = await ingestFile(server.baseUrl, own.apiKey, dataPath('docs/txt/norwich-city.txt'), headers);
    assert.equal(jobIdOf(replay), jobId, 'Idempotency-Key replay: same job');
    assert.equal((await waitForJob(server.baseUrl, own.apiKey, jobId)).doc_id, jobId, 'and same document');

    const doc = await api(server.baseUrl, own.apiKey, 'GET', `/v3/docsearch/docs/${jobId}`);
    assert.equal(doc.status, 200);
    assert.equal((doc.body as { source_job_id: string }).source_job_id, jobId);
    const inDoc = await api(server.baseUrl, own.apiKey, 'POST', '/v3/docsearch/searchInDoc', { query: 'Norwich City football club', doc_filter: jobId });
    assert.equal(inDoc.status, 200, JSON.stringify(inDoc.body));
    assert.match(String((inDoc.body as { context?: string }).context ?? JSON.stringify(inDoc.body)), /Norwich/);
    const search = await api(server.baseUrl, own.apiKey, 'POST', '/v3/docsearch/search', { query: 'Norwich City football club', doc_filter: jobId });
    assert.equal(search.status, 200, JSON.stringify(search.body));

    // A remote-URL ingest is a single-file ingest too.
    const remoteId = jobIdOf(await remoteIngest(own.apiKey, files.url('norwich.txt')));
    assert.equal((await waitForJob(server.baseUrl, own.apiKey, remoteId, 60_000)).doc_id, remoteId);
  });
});
