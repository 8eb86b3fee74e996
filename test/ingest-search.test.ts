// The end-to-end path against the real HTTP server on SQLite and on PostgreSQL: ingest real
// documents (raw upload and X-Remote-URL), poll jobs to done, search in both formats, list, get,
// delete, and check a deleted document never comes back.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { startTestServer, createProject, type TestServer } from './helpers/start-test-server.ts';
import { dataPath, ingestFile, waitForJob, api } from './helpers/api.ts';

for (const backend of ['sqlite', 'postgres'] as const) {
  describe(`ingest -> search -> delete (${backend})`, () => {
    let server: TestServer;
    let key: string;
    const docs: Record<string, string> = {};

    before(async () => {
      server = await startTestServer({ backend, env: { DOCSEARCH_ALLOWED_PRIVATE_HOSTS: '127.0.0.1' } });
      ({ apiKey: key } = await createProject(server, { product: 'docsearch' }));
      const files = ['pdf/tracemonkey.pdf', 'pdf/redp5110_sampled.pdf', 'docx/word_tables.docx', 'html/wiki_duck.html'];
      const jobs = await Promise.all(files.map((f) => ingestFile(server.baseUrl, key, dataPath('docs', f))));
      for (let i = 0; i < files.length; i++) {
        assert.equal(jobs[i].status, 201, `ingest ${files[i]}: ${JSON.stringify(jobs[i].body)}`);
        const job = jobs[i].body as { job_id: string; properties: { file: { filename: string; size: number } }; status: { status: string } };
        assert.equal(job.properties.file.filename, path.basename(files[i]));
        assert.equal(job.properties.file.size, fs.statSync(dataPath('docs', files[i])).size);
        const done = await waitForJob(server.baseUrl, key, job.job_id);
        assert.equal(done.status, 'done', `${files[i]}: ${JSON.stringify(done)}`);
        assert.equal(done.code, 200);
        docs[files[i]] = done.doc_id as string;
      }
    });
    after(async () => server?.close());

    test('documents are listed with their metadata', async () => {
      const r = await api(server.baseUrl, key, 'GET', '/v3/docsearch/docs');
      assert.equal(r.status, 200);
      const body = r.body as { namespace: string; total_documents: number; documents: Array<Record<string, unknown>> };
      assert.equal(body.total_documents, 4);
      assert.match(body.namespace, /^ns_/);
      const tm = body.documents.find((d) => d.filename === 'tracemonkey.pdf')!;
      assert.equal(tm.pages, 14);
      assert.equal(tm.language, 'en');
      assert.match(String(tm.title), /Trace-based Just-in-Time Type Specialization/i);
      assert.ok((tm.chunk_count as number) > 10);
      assert.ok((tm.chunkset_count as number) >= 1);
      const docx = body.documents.find((d) => d.filename === 'word_tables.docx')!;
      assert.ok((docx.table_count as number) >= 1, 'word_tables.docx has tables');
      for (const d of body.documents) {
        assert.ok(['pending', 'indexed'].includes(String(d.bm25_state)));
        assert.match(String(d.ingested_at), /^\d{4}-\d\d-\d\dT/);
        assert.ok(d.source_job_id);
      }
      const one = await api(server.baseUrl, key, 'GET', `/v3/docsearch/docs/${docs['pdf/tracemonkey.pdf']}`);
      assert.equal(one.status, 200);
      assert.equal((one.body as { doc_id: string }).doc_id, docs['pdf/tracemonkey.pdf']);
    });

    test('search ranks tracemonkey first, in both formats', async () => {
      const q = 'trace-based JIT compilation for dynamic languages';
      const j = await api(server.baseUrl, key, 'POST', '/v3/docsearch/search', { query: q, format: 'json' });
      assert.equal(j.status, 200, JSON.stringify(j.body));
      const body = j.body as { results: Array<{ doc_id: string; pages: unknown; scores: Record<string, number | null>; score: number; chunk_indices: number[] }>; result_count: number; namespace: string };
      assert.ok(body.results.length > 0);
      assert.equal(body.results[0].doc_id, docs['pdf/tracemonkey.pdf']);
      const top = body.results[0];
      assert.ok(top.scores.ann !== null && top.scores.bm25 !== null && top.scores.rrf !== null, JSON.stringify(top.scores));
      assert.ok(top.score > 0 && top.score <= 1);
      assert.ok(top.chunk_indices.length >= 1);
      // The reference list (pages 13-14, dense in these words) is not the answer (search/stages/section-prior.ts);
      // the conclusions, which share page 13-14, may be.
      const entries = ((top as unknown as { content: string }).content.match(/^\s*\[\d+\]/gm) ?? []).length;
      assert.ok(entries < 3, `top hit is the bibliography: ${JSON.stringify(top)}`);
      const p = await api(server.baseUrl, key, 'POST', '/v3/docsearch/search', { query: q });
      assert.equal(p.status, 200);
      const ctx = p.body as { context: string; result_count: number; tokens_estimated: number; mode: string; search_units: number; results_dropped: number };
      assert.match(ctx.context, /^<context>/);
      assert.ok(ctx.context.includes(`<doc id="${docs['pdf/tracemonkey.pdf']}"`));
      assert.match(ctx.context, /\[p\d+\]/);
      assert.ok(ctx.tokens_estimated > 0 && ctx.tokens_estimated <= 15000);
      assert.equal(ctx.mode, 'standard');
    });

    test('doc_filter to an unknown document is 404; exclude_doc_ids removes it', async () => {
      const q = 'trace-based JIT compilation';
      const nf = await api(server.baseUrl, key, 'POST', '/v3/docsearch/search', { query: q, doc_filter: 'nope' });
      assert.equal(nf.status, 404);
      const ex = await api(server.baseUrl, key, 'POST', '/v3/docsearch/search', { query: q, format: 'json', exclude_doc_ids: [docs['pdf/tracemonkey.pdf']], min_relevance: 0 });
      assert.equal(ex.status, 200);
      assert.ok(!(ex.body as { results: Array<{ doc_id: string }> }).results.some((r) => r.doc_id === docs['pdf/tracemonkey.pdf']));
    });

    test('delete removes the document from list, get and search', async () => {
      const id = docs['pdf/tracemonkey.pdf'];
      const del = await api(server.baseUrl, key, 'DELETE', `/v3/docsearch/docs/${id}`);
      assert.equal(del.status, 200);
      const d = del.body as { doc_id: string; vectors_deleted: number; storage_deleted: boolean };
      assert.equal(d.doc_id, id);
      assert.ok(d.vectors_deleted > 10);
      assert.equal(d.storage_deleted, true);
      assert.equal((await api(server.baseUrl, key, 'GET', `/v3/docsearch/docs/${id}`)).status, 404);
      assert.equal((await api(server.baseUrl, key, 'DELETE', `/v3/docsearch/docs/${id}`)).status, 404);
      const list = (await api(server.baseUrl, key, 'GET', '/v3/docsearch/docs')).body as { total_documents: number };
      assert.equal(list.total_documents, 3);
      const s = await api(server.baseUrl, key, 'POST', '/v3/docsearch/search', { query: 'trace-based JIT compilation TraceMonkey', format: 'json', min_relevance: 0 });
      assert.ok(!(s.body as { results: Array<{ doc_id: string }> }).results.some((r) => r.doc_id === id));
    });

    test('ingest from X-Remote-URL follows redirects and records canonical_url', async () => {
      const file = fs.readFileSync(dataPath('docs', 'md/wiki.md'));
      const srv = http.createServer((req, res) => {
        if (req.url === '/old') { res.writeHead(302, { location: '/files/wiki.md' }); res.end(); return; }
        if (req.url === '/download?id=7') { res.writeHead(302, { location: '/raw/notes%20v2.md' }); res.end(); return; }
        res.writeHead(200, { 'content-type': req.url!.startsWith('/raw/') ? 'application/octet-stream' : 'text/markdown' });
        res.end(file);
      });
      await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
      const port = (srv.address() as { port: number }).port;
      try {
        const r = await api(server.baseUrl, key, 'POST', '/v3/docsearch/ingest', undefined, { 'x-remote-url': `http://127.0.0.1:${port}/old` });
        assert.equal(r.status, 201, JSON.stringify(r.body));
        const done = await waitForJob(server.baseUrl, key, (r.body as { job_id: string }).job_id);
        assert.equal(done.status, 'done', JSON.stringify(done));
        const doc = (await api(server.baseUrl, key, 'GET', `/v3/docsearch/docs/${done.doc_id}`)).body as { canonical_url: string; filename: string };
        assert.equal(doc.canonical_url, `http://127.0.0.1:${port}/files/wiki.md`);
        // Name and type come from the final URL: a .md served as octet-stream behind a
        // redirect from an extension-less URL is read as Markdown, not refused with 415.
        const r2 = await api(server.baseUrl, key, 'POST', '/v3/docsearch/ingest', undefined, { 'x-remote-url': `http://127.0.0.1:${port}/download?id=7` });
        assert.equal(r2.status, 201, JSON.stringify(r2.body));
        const job2 = (r2.body as { job_id: string }).job_id;
        const done2 = await waitForJob(server.baseUrl, key, job2);
        assert.equal(done2.status, 'done', JSON.stringify(done2));
        const doc2 = (await api(server.baseUrl, key, 'GET', `/v3/docsearch/docs/${done2.doc_id}`)).body as { canonical_url: string; filename: string };
        assert.equal(doc2.filename, 'notes v2.md');
        assert.equal(doc2.canonical_url, `http://127.0.0.1:${port}/raw/notes%20v2.md`);
      } finally {
        srv.close();
      }
    });
  });
}
