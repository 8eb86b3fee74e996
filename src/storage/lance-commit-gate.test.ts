// Two "nodes" (two LanceNamespaceIndex instances, each with its own writer-lease owner) on one LanceDB
// directory and one SQLite control plane: a reader sees the other node's appends and deletes
// within syncMs (rows, BM25 and the cached count), keeps reading after the other node compacted and
// removed the old versions its handle was on, and a node's commits wait while the other holds the lease.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openControlPlane } from './db.ts';
import { openLanceIndex, type LanceNamespaceIndex } from './lance-index.ts';
import { LeaseStore } from './lease-store.ts';
import { WriterLeases } from './writer-lease.ts';
import type { ChunkRecord, EmbeddingSignature } from './namespace-index.ts';

const SIG: EmbeddingSignature = { provider: 'test', model: 'unit-4', dimension: 4 };
const NS = 'ns_gate_test';
const SYNC_MS = 50;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function rows(docId: string, n: number, word: string): ChunkRecord[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `${docId}:${i}`, doc_id: docId, source_job_id: `job_${docId}`, chunk_index: i, chunkset_index: 0, page_start: 1, page_end: 1,
    heading_path: '', content: `${word} ${i}`, tokens: `${word} filler${i}`, token_count: 2, vector: Float32Array.from([1, i, 0, 0]),
  }));
}

test('two nodes on one index: reads follow the other node\'s commits within syncMs; commits wait for the lease', { timeout: 60_000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lance-gate-test-'));
  const cp = await openControlPlane({ dataDir: dir });
  const store = new LeaseStore(cp);
  const node = (owner: string): Promise<LanceNamespaceIndex> => openLanceIndex({
    uri: path.join(dir, 'lance'), autoOptimizeEveryWrites: 0, cleanupGraceSeconds: 0,
    coordination: { leases: new WriterLeases(store, { owner, ttlMs: 2000, pollMs: 10 }), versions: store, syncMs: SYNC_MS },
  });
  const [a, b] = [await node('node-a'), await node('node-b')];
  try {
    await a.addChunks(NS, rows('d1', 3, 'alpha'), SIG);
    assert.equal(await b.countChunks(NS), 3);

    // An append and a delete on a: b's cached handle and count follow after at most syncMs.
    await a.addChunks(NS, rows('d2', 2, 'bravo'), SIG);
    await a.deleteDocument(NS, 'd1');
    await sleep(SYNC_MS + 10);
    assert.equal(await b.countChunks(NS), 2);
    assert.deepEqual(await b.listDocIds(NS), ['d2']);
    assert.equal((await b.bm25Search(NS, ['bravo'], 10)).length, 2);

    // b compacts and removes old versions at once (grace 0): a's handle is on a version whose files are
    // gone, and a still reads correctly because the counter moved it to the latest version first.
    await b.optimize(NS);
    await sleep(SYNC_MS + 10);
    assert.deepEqual((await a.getChunks(NS, 'd2', 0, 5)).map((c) => c.id), ['d2:0', 'd2:1']);

    // While a holds the lease, b's commit waits; b then commits on top of a's work.
    let bDone = 0;
    const t0 = Date.now();
    await a.withWriter(NS, async () => {
      const pending = b.addChunks(NS, rows('d3', 1, 'charlie'), SIG).then(() => { bDone = Date.now(); });
      await sleep(300);
      await a.addChunks(NS, rows('d4', 1, 'delta'), SIG);
      assert.equal(bDone, 0, 'b committed while a held the lease');
      void pending;
    });
    while (!bDone) await sleep(10);
    assert.ok(bDone - t0 >= 300);
    await sleep(SYNC_MS + 10);
    assert.deepEqual(await a.listDocIds(NS), ['d2', 'd3', 'd4']);
    assert.equal(await a.countChunks(NS), 4);
  } finally {
    await a.close();
    await b.close();
    await cp.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
