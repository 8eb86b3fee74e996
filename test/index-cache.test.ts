// The index read cache (src/storage/object-cache*.ts) against the real S3-protocol test server: two
// LanceDB connections, each behind its own cache and sharing one cache directory as two processes of a
// node would, one writing and one reading. The reader never answers from a version older than the one
// it was told to read (appends, deletes, a drop and re-create under the same name), warm reads of the
// Lance files cost no request to the store, a restarted cache answers from disk, and the endpoint
// refuses requests without its token.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import { openLanceIndex, type LanceNamespaceIndex } from '../src/storage/lance-index.ts';
import { ObjectCache } from '../src/storage/object-cache.ts';
import type { ChunkRecord, EmbeddingSignature } from '../src/storage/namespace-index.ts';
import type { S3Settings } from '../src/internal/storage-config.ts';
import { startS3Server, type S3TestServer } from './helpers/s3-server.ts';

const DIM = 4;
const SIG: EmbeddingSignature = { provider: 'test', model: 'cache-4', dimension: DIM };
const URI = 's3://cache-test/index';

let s3: S3TestServer;
let settings: S3Settings;
let dir: string;
const opened: Array<{ index: LanceNamespaceIndex }> = [];

function rows(doc: string, n: number, word: string): ChunkRecord[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `${doc}:${i}`, doc_id: doc, source_job_id: `job-${doc}`, chunk_index: i, chunkset_index: 0, page_start: 1, page_end: 1,
    heading_path: doc, content: `${word} ${doc} ${i}`, tokens: `${word} ${doc} c${i}`, token_count: 3,
    vector: Float32Array.from({ length: DIM }, (_, k) => (k === i % DIM ? 1 : 0.1)),
  }));
}

/** A LanceDB connection through its own cache, as one process of a node has (the cache directory is shared). */
async function connect(): Promise<{ index: LanceNamespaceIndex; cache: ObjectCache }> {
  const cache = await ObjectCache.start({ s3: settings, memoryBytes: 8 << 20, diskBytes: 64 << 20, dir: path.join(dir, 'cache') });
  // readConsistencySeconds 0: every read checks for the latest version, as a reader told of a new commit does.
  const index = await openLanceIndex({ uri: URI, storageOptions: cache.storageOptions(), readConsistencySeconds: 0, autoOptimizeEveryWrites: 0, readCache: cache });
  opened.push({ index });
  return { index, cache };
}

const docsOf = async (index: LanceNamespaceIndex, word: string) =>
  [...new Set((await index.bm25Search('ns', [word], 100)).map((h) => h.chunk.doc_id))].sort();

before(async () => {
  s3 = await startS3Server();
  await s3.createBucket('cache-test');
  settings = { endpoint: s3.endpoint, region: s3.region, accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey, forcePathStyle: true, allowHttp: true };
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'index-cache-test-'));
});

after(async () => {
  for (const o of opened) await o.index.close().catch(() => undefined);
  await s3?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a reader behind the cache sees every commit of another writer: appends, deletes, drop and re-create', async () => {
  const writer = await connect();
  const reader = await connect();
  await writer.index.addChunks('ns', rows('a', 4, 'harbor'), SIG);
  await writer.index.refreshLexical('ns');
  assert.deepEqual(await docsOf(reader.index, 'harbor'), ['a']);
  assert.deepEqual(await docsOf(reader.index, 'harbor'), ['a'], 'warm read');

  await writer.index.addChunks('ns', rows('b', 4, 'harbor'), SIG);
  await writer.index.refreshLexical('ns');
  assert.deepEqual(await docsOf(reader.index, 'harbor'), ['a', 'b'], 'an append is seen');

  await writer.index.deleteDocument('ns', 'a');
  await writer.index.optimize('ns'); // compaction rewrites the data files
  assert.deepEqual(await docsOf(reader.index, 'harbor'), ['b'], 'a delete is seen');
  assert.equal(await reader.index.countChunks('ns'), 4);

  // The same table name again, with other content: version 1 of a new table under the same keys, read
  // by a new connection on the cache directory that still holds the dropped table's blocks.
  await writer.index.dropNamespace('ns');
  await writer.index.addChunks('ns', rows('c', 3, 'lantern'), SIG);
  await writer.index.refreshLexical('ns');
  const fresh = await connect();
  assert.deepEqual(await docsOf(fresh.index, 'harbor'), [], 'the dropped table\'s rows are gone');
  assert.deepEqual(await docsOf(fresh.index, 'lantern'), ['c'], 'the re-created table is read');
  assert.equal(await fresh.index.countChunks('ns'), 3);
});

test('warm reads make no request for Lance files; a restarted cache answers them from disk', async () => {
  const { index, cache } = await connect();
  await docsOf(index, 'lantern');
  const before = s3.requests.length;
  await docsOf(index, 'lantern');
  await index.vectorSearch('ns', Float32Array.from([1, 0, 0, 0]), 10);
  const fileReads = (from: number) => s3.requests.slice(from).filter((r) => /\.lance\/(data|_indices|_deletions)\//.test(r));
  assert.deepEqual(fileReads(before), [], 'no Lance file fetched when warm');
  assert.ok((await cache.stats()).memoryHits > 0);

  const again = await connect(); // a new process on the same directory
  const mark = s3.requests.length;
  assert.deepEqual(await docsOf(again.index, 'lantern'), ['c']);
  assert.deepEqual(fileReads(mark), [], 'served from the disk tier');
  assert.ok((await again.cache.stats()).diskHits > 0);
});

test('the endpoint refuses requests without its token', async () => {
  const { cache } = await connect();
  const endpoint = cache.storageOptions().endpoint;
  const origin = new URL(endpoint).origin;
  const res = await fetch(`${origin}/cache-test/index/ns.lance/_versions/`);
  assert.equal(res.status, 403);
  const ok = await fetch(`${endpoint}/cache-test?list-type=2&prefix=index/`);
  assert.equal(ok.status, 200, 'with the token the request is forwarded, signed');
});

test('a cache thread that ends is started again on the same endpoint, and the open connection keeps reading', async () => {
  const { index, cache } = await connect();
  assert.deepEqual(await docsOf(index, 'lantern'), ['c']);
  const counted = (await cache.stats()).memoryHits + (await cache.stats()).diskHits;
  // End the thread the way a crash would (the class keeps it private: nothing else may stop it).
  const thread = (cache as unknown as { live: Worker }).live;
  const ended = new Promise((resolve) => thread.once('exit', resolve));
  await thread.terminate();
  await ended;
  const deadline = Date.now() + 20_000;
  while ((await cache.stats()).restarts === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const after = await cache.stats();
  assert.equal(after.restarts, 1);
  assert.ok(after.memoryHits + after.diskHits >= counted, 'counts carry over the restart');
  assert.deepEqual(await docsOf(index, 'lantern'), ['c'], 'the connection opened before the crash reads through the new thread');
  const res = await fetch(`${cache.storageOptions().endpoint}/cache-test?list-type=2&prefix=index/`);
  assert.equal(res.status, 200, 'same port and token');
});
