// The whole service on object storage: PostgreSQL control plane, blobs AND the LanceDB
// data plane on a real S3-protocol server (s3rver behind a SigV4-checking proxy that also enforces
// If-None-Match, test/helpers/s3-server.ts), configured only through DOCSEARCH_BLOB_URI / DOCSEARCH_INDEX_URI
// and DOCSEARCH_S3_*. Real documents are ingested, searched, deleted; /readyz reports each store; a
// missing bucket stops start-up with the variable named.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { startTestServer, createProject, type TestServer } from './helpers/start-test-server.ts';
import { api, ingestDocsDone, ingestStream } from './helpers/api.ts';
import { startS3Server, type S3TestServer } from './helpers/s3-server.ts';
import { createS3Client } from '../src/storage/s3-blob-store.ts';

const BUCKET = 'docsearch-data';

describe('service on PostgreSQL + S3 (blobs and index in one bucket)', () => {
  let s3: S3TestServer;
  let client: S3Client;
  let server: TestServer;
  let key: string;
  let projectId: string;
  let namespace: string;
  const docs: Record<string, string> = {};

  const s3Env = () => ({
    DOCSEARCH_S3_ENDPOINT: s3.endpoint,
    DOCSEARCH_S3_REGION: s3.region,
    DOCSEARCH_S3_ACCESS_KEY_ID: s3.accessKeyId,
    DOCSEARCH_S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
  });

  async function keys(prefix: string): Promise<string[]> {
    const out: string[] = [];
    let ContinuationToken: string | undefined;
    do {
      const r = await client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix, ContinuationToken }));
      out.push(...(r.Contents ?? []).map((o) => o.Key!));
      ContinuationToken = r.IsTruncated ? r.NextContinuationToken : undefined;
    } while (ContinuationToken);
    return out.sort();
  }

  before(async () => {
    s3 = await startS3Server();
    await s3.createBucket(BUCKET);
    client = createS3Client({ endpoint: s3.endpoint, region: s3.region, accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey, forcePathStyle: true, allowHttp: true });
    server = await startTestServer({
      backend: 'postgres',
      env: { ...s3Env(), DOCSEARCH_BLOB_URI: `s3://${BUCKET}/blobs`, DOCSEARCH_INDEX_URI: `s3://${BUCKET}/index`, DOCSEARCH_PARSE_MAX_MEMORY_MB: '700', DOCSEARCH_MAX_UPLOAD_BYTES: String(7 * 1024 * 1024) },
    });
    ({ apiKey: key, projectId, namespace } = await createProject(server, { product: 'docsearch' }));
    Object.assign(docs, await ingestDocsDone(server.baseUrl, key, ['pdf/tracemonkey.pdf', 'pdf/picture_classification.pdf']));
  });
  after(async () => {
    await server?.close();
    client?.destroy();
    await s3?.close();
  });

  test('originals, extracted images and the namespace table are objects in the bucket; nothing is on local disk', async () => {
    const blobs = await keys('blobs/');
    assert.ok(blobs.length >= 3, JSON.stringify(blobs));
    assert.ok(blobs.every((k) => k.startsWith(`blobs/projects/${projectId}/`)), JSON.stringify(blobs));
    assert.ok(blobs.some((k) => k.includes(`/assets/${docs['pdf/picture_classification.pdf']}/`)), 'images of picture_classification.pdf');
    const index = await keys(`index/${namespace}.lance/`);
    assert.ok(index.some((k) => k.includes('/_versions/')) && index.some((k) => k.includes('/data/')), JSON.stringify(index.slice(0, 10)));
    assert.equal(fs.existsSync(path.join(server.dataDir, 'lance')), false, 'no local LanceDB directory');
    assert.equal(fs.existsSync(path.join(server.dataDir, 'blobs')), false, 'no local blob directory');
  });

  test('search finds the document whose chunks live on S3, with its figures read back from the bucket', async () => {
    const r = await api(server.baseUrl, key, 'POST', '/v3/docsearch/search', { query: 'trace-based JIT compilation for dynamic languages', format: 'json' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const results = (r.body as { results: Array<{ doc_id: string; scores: Record<string, number | null> }> }).results;
    assert.equal(results[0].doc_id, docs['pdf/tracemonkey.pdf']);
    assert.ok(results[0].scores.bm25 !== null && results[0].scores.ann !== null, JSON.stringify(results[0].scores));
    const a = await api(server.baseUrl, key, 'POST', '/v3/docsearch/search', { query: 'picture classification figures', return_assets: true, doc_filter: docs['pdf/picture_classification.pdf'] });
    assert.equal(a.status, 200, JSON.stringify(a.body));
    const assets = (a.body as { assets?: Record<string, { images?: unknown[] }> }).assets ?? {};
    const images = Object.values(assets).flatMap((x) => x.images ?? []);
    assert.ok(images.length >= 1, `figures returned from the blob store: ${JSON.stringify(a.body).slice(0, 300)}`);
    // The index read the table through its read cache, and /metrics says how (results by tier).
    const metrics = await (await fetch(`${server.baseUrl}/metrics`)).text();
    const reads = (result: string) => Number(new RegExp(`^docsearch_index_cache_reads_total\\{result="${result}"\\} (\\d+)`, 'm').exec(metrics)?.[1] ?? NaN);
    assert.ok(reads('miss') > 0, `cache misses (reads from the bucket) reported: ${metrics.match(/^docsearch_index_cache.*$/gm)?.join(' | ')}`);
    assert.ok(reads('memory_hit') + reads('disk_hit') > 0, 'cache hits reported');
  });

  test('/readyz reports the database, the bucket and the index as reachable, with their locations', async () => {
    const r = await api(server.baseUrl, undefined, 'GET', '/readyz');
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const body = r.body as { status: string; role: string; checks: Record<string, { status: string; latency_ms: number; location?: string }> };
    assert.equal(body.status, 'ready');
    assert.equal(body.role, 'all');
    assert.deepEqual(Object.keys(body.checks).sort(), ['blob_store', 'database', 'index']);
    for (const c of Object.values(body.checks)) assert.equal(c.status, 'ok');
    assert.equal(body.checks.blob_store.location, `s3://${BUCKET}/blobs/`);
    assert.equal(body.checks.index.location, `s3://${BUCKET}/index`);
  });

  test('deleting a document removes its chunks from search and its blobs from the bucket', async () => {
    const id = docs['pdf/picture_classification.pdf'];
    assert.ok((await keys(`blobs/projects/${projectId}/assets/${id}/`)).length > 0);
    const del = await api(server.baseUrl, key, 'DELETE', `/v3/docsearch/docs/${id}`);
    assert.equal(del.status, 200, JSON.stringify(del.body));
    assert.ok((del.body as { vectors_deleted: number }).vectors_deleted > 0);
    assert.deepEqual(await keys(`blobs/projects/${projectId}/assets/${id}/`), []);
    const s = await api(server.baseUrl, key, 'POST', '/v3/docsearch/search', { query: 'picture classification', format: 'json', min_relevance: 0 });
    assert.ok(!(s.body as { results: Array<{ doc_id: string }> }).results.some((r) => r.doc_id === id));
  });

  test('a streamed upload past DOCSEARCH_MAX_UPLOAD_BYTES (multipart by then) is refused and leaves no object', async () => {
    const before = await keys(`blobs/projects/${projectId}/originals/`);
    const requestsBefore = s3.requests.length;
    const res = await ingestStream(server.baseUrl, key, 12 * 1024 * 1024);
    if (!(res instanceof Error)) assert.equal(res.status, 413); // the server may close the socket before the client finishes
    assert.ok(s3.requests.slice(requestsBefore).some((r) => /partNumber=1\b/.test(r)), 'the first 5 MiB part had gone up');
    assert.deepEqual(await keys(`blobs/projects/${projectId}/originals/`), before);
  });

  test('deleting the project purges its prefix of the bucket and drops its table', async () => {
    const del = await api(server.baseUrl, server.accountKey, 'DELETE', `/v3/projects/${projectId}`);
    assert.equal(del.status, 200, JSON.stringify(del.body));
    assert.deepEqual(await keys(`blobs/projects/${projectId}/`), []);
    assert.deepEqual(await keys(`index/${namespace}.lance/`), []);
  });

  test('with the S3 server gone, /readyz is 503 naming the blob store and the index, the database still ok', async () => {
    await s3.close();
    const r = await api(server.baseUrl, undefined, 'GET', '/readyz');
    assert.equal(r.status, 503, JSON.stringify(r.body));
    assert.equal(r.headers.get('retry-after'), '5');
    const body = r.body as { code: string; message: string; details: { checks: Record<string, { status: string; error?: string }> } };
    assert.equal(body.code, 'backend_unavailable');
    assert.equal(body.details.checks.database.status, 'ok');
    assert.equal(body.details.checks.blob_store.status, 'failed');
    assert.equal(body.details.checks.index.status, 'failed');
    assert.match(body.message, /blob_store unreachable .*index unreachable/);
  });
});

describe('start-up refuses an unusable bucket', () => {
  let s3: S3TestServer;
  before(async () => { s3 = await startS3Server(); await s3.createBucket('present'); });
  after(async () => s3?.close());

  test('a missing blob bucket or a wrong secret stops createApp with the variable named', async () => {
    const base = { DOCSEARCH_S3_ENDPOINT: s3.endpoint, DOCSEARCH_S3_ACCESS_KEY_ID: s3.accessKeyId, DOCSEARCH_S3_SECRET_ACCESS_KEY: s3.secretAccessKey };
    await assert.rejects(startTestServer({ workers: false, env: { ...base, DOCSEARCH_BLOB_URI: 's3://absent-bucket/b' } }),
      /DOCSEARCH_BLOB_URI\) is not reachable: .*404/);
    await assert.rejects(startTestServer({ workers: false, env: { ...base, DOCSEARCH_S3_SECRET_ACCESS_KEY: 'wrong', DOCSEARCH_BLOB_URI: 's3://present/b' } }),
      /DOCSEARCH_BLOB_URI\) is not reachable: .*403/);
    await assert.rejects(startTestServer({ workers: false, env: { ...base, DOCSEARCH_INDEX_URI: 's3://absent-bucket/i' } }),
      /index at s3:\/\/absent-bucket\/i \(DOCSEARCH_INDEX_URI\) is not reachable: NoSuchBucket: HTTP 404$/);
  });
});
