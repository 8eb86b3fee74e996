// retrieve() on a real LanceDB index: the ANN query goes to the engine before the query is analysed and
// BM25 sent, a failure of either retriever while the other runs is reported (not left unhandled), and a
// zero vector skips ANN.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openLanceIndex, type LanceNamespaceIndex } from '../../storage/lance-index.ts';
import type { ChunkRecord, NamespaceIndex } from '../../storage/namespace-index.ts';
import { withSearchLayout } from '../../ingest/chunk-rows.ts';
import { retrieve } from './retrieve.ts';

const SIG = { provider: 'test', model: 'unit-4', dimension: 4 };
let dir: string;
let index: LanceNamespaceIndex;

before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'retrieve-test-'));
  index = await openLanceIndex({ uri: dir });
  const rows: ChunkRecord[] = ['alpha beta', 'beta gamma', 'gamma delta'].map((tokens, i) => ({
    id: `d:${i}`, doc_id: 'd', source_job_id: 'job', chunk_index: i, chunkset_index: 0, page_start: 1, page_end: 1,
    heading_path: '', content: tokens, tokens, token_count: 2, vector: new Float32Array([1, i, 0, 0]),
  }));
  await index.addChunks('ns_r', withSearchLayout(rows), SIG);
});

after(async () => {
  await index.close();
  await rm(dir, { recursive: true, force: true });
});

/** The real index, with its calls recorded in `log` (and bm25Search optionally failing). */
function observed(log: string[], failBm25 = false): NamespaceIndex {
  return new Proxy(index, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (key === 'bm25Search') return (...args: unknown[]) => { log.push('bm25'); return failBm25 ? Promise.reject(new Error('bm25 down')) : (value as (...a: unknown[]) => unknown).apply(target, args); };
      if (key === 'vectorSearch') return (...args: unknown[]) => { log.push('vector'); return (value as (...a: unknown[]) => unknown).apply(target, args); };
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

const lexical = (log: string[] | null, terms: string[]) => async () => {
  log?.push('analyse');
  return { terms };
};

test('the ANN query is sent before the query is analysed and BM25 sent; both lists come back', async () => {
  const log: string[] = [];
  const got = await retrieve(observed(log), 'ns_r', { embed: async () => { log.push('embed'); return new Float32Array([1, 0, 0, 0]); }, lexical: lexical(log, ['beta']) }, undefined);
  assert.deepEqual(log, ['embed', 'vector', 'analyse', 'bm25']);
  assert.deepEqual(got.bm25!.map((h) => h.chunk.id).sort(), ['d:0', 'd:1']);
  assert.equal(got.vector!.length, 3);
  assert.equal(got.limit, 100);
});

test('with a slow embedder, BM25 is sent while the embedding is computed', async () => {
  const log: string[] = [];
  const slow = () => new Promise<Float32Array>((resolve) => setTimeout(() => { log.push('embed'); resolve(new Float32Array([1, 0, 0, 0])); }, 30));
  const got = await retrieve(observed(log), 'ns_r', { embed: slow, lexical: lexical(log, ['beta']) }, undefined);
  assert.deepEqual(log, ['analyse', 'bm25', 'embed', 'vector']);
  assert.equal(got.vector!.length, 3);
});

/** Collects unhandled rejections while `fn` runs (and a little after). */
async function noUnhandled(fn: () => Promise<void>): Promise<void> {
  const unhandled: unknown[] = [];
  const onUnhandled = (e: unknown) => unhandled.push(e);
  process.on('unhandledRejection', onUnhandled);
  try {
    await fn();
    await new Promise((resolve) => setTimeout(resolve, 40));
    assert.deepEqual(unhandled, []);
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
}

test('a BM25 failure during a slow embedding is thrown by retrieve, not left unhandled', async () => {
  await noUnhandled(async () => {
    const slow = () => new Promise<Float32Array>((resolve) => setTimeout(() => resolve(new Float32Array([1, 0, 0, 0])), 30));
    await assert.rejects(retrieve(observed([], true), 'ns_r', { embed: slow, lexical: lexical(null, ['beta']) }, undefined), /bm25 down/);
  });
});

test('an embedding failure while BM25 runs, and an analysis failure while ANN runs, are thrown, not left unhandled', async () => {
  await noUnhandled(async () => {
    const failing = () => new Promise<Float32Array>((_, reject) => setTimeout(() => reject(new Error('embedder down')), 5));
    await assert.rejects(retrieve(observed([]), 'ns_r', { embed: failing, lexical: lexical(null, ['beta']) }, undefined), /embedder down/);
    const broken = async () => { throw new Error('analysis failed'); };
    await assert.rejects(retrieve(observed([]), 'ns_r', { embed: async () => new Float32Array([1, 0, 0, 0]), lexical: broken }, undefined), /analysis failed/);
  });
});

test('a zero query vector skips the vector search; no terms skip BM25', async () => {
  const log: string[] = [];
  const got = await retrieve(observed(log), 'ns_r', { embed: async () => new Float32Array(4), lexical: lexical(null, []) }, undefined);
  assert.deepEqual(log, []);
  assert.equal(got.vector, null);
  assert.equal(got.bm25, null);
});
