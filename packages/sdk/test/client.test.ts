// @docsearch/sdk against the real service (started in-process on a loopback port): create a project,
// upload a real PDF, follow its job over the status stream, list/get/search/searchInDoc/delete, read
// attributes, and typed DocsearchError codes for the service's refusals.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { DocsearchClient, DocsearchError, type JobStatusEvent } from '../src/index.ts';
import { newProject, PAPER, startTestServer, type TestServer } from './support.ts';

describe('@docsearch/sdk against the service', () => {
  let server: TestServer;
  let client: DocsearchClient;
  let projectId: string;
  let account: DocsearchClient;
  let docId: string;

  before(async () => {
    // The service may fetch its own origin (a 404 path) for the failed remote-URL job below.
    server = await startTestServer({ env: { DOCSEARCH_ALLOWED_PRIVATE_HOSTS: '127.0.0.1' } });
    ({ client, projectId, account } = await newProject(server));
  });
  after(async () => server?.close());

  test('ingestFile + watchJob: events until done, the last one carries doc_id', async () => {
    const job = await client.ingestFile(PAPER.file, { attributes: { year: 2021, topic: 'layout' } });
    assert.match(job.job_id, /^[0-9a-f-]{36}$/);
    assert.equal(job.properties.file.filename, 'layout-parser-paper-with-table.pdf');
    assert.equal(job.properties.file.size, fs.statSync(PAPER.file).size);
    const events: JobStatusEvent[] = [];
    for await (const ev of client.watchJob(job.job_id)) events.push(ev);
    const last = events.at(-1)!;
    assert.equal(last.status, 'done', JSON.stringify(events));
    assert.equal(last.is_terminal, true);
    assert.ok(last.doc_id);
    assert.ok(events.slice(0, -1).every((e) => !e.is_terminal));
    docId = last.doc_id!;
    // Following a finished job ends at once (the stream sends its terminal state, or 204 on resume).
    const again = await client.waitForJob(job.job_id);
    assert.equal(again.status, 'done');
    const status = await client.getJobStatus(job.job_id);
    assert.equal(status.doc_id, docId);
  });

  test('documents: list, get, attributes', async () => {
    const list = await client.listDocuments();
    assert.equal(list.total_documents, 1);
    assert.equal(list.documents[0].doc_id, docId);
    const doc = await client.getDocument(docId);
    assert.equal(doc.filename, 'layout-parser-paper-with-table.pdf');
    assert.ok(doc.pages >= 1 && doc.chunk_count > 0, JSON.stringify(doc));
    const attrs = await client.listAttributes();
    assert.deepEqual(attrs.attributes.map((a) => `${a.name}:${a.type}`).sort(), ['topic:string', 'year:int']);
  });

  test('search: prompt-ready by default, ranked hits with format json, filters, searchInDoc', async () => {
    const ctx = await client.search({ query: PAPER.query });
    assert.ok(ctx.result_count > 0, JSON.stringify(ctx));
    assert.match(ctx.context, PAPER.expect);
    const hits = await client.search({ query: PAPER.query, format: 'json', attribute_filters: [{ attr: 'year', op: 'gte', value: 2020 }] });
    assert.ok(hits.results.length > 0);
    assert.equal(hits.results[0].doc_id, docId);
    assert.equal(typeof hits.results[0].scores.rrf, 'number');
    const none = await client.search({ query: PAPER.query, format: 'json', attribute_filters: [{ attr: 'year', op: 'lt', value: 2000 }] });
    assert.equal(none.results.length, 0);
    const inDoc = await client.searchInDoc({ query: PAPER.query, doc_filter: docId });
    assert.ok(inDoc.result_count > 0);
  });

  test('errors are DocsearchError with the service code, status and details', async () => {
    const missing = await client.getDocument('no-such-doc').catch((e: unknown) => e);
    assert.ok(missing instanceof DocsearchError);
    assert.equal(missing.status, 404);
    assert.match(missing.code, /not_found/);
    assert.ok(missing.requestId);
    const bad = await client.search({ query: PAPER.query, attribute_filters: [{ attr: 'year', op: 'glob', value: '2*' }] }).catch((e: unknown) => e);
    assert.ok(bad instanceof DocsearchError);
    assert.equal(bad.status, 400);
    assert.ok(bad.details, 'validation errors carry details');
    const unauth = await new DocsearchClient({ baseUrl: server.baseUrl, apiKey: 'svc_prod_ds_wrong' }).listDocuments().catch((e: unknown) => e);
    assert.ok(unauth instanceof DocsearchError && unauth.status === 401, String(unauth));
    const noJob = await (async () => { for await (const _ of client.watchJob('00000000-0000-4000-8000-000000000000')) { /* none */ } })().catch((e: unknown) => e);
    assert.ok(noJob instanceof DocsearchError && noJob.status === 404);
    const offline = await new DocsearchClient({ baseUrl: 'http://127.0.0.1:9', retry: { maxRetries: 0 } }).listDocuments().catch((e: unknown) => e);
    assert.ok(offline instanceof DocsearchError && offline.code === 'network_error' && offline.status === 0);
  });

  test('account key with withProject(), remote-URL ingest failure surfaces as a failed job, deleteDocument', async () => {
    const scoped = account.withProject(projectId);
    assert.equal((await scoped.listDocuments()).total_documents, 1);
    const job = await scoped.ingest(undefined, { remoteUrl: `${server.baseUrl}/missing.pdf` });
    const end = await scoped.waitForJob(job.job_id);
    assert.equal(end.status, 'failed');
    assert.ok(end.error?.code, JSON.stringify(end));
    const deleted = await client.deleteDocument(docId);
    assert.equal(deleted.doc_id, docId);
    assert.ok(deleted.vectors_deleted > 0);
    assert.equal((await client.listDocuments()).total_documents, 0);
  });
});
