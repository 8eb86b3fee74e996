// Document understanding through the real server: tables and figures become assets counted
// in table_count / image_count and returned by search with return_assets; pictures are OCR'd; X-Base-URL
// resolves linked images of Markdown through the SSRF guard; a zip bomb and a 10,000-page PDF fail
// their own jobs while the server keeps serving; deleting a document removes its assets.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { startTestServer, createProject, type TestServer } from './helpers/start-test-server.ts';
import { api, dataPath, ingestDocsDone, waitForJob, type JobStatus } from './helpers/api.ts';
import { manyPagePdf, zipBombDocx } from './helpers/pathological-files.ts';

interface Assets { images: Array<{ name: string; data_uri: string; alt?: string; page: number }>; tables: Array<{ name: string; markdown: string; rows: string[][]; page: number }> }

async function ingestBytes(server: TestServer, key: string, name: string, body: Buffer, headers: Record<string, string> = {}): Promise<JobStatus> {
  const res = await fetch(server.baseUrl + '/v3/docsearch/ingest', {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream', 'content-disposition': `attachment; filename="${name}"`, ...headers },
    body: body as unknown as BodyInit,
  });
  const job = (await res.json()) as { job_id: string };
  assert.equal(res.status, 201, JSON.stringify(job));
  return waitForJob(server.baseUrl, key, job.job_id, 180_000);
}

describe('assets and document understanding', () => {
  let server: TestServer;
  let key: string;
  let projectId: string;
  let imageHost: http.Server;
  let imageBase = '';
  const docs: Record<string, string> = {};
  const png = fs.readFileSync(dataPath('docs', 'html', 'example_image_01.png'));

  before(async () => {
    imageHost = http.createServer((req, res) => {
      if (req.url === '/docs/img/diagram.png') res.writeHead(200, { 'content-type': 'image/png' }).end(png);
      else res.writeHead(404).end();
    });
    await new Promise<void>((r) => imageHost.listen(0, '127.0.0.1', r));
    imageBase = `http://127.0.0.1:${(imageHost.address() as AddressInfo).port}/docs/`;
    server = await startTestServer({ backend: 'sqlite', env: { DOCSEARCH_ALLOWED_PRIVATE_HOSTS: '127.0.0.1', DOCSEARCH_PARSE_MAX_MEMORY_MB: '700' } });
    ({ apiKey: key, projectId } = await createProject(server, { product: 'docsearch' }));
    Object.assign(docs, await ingestDocsDone(server.baseUrl, key, ['pdf/layout-parser-paper-with-table.pdf', 'pdf/picture_classification.pdf', 'img/tika_testOCR.png']));
  });
  after(async () => {
    await server?.close();
    imageHost?.close();
  });

  test('image_count and table_count match the documents', async () => {
    const r = await api(server.baseUrl, key, 'GET', '/v3/docsearch/docs');
    const list = (r.body as { documents: Array<{ doc_id: string; image_count: number; table_count: number }> }).documents;
    const of = (f: string) => list.find((d) => d.doc_id === docs[f])!;
    assert.deepEqual([of('pdf/layout-parser-paper-with-table.pdf').table_count, of('pdf/layout-parser-paper-with-table.pdf').image_count], [1, 0]);
    assert.deepEqual([of('pdf/picture_classification.pdf').table_count, of('pdf/picture_classification.pdf').image_count], [0, 2]);
    assert.equal(of('img/tika_testOCR.png').image_count, 1);
  });

  test('return_assets returns the cited documents\' tables and figures', async () => {
    const q = { query: 'layout detection models in the LayoutParser model zoo PubLayNet', doc_filter: undefined };
    const plain = await api(server.baseUrl, key, 'POST', '/v3/docsearch/search', { query: q.query });
    assert.equal(plain.status, 200);
    assert.equal((plain.body as { assets?: unknown }).assets, undefined, 'no assets unless asked');
    const r = await api(server.baseUrl, key, 'POST', '/v3/docsearch/search', { query: q.query, return_assets: true });
    const body = r.body as { context: string; assets?: Record<string, Assets> };
    assert.match(body.context, /\| Dataset \| Base Model1 \| Large Model \| Notes \|/);
    const lp = body.assets?.[docs['pdf/layout-parser-paper-with-table.pdf']];
    assert.ok(lp, JSON.stringify(Object.keys(body.assets ?? {})));
    assert.equal(lp.tables.length, 1);
    assert.deepEqual(lp.tables[0].rows[1], ['PubLayNet [38]', 'F / M', 'M', 'Layouts of modern scientific documents']);
    assert.equal(lp.tables[0].page, 1);

    const figs = await api(server.baseUrl, key, 'POST', '/v3/docsearch/search', { query: 'This is an example image figure', return_assets: true });
    const pc = (figs.body as { assets?: Record<string, Assets> }).assets?.[docs['pdf/picture_classification.pdf']];
    assert.ok(pc, JSON.stringify(figs.body).slice(0, 500));
    assert.equal(pc.images.length, 2);
    for (const img of pc.images) {
      assert.match(img.data_uri, /^data:image\/png;base64,iVBORw0KGgo/);
      assert.match(img.alt ?? '', /^Figure \d: This is an example image\.$/);
    }
    assert.match((figs.body as { context: string }).context, /\[IMAGE: image-\d\.png\]/);
  });

  test('an OCR\'d picture is searchable', async () => {
    const r = await api(server.baseUrl, key, 'POST', '/v3/docsearch/search', { query: 'file contains some words', format: 'json' });
    const hits = (r.body as { results: Array<{ doc_id: string; content: string }> }).results;
    const hit = hits.find((h) => h.doc_id === docs['img/tika_testOCR.png']);
    assert.ok(hit, JSON.stringify(hits.map((h) => h.doc_id)));
    assert.match(hit.content, /This file contains some words/);
  });

  test('X-Base-URL resolves a relative image link of a Markdown file', async () => {
    const md = Buffer.from('# Pipeline diagram\n\nThe ingestion pipeline parses, chunks and embeds documents before indexing them.\n\n![Pipeline overview](img/diagram.png)\n\n![missing](img/none.png)\n');
    const done = await ingestBytes(server, key, 'pipeline.md', md, { 'x-base-url': imageBase });
    assert.equal(done.status, 'done', JSON.stringify(done));
    const r = await api(server.baseUrl, key, 'POST', '/v3/docsearch/search', { query: 'ingestion pipeline parses chunks embeds', return_assets: true, doc_ids: [done.doc_id] });
    const a = (r.body as { assets?: Record<string, Assets> }).assets?.[done.doc_id!];
    assert.ok(a, JSON.stringify(r.body).slice(0, 400));
    assert.deepEqual(a.images.map((i) => [i.name, i.alt]), [['diagram.png', 'Pipeline overview']]);
    assert.equal(Buffer.from(a.images[0].data_uri.split(',')[1], 'base64').equals(png), true);
  });

  test('a zip bomb and a 10,000-page PDF fail their own jobs; the server keeps working', async () => {
    const bomb = await ingestBytes(server, key, 'bomb.docx', await zipBombDocx(600));
    assert.equal(bomb.status, 'failed');
    assert.ok([413, 415].includes(bomb.code), JSON.stringify(bomb));
    const long = await ingestBytes(server, key, 'long.pdf', manyPagePdf(10_000));
    assert.equal(long.status, 'failed');
    assert.equal(long.code, 413);
    assert.equal(long.error?.code, 'document_too_large');
    const ok = await ingestBytes(server, key, 'short.pdf', manyPagePdf(3));
    assert.equal(ok.status, 'done', JSON.stringify(ok));
  });

  test('deleting a document removes its assets', async () => {
    const id = docs['pdf/picture_classification.pdf'];
    const dir = path.join(server.dataDir, 'blobs', 'projects', projectId, 'assets', id);
    assert.ok(fs.existsSync(path.join(dir, 'manifest.json')));
    const r = await api(server.baseUrl, key, 'DELETE', `/v3/docsearch/docs/${id}`);
    assert.equal(r.status, 200);
    const deadline = Date.now() + 20_000;
    while (fs.existsSync(path.join(dir, 'manifest.json')) && Date.now() < deadline) await new Promise((res) => setTimeout(res, 100));
    assert.ok(!fs.existsSync(path.join(dir, 'manifest.json')));
  });
});
