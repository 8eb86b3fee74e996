// Online reindex end to end through the HTTP API, on SQLite and PostgreSQL with the real LanceDB index:
// POST /docsearch/reindex rebuilds the namespace into a new generation while searches run — every search
// answers, none is empty or shows a chunk twice — and the results afterwards are those before; a document
// ingested and one deleted while it runs are right afterwards; a second reindex meanwhile is 409
// reindex_running; GET /docsearch/index reports the generation and what built it.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, createProject, BACKENDS, type TestServer } from './helpers/start-test-server.ts';
import { api, uploadText, waitForJob } from './helpers/api.ts';
import { markerOf, syntheticDoc } from './helpers/synthetic-docs.ts';

const DOCS = 30;
const QUERIES = ['river stone market', 'winter signal harbor garden', 'copper forest valley lantern', 'orchard bridge canvas', 'velvet timber saddle pepper'];

/** One search's hits as comparable strings (document, chunk, rounded score). */
async function hits(baseUrl: string, key: string, query: string): Promise<string[]> {
  const r = await api(baseUrl, key, 'POST', '/v3/docsearch/search', { query, format: 'json', min_relevance: 0 });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return ((r.body as any).results as any[]).map((h) => `${h.doc_id}:${(h.chunk_indices as number[]).join('.')}:${Number(h.score).toFixed(4)}`);
}

async function reindexDone(baseUrl: string, key: string): Promise<any> {
  const r = await api(baseUrl, key, 'POST', '/v3/docsearch/reindex');
  assert.equal(r.status, 202, JSON.stringify(r.body));
  return r.body;
}

for (const backend of BACKENDS) {
  describe(`online reindex (${backend})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ backend, env: { DOCSEARCH_REINDEX_RETIRE_MS: '200' } });
    });
    after(async () => server?.close());

    test('searches answer throughout, identical results after; ingest and delete during it are right', { timeout: 240_000 }, async () => {
      const { apiKey: key } = await createProject(server);
      const ids: string[] = [];
      for (let i = 0; i < DOCS; i += 10) {
        ids.push(...await Promise.all(Array.from({ length: Math.min(10, DOCS - i) }, (_, j) => uploadText(server.baseUrl, key, syntheticDoc(markerOf(i + j), i + j), `r${i + j}.md`))));
      }
      const described = (await api(server.baseUrl, key, 'GET', '/v3/docsearch/index')).body as any;
      assert.equal(described.generation, 0);
      assert.equal(described.needs_reindex, false, JSON.stringify(described));
      assert.equal(described.reindex, null);
      const baseline = await Promise.all(QUERIES.map((q) => hits(server.baseUrl, key, q)));

      // Reindex under three search loops; nothing else changes, so every search must equal the baseline.
      let running = true;
      let searches = 0;
      const bad: string[] = [];
      const loop = async (n: number) => {
        for (let i = n; running; i++) {
          const q = i % QUERIES.length;
          const got = await hits(server.baseUrl, key, QUERIES[q]);
          searches++;
          const regions = got.map((h) => h.split(':').slice(0, 2).join(':'));
          const chunks = got.flatMap((h) => { const [doc, idx] = h.split(':'); return idx.split('.').map((c) => `${doc}:${c}`); });
          if (got.length === 0) bad.push(`search ${searches}: empty`);
          else if (new Set(chunks).size !== chunks.length) bad.push(`search ${searches}: a chunk twice`);
          else if (regions.join() !== baseline[q].map((h) => h.split(':').slice(0, 2).join(':')).join()) bad.push(`search ${searches}: other hits`);
        }
      };
      const loops = [0, 1, 2].map(loop);
      const job = await reindexDone(server.baseUrl, key);
      const second = await api(server.baseUrl, key, 'POST', '/v3/docsearch/reindex');
      assert.equal(second.status, 409, JSON.stringify(second.body));
      assert.equal((second.body as any).code, 'reindex_running');
      assert.equal((second.body as any).details?.job_id, job.job_id);
      const done = await waitForJob(server.baseUrl, key, job.job_id, 180_000);
      running = false;
      await Promise.all(loops);
      assert.equal(done.status, 'done', JSON.stringify(done));
      assert.deepEqual(bad.slice(0, 5), [], `${bad.length} of ${searches} searches went wrong`);
      assert.ok(searches > 0);
      assert.deepEqual(await Promise.all(QUERIES.map((q) => hits(server.baseUrl, key, q))), baseline);
      const after1 = (await api(server.baseUrl, key, 'GET', '/v3/docsearch/index')).body as any;
      assert.equal(after1.generation, 1);
      assert.equal(after1.chunks, described.chunks);
      assert.equal(after1.built_with.format, after1.running.format);
      const project = (await api(server.baseUrl, key, 'GET', '/v3/project')).body as any;
      assert.deepEqual(project.index, { generation: 1, needs_reindex: false, reasons: [] });

      // A document ingested and one deleted while the next reindex runs.
      const job2 = await reindexDone(server.baseUrl, key);
      const newMarker = markerOf(1000);
      const [newId, deleted] = await Promise.all([
        uploadText(server.baseUrl, key, syntheticDoc(newMarker, 1000), 'new.md'),
        api(server.baseUrl, key, 'DELETE', `/v3/docsearch/docs/${ids[3]}`),
      ]);
      assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
      const during = await api(server.baseUrl, key, 'GET', `/v3/jobs/${job2.job_id}/status`);
      const done2 = await waitForJob(server.baseUrl, key, job2.job_id, 180_000);
      assert.equal(done2.status, 'done', JSON.stringify(done2));
      const found = await hits(server.baseUrl, key, newMarker);
      assert.ok(found.length > 0 && found.every((h) => h.startsWith(`${newId}:`)), `the new document is found: ${found}`);
      assert.deepEqual(await hits(server.baseUrl, key, markerOf(3)), [], 'the deleted document is gone');
      const after2 = (await api(server.baseUrl, key, 'GET', '/v3/docsearch/index')).body as any;
      assert.equal(after2.generation, 2);
      const list = (await api(server.baseUrl, key, 'GET', '/v3/docsearch/docs')).body as any;
      assert.equal(list.total_documents, DOCS);
      // Each document's chunks exactly once in the serving generation.
      const rows = await server.services.index.listDocJobs(after2.namespace);
      assert.equal(new Set(rows.map((r) => r.doc_id)).size, rows.length, 'one job per document');
      assert.equal(rows.reduce((n, r) => n + r.chunks, 0), after2.chunks);
      assert.ok(!rows.some((r) => r.doc_id === ids[3]));
      console.log(`# ${backend}: ${searches} searches during the first reindex; the second was ${(during.body as any).status} when the ingest and delete had finished`);
      const readyz = (await api(server.baseUrl, undefined, 'GET', '/readyz')).body as any;
      assert.equal(readyz.index_builds.needs_reindex, 0, JSON.stringify(readyz.index_builds));
    });
  });
}
