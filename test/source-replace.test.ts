// Source identity end to end through the HTTP API, on SQLite and PostgreSQL: ingesting the same
// X-Source-ID again replaces the document under its doc_id while searches run — no search ever shows
// both versions of it or neither (checked over at least 1,000 searches) —, the same bytes again are a
// no-op answered with the existing document, attributes, unencrypted strings and assets follow the new
// version, a remote URL is its own source, and plain uploads without a source keep making new documents.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestServer, createProject, BACKENDS, type TestServer } from './helpers/start-test-server.ts';
import { api, waitForJob } from './helpers/api.ts';

/** Version `v` of the document: the same words every version, one marker word that names the version. */
const version = (v: number) => `# Field survey\n\nThe lichen survey of the northern ridge counted specimens along the trail. Marker verzorb${v}x closes revision ${v}.\n`;
const markers = (text: string) => new Set([...text.matchAll(/verzorb(\d+)x/g)].map((m) => m[1]));

async function upload(baseUrl: string, key: string, text: string, headers: Record<string, string> = {}): Promise<string> {
  const res = await fetch(`${baseUrl}/v3/docsearch/ingest`, {
    method: 'POST', body: text,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="survey.md"', ...headers },
  });
  const body = await res.json() as { job_id: string };
  assert.equal(res.status, 201, JSON.stringify(body));
  const done = await waitForJob(baseUrl, key, body.job_id);
  assert.equal(done.status, 'done', JSON.stringify(done));
  return done.doc_id!;
}

for (const backend of BACKENDS) {
  describe(`source identity and replacement (${backend})`, () => {
    let server: TestServer;
    let site: http.Server;
    let siteText = 'first';
    before(async () => {
      site = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/markdown' }).end(`# Remote page\n\nThe remote page says ${siteText} edition of quorvex.\n`));
      await new Promise<void>((r) => site.listen(0, '127.0.0.1', () => r()));
      server = await startTestServer({ backend, env: { DOCSEARCH_ALLOWED_PRIVATE_HOSTS: '127.0.0.1' } });
    });
    after(async () => {
      await server?.close();
      await new Promise((r) => site?.close(r));
    });

    test('re-ingesting a source replaces it under concurrent searches; never zero or two versions', async () => {
      const { apiKey: key } = await createProject(server);
      const docId = await upload(server.baseUrl, key, version(0), { 'x-source-id': 'surveys/ridge.md' });
      // Same bytes again: the same document, nothing re-indexed.
      const before = (await api(server.baseUrl, key, 'GET', `/v3/docsearch/docs/${docId}`)).body as any;
      assert.equal(await upload(server.baseUrl, key, version(0), { 'x-source-id': 'surveys/ridge.md' }), docId);
      const same = (await api(server.baseUrl, key, 'GET', `/v3/docsearch/docs/${docId}`)).body as any;
      assert.equal(same.source_job_id, before.source_job_id);

      const REPLACEMENTS = 8;
      const MIN_SEARCHES = 1000;
      let searches = 0;
      let writing = true;
      const bad: string[] = [];
      const seen = new Set<string>();
      const searcher = async () => {
        while (writing || searches < MIN_SEARCHES) {
          const r = await api(server.baseUrl, key, 'POST', '/v3/docsearch/search', { query: 'lichen survey northern ridge specimens', format: 'json', min_relevance: 0 });
          assert.equal(r.status, 200, JSON.stringify(r.body));
          const hits = ((r.body as any).results as any[]).filter((h) => h.doc_id === docId);
          const found = markers(hits.map((h) => h.content).join('\n'));
          searches++;
          if (found.size !== 1) bad.push(`search ${searches}: versions ${JSON.stringify([...found])} in ${hits.length} hit(s)`);
          for (const v of found) seen.add(v);
        }
      };
      const loops = Array.from({ length: 3 }, searcher);
      try {
        for (let v = 1; v <= REPLACEMENTS; v++) {
          assert.equal(await upload(server.baseUrl, key, version(v), { 'x-source-id': 'surveys/ridge.md', 'x-attributes': JSON.stringify({ revision: v }) }), docId);
        }
      } finally {
        writing = false;
        await Promise.all(loops);
      }
      assert.deepEqual(bad, [], `${bad.length} of ${searches} searches saw zero or two versions`);
      assert.ok(searches >= MIN_SEARCHES);
      assert.ok(seen.size >= 2, `searches saw versions ${[...seen]}`);
      // One document, at its last version, with the last version's attributes.
      const list = (await api(server.baseUrl, key, 'GET', '/v3/docsearch/docs')).body as any;
      assert.equal(list.total_documents, 1);
      const final = await api(server.baseUrl, key, 'POST', '/v3/docsearch/search', {
        query: 'lichen survey', format: 'json', min_relevance: 0, attribute_filters: [{ attr: 'revision', op: 'eq', value: REPLACEMENTS }],
      });
      assert.deepEqual([...markers(((final.body as any).results as any[]).map((h) => h.content).join('\n'))], [String(REPLACEMENTS)]);
      const old = await api(server.baseUrl, key, 'POST', '/v3/docsearch/search', {
        query: 'lichen survey', format: 'json', min_relevance: 0, attribute_filters: [{ attr: 'revision', op: 'eq', value: 1 }],
      });
      assert.equal((old.body as any).results.length, 0);
      const info = (await api(server.baseUrl, key, 'GET', `/v3/docsearch/docs/${docId}`)).body as any;
      assert.notEqual(info.source_job_id, before.source_job_id);
    });

    test('assets, unencrypted strings and counts follow the new version', async () => {
      const { apiKey: key } = await createProject(server);
      const withTable = '# Harvest\n\nThe orchard harvest of plumvex apples by row.\n\n| row | crates |\n| --- | --- |\n| north | 12 |\n| south | 9 |\n';
      const plain = '# Harvest\n\nThe orchard harvest of plumvex apples was not counted by row this year.\n';
      const search = async (extra: Record<string, unknown>) => (await api(server.baseUrl, key, 'POST', '/v3/docsearch/search',
        { query: 'orchard harvest plumvex apples', format: 'json', min_relevance: 0, ...extra })).body as any;
      // Assets come with the prompt-ready response.
      const assets = async () => ((await api(server.baseUrl, key, 'POST', '/v3/docsearch/search',
        { query: 'orchard harvest plumvex apples', min_relevance: 0, return_assets: true })).body as any).assets;
      const docId = await upload(server.baseUrl, key, withTable, { 'x-source-id': 'harvest', 'x-unencrypted-strings': JSON.stringify({ season: 'spring' }) });
      assert.equal((await assets())?.[docId]?.tables?.length, 1);
      assert.equal(((await api(server.baseUrl, key, 'GET', `/v3/docsearch/docs/${docId}`)).body as any).table_count, 1);
      assert.equal(await upload(server.baseUrl, key, plain, { 'x-source-id': 'harvest', 'x-unencrypted-strings': JSON.stringify({ season: 'autumn' }) }), docId);
      const after = await search({});
      assert.equal((await assets())?.[docId]?.tables?.length ?? 0, 0, 'the old version\'s table is gone');
      assert.match(after.results.map((h: any) => h.content).join('\n'), /not counted/);
      assert.equal(((await api(server.baseUrl, key, 'GET', `/v3/docsearch/docs/${docId}`)).body as any).table_count, 0);
      assert.equal((await search({ unencrypted_strings_match: { season: 'spring' } })).results.length, 0);
      assert.equal((await search({ unencrypted_strings_match: { season: 'autumn' } })).results.length > 0, true);
      // Only a new string makes the same bytes a change: the document is replaced, not left alone.
      const info = (await api(server.baseUrl, key, 'GET', `/v3/docsearch/docs/${docId}`)).body as any;
      assert.equal(await upload(server.baseUrl, key, plain, { 'x-source-id': 'harvest', 'x-unencrypted-strings': JSON.stringify({ season: 'winter' }) }), docId);
      assert.notEqual(((await api(server.baseUrl, key, 'GET', `/v3/docsearch/docs/${docId}`)).body as any).source_job_id, info.source_job_id);
    });

    test('a remote URL is its source; plain uploads stay separate documents; a bad X-Source-ID is refused', async () => {
      const { apiKey: key } = await createProject(server);
      const url = `http://127.0.0.1:${(site.address() as AddressInfo).port}/page.md`;
      const ingestUrl = async () => {
        const r = await api(server.baseUrl, key, 'POST', '/v3/docsearch/ingest', undefined, { 'x-remote-url': url });
        assert.equal(r.status, 201, JSON.stringify(r.body));
        return (await waitForJob(server.baseUrl, key, (r.body as any).job_id)).doc_id!;
      };
      const a = await ingestUrl();
      siteText = 'second';
      assert.equal(await ingestUrl(), a);
      const r = await api(server.baseUrl, key, 'POST', '/v3/docsearch/search', { query: 'remote page quorvex edition', format: 'json', min_relevance: 0 });
      assert.match(((r.body as any).results as any[]).map((h) => h.content).join('\n'), /second edition/);
      assert.doesNotMatch(((r.body as any).results as any[]).map((h) => h.content).join('\n'), /first edition/);

      const p1 = await upload(server.baseUrl, key, version(7));
      const p2 = await upload(server.baseUrl, key, version(7));
      assert.notEqual(p1, p2);
      assert.equal(((await api(server.baseUrl, key, 'GET', '/v3/docsearch/docs')).body as any).total_documents, 3);

      const bad = await fetch(`${server.baseUrl}/v3/docsearch/ingest`, {
        method: 'POST', body: 'x',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="a.md"', 'x-source-id': 'a'.repeat(1025) },
      });
      assert.equal(bad.status, 400);
      assert.equal(((await bad.json()) as any).code, 'invalid_header');
      assert.equal(((await api(server.baseUrl, key, 'GET', '/v3/docsearch/docs')).body as any).total_documents, 3);
    });
  });
}
