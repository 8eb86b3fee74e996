// Spec Authentication: "404 from a document endpoint when the document is not in the namespace of the
// project the key belongs to" — for project keys and for account keys with X-Project-ID, on SQLite and
// PostgreSQL. The other project's document is untouched by the attempt.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, createProject, BACKENDS, type TestServer } from './helpers/start-test-server.ts';
import { api, waitForJob } from './helpers/api.ts';

for (const backend of BACKENDS) {
  describe(`documents outside the key's namespace (${backend})`, () => {
    let server: TestServer;
    let a: { projectId: string; apiKey: string };
    let b: { projectId: string; apiKey: string };
    let docId: string;

    before(async () => {
      server = await startTestServer({ backend });
      a = await createProject(server, { product: 'docsearch' });
      b = await createProject(server, { product: 'docsearch' });
      const res = await fetch(server.baseUrl + '/v3/docsearch/ingest', {
        method: 'POST',
        headers: { authorization: `Bearer ${a.apiKey}`, 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="secret.md"' },
        body: '# Quarterly plan\n\nThe zebra migration budget is confidential to project A.',
      });
      assert.equal(res.status, 201);
      const job = await waitForJob(server.baseUrl, a.apiKey, ((await res.json()) as { job_id: string }).job_id);
      assert.equal(job.status, 'done');
      docId = job.doc_id!;
    });
    after(async () => server?.close());

    test('project key of another project: get, delete, doc_filter and searchInDoc are 404', async () => {
      assert.equal((await api(server.baseUrl, b.apiKey, 'GET', `/v3/docsearch/docs/${docId}`)).status, 404);
      const del = await api(server.baseUrl, b.apiKey, 'DELETE', `/v3/docsearch/docs/${docId}`);
      assert.equal(del.status, 404);
      assert.equal((del.body as { code: string }).code, 'document_not_found');
      assert.equal((await api(server.baseUrl, b.apiKey, 'POST', '/v3/docsearch/search', { query: 'zebra migration', doc_filter: docId })).status, 404);
      assert.equal((await api(server.baseUrl, b.apiKey, 'POST', '/v3/docsearch/searchInDoc', { query: 'zebra migration', doc_filter: docId })).status, 404);
      const list = (await api(server.baseUrl, b.apiKey, 'GET', '/v3/docsearch/docs')).body as { total_documents: number };
      assert.equal(list.total_documents, 0);
      const s = (await api(server.baseUrl, b.apiKey, 'POST', '/v3/docsearch/search', { query: 'zebra migration budget', format: 'json', min_relevance: 0 })).body as { results: unknown[] };
      assert.equal(s.results.length, 0);
    });

    test('account key with X-Project-ID of another project: 404; the owner still has the document', async () => {
      const h = { 'x-project-id': b.projectId };
      assert.equal((await api(server.baseUrl, server.accountKey, 'GET', `/v3/docsearch/docs/${docId}`, undefined, h)).status, 404);
      assert.equal((await api(server.baseUrl, server.accountKey, 'DELETE', `/v3/docsearch/docs/${docId}`, undefined, h)).status, 404);
      const own = await api(server.baseUrl, server.accountKey, 'GET', `/v3/docsearch/docs/${docId}`, undefined, { 'x-project-id': a.projectId });
      assert.equal(own.status, 200);
      const s = (await api(server.baseUrl, a.apiKey, 'POST', '/v3/docsearch/search', { query: 'zebra migration budget', format: 'json', min_relevance: 0 })).body as { results: Array<{ doc_id: string }> };
      assert.equal(s.results[0]?.doc_id, docId);
    });
  });
}
