// The S3 blob store against a real S3-protocol server (s3rver behind a SigV4-checking proxy,
// test/helpers/s3-server.ts): the BlobStore contract of the local store — streamed puts, a blob visible
// under its key only once complete, nothing left after the size limit trips — plus multipart uploads of
// large originals and paginated prefix deletes.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import { ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { startS3Server, type S3TestServer } from './helpers/s3-server.ts';
import { S3BlobStore, createS3Client } from '../src/storage/s3-blob-store.ts';

const MB = 1024 * 1024;

/** A stream of `bytes` pseudo-random bytes in 64 KiB chunks, and their SHA-256. */
function randomStream(bytes: number): { stream: Readable; sha256: string } {
  const data = crypto.randomBytes(bytes);
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes; i += 64 * 1024) chunks.push(data.subarray(i, i + 64 * 1024));
  return { stream: Readable.from(chunks), sha256: crypto.createHash('sha256').update(data).digest('hex') };
}

class TooLarge extends Error {}

describe('S3 blob store on an S3-protocol server', () => {
  let s3: S3TestServer;
  let client: S3Client;
  let store: S3BlobStore;
  const bucket = 'blobs-test';

  async function allKeys(): Promise<string[]> {
    const r = await client.send(new ListObjectsV2Command({ Bucket: bucket }));
    return (r.Contents ?? []).map((o) => o.Key!).sort();
  }

  before(async () => {
    s3 = await startS3Server();
    await s3.createBucket(bucket);
    client = createS3Client({ endpoint: s3.endpoint, region: s3.region, accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey, forcePathStyle: true, allowHttp: true });
    store = new S3BlobStore({ client, bucket, prefix: 'ds/blobs' });
  });
  after(async () => {
    await store?.close();
    await s3?.close();
  });

  test('put, get, exists and delete under the configured prefix; a missing blob is ENOENT', async () => {
    const n = await store.put('projects/p/originals/a.txt', Readable.from([Buffer.from('hello '), Buffer.from('world')]));
    assert.equal(n, 11);
    await store.putBuffer('projects/p/assets/d/manifest.json', Buffer.from('{"images":[]}'));
    assert.equal((await store.get('projects/p/originals/a.txt')).toString(), 'hello world');
    assert.equal(await store.exists('projects/p/assets/d/manifest.json'), true);
    assert.deepEqual(await allKeys(), ['ds/blobs/projects/p/assets/d/manifest.json', 'ds/blobs/projects/p/originals/a.txt']);
    await store.delete('projects/p/originals/a.txt');
    await store.delete('projects/p/originals/a.txt'); // idempotent
    assert.equal(await store.exists('projects/p/originals/a.txt'), false);
    await assert.rejects(store.get('projects/p/originals/a.txt'), (err: NodeJS.ErrnoException) => err.code === 'ENOENT');
    await assert.rejects(store.exists('../escape'), /invalid blob key/);
    assert.equal(await store.put('projects/p/originals/empty', Readable.from([])), 0, 'an empty body is a 0-byte blob');
    assert.equal((await store.get('projects/p/originals/empty')).length, 0);
    await store.deletePrefix('projects/p');
    assert.deepEqual(await allKeys(), []);
  });

  test('a large original goes up as a multipart upload and is visible only once complete', async () => {
    const data = crypto.randomBytes(12 * MB);
    const body = new PassThrough();
    const before = s3.requests.length;
    const done = store.put('projects/p/originals/big.pdf', body);
    body.write(data.subarray(0, 6 * MB));
    // Wait until the first part has been uploaded: the object must still be invisible.
    for (let i = 0; i < 200 && !s3.requests.slice(before).some((r) => /partNumber=1\b/.test(r)); i++) await new Promise((r) => setTimeout(r, 25));
    assert.ok(s3.requests.slice(before).some((r) => /partNumber=1\b/.test(r)), 'first part uploaded');
    assert.equal(await store.exists('projects/p/originals/big.pdf'), false);
    body.end(data.subarray(6 * MB));
    assert.equal(await done, 12 * MB);
    const log = s3.requests.slice(before);
    assert.ok(log.some((r) => r.startsWith('POST ') && r.includes('uploads')), 'CreateMultipartUpload');
    assert.equal(log.filter((r) => r.startsWith('PUT ') && /partNumber=\d/.test(r)).length, 3, '12 MB in 5 MiB parts');
    const got = await store.get('projects/p/originals/big.pdf');
    assert.equal(crypto.createHash('sha256').update(got).digest('hex'), crypto.createHash('sha256').update(data).digest('hex'));
    await store.delete('projects/p/originals/big.pdf');
  });

  test('the size limit aborts a small and a multipart upload with onLimit\'s error and leaves nothing', async () => {
    const small = randomStream(200 * 1024);
    await assert.rejects(store.put('projects/q/originals/s.bin', small.stream, { maxBytes: 100 * 1024, onLimit: () => new TooLarge('small') }), TooLarge);
    const before = s3.requests.length;
    const big = randomStream(14 * MB);
    await assert.rejects(store.put('projects/q/originals/b.bin', big.stream, { maxBytes: 11 * MB, onLimit: () => new TooLarge('big') }), TooLarge);
    const log = s3.requests.slice(before);
    assert.ok(log.some((r) => r.startsWith('PUT ') && /partNumber=1\b/.test(r)), 'the big body had started a multipart upload');
    assert.ok(log.some((r) => r.startsWith('DELETE ') && r.includes('uploadId=')), 'AbortMultipartUpload sent');
    assert.ok(!log.some((r) => r.startsWith('POST ') && r.includes('uploadId=')), 'never completed');
    assert.deepEqual(await allKeys(), []);
  });

  test('a failing source stream (client gone) fails the put with its own error and writes nothing', async () => {
    const body = new PassThrough();
    const done = store.put('projects/q/originals/c.bin', body);
    body.write(crypto.randomBytes(64 * 1024));
    setTimeout(() => body.destroy(new Error('client aborted')), 20);
    await assert.rejects(done, /client aborted/);
    assert.deepEqual(await allKeys(), []);
  });

  test('deletePrefix pages through more than 1000 keys and spares neighbouring prefixes', async () => {
    const objects: Array<[string, string]> = [];
    for (let i = 0; i < 1005; i++) objects.push([`ds/blobs/projects/p1/assets/d/${String(i).padStart(4, '0')}.png`, 'x']);
    objects.push(['ds/blobs/projects/p10/originals/keep.txt', 'keep'], ['ds/blobs/projects/p2/originals/keep.txt', 'keep']);
    await s3.putObjects(bucket, objects);
    const before = s3.requests.length;
    await store.deletePrefix('projects/p1/');
    const lists = s3.requests.slice(before).filter((r) => r.startsWith('GET ') && r.includes('list-type=2'));
    assert.ok(lists.length >= 2, `paginated listing (${lists.length} pages)`);
    assert.deepEqual(await allKeys(), ['ds/blobs/projects/p10/originals/keep.txt', 'ds/blobs/projects/p2/originals/keep.txt']);
    await store.deletePrefix('projects'); // idempotent on what is left, and on nothing
    await store.deletePrefix('projects');
    assert.deepEqual(await allKeys(), []);
  });

  test('probe() answers for the bucket and fails for a missing bucket or a wrong secret', async () => {
    await store.probe();
    assert.equal(store.describe(), 's3://blobs-test/ds/blobs/');
    const missing = new S3BlobStore({ client, bucket: 'no-such-bucket', prefix: '' });
    await assert.rejects(missing.probe(), (err: { $metadata?: { httpStatusCode?: number } }) => err.$metadata?.httpStatusCode === 404);
    const wrong = new S3BlobStore({ client: createS3Client({ endpoint: s3.endpoint, region: s3.region, accessKeyId: s3.accessKeyId, secretAccessKey: 'wrong', forcePathStyle: true, allowHttp: true }), bucket, prefix: '' });
    await assert.rejects(wrong.probe(), (err: { $metadata?: { httpStatusCode?: number } }) => err.$metadata?.httpStatusCode === 403);
    await assert.rejects(wrong.putBuffer('x', Buffer.from('y')), /signature/i);
    await wrong.close();
  });
});
