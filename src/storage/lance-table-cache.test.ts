// TableCache keeps at most `openTables` handles, least recently used out, and a namespace whose handle
// was dropped is reopened by its next read with the same answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openLanceIndex } from './lance-index.ts';
import type { ChunkRecord } from './namespace-index.ts';

const SIG = { provider: 'test', model: 'lru-2', dimension: 2 };
const rows = (doc: string): ChunkRecord[] => [0, 1].map((i) => ({
  id: `${doc}:${i}`, doc_id: doc, source_job_id: 'j', chunk_index: i, chunkset_index: 0, page_start: 1, page_end: 1,
  heading_path: '', content: `${doc} text ${i}`, tokens: `${doc} text`, token_count: 2, vector: Float32Array.from([1, i]),
}));

test('open table handles are bounded; an evicted namespace reopens on its next read', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'table-lru-'));
  const index = await openLanceIndex({ uri: dir, autoOptimizeEveryWrites: 0, memory: { openTables: 2 } });
  try {
    for (const ns of ['ns_a', 'ns_b', 'ns_c']) await index.addChunks(ns, rows(ns), SIG);
    for (const ns of ['ns_a', 'ns_b', 'ns_c', 'ns_a']) assert.equal(await index.countChunks(ns), 2, ns);
    assert.equal(index.openTables, 2);
    const hits = await index.vectorSearch('ns_b', Float32Array.from([1, 0]), 5); // ns_b was evicted by ns_a
    assert.deepEqual(hits.map((h) => h.chunk.doc_id), ['ns_b', 'ns_b']);
    assert.equal(index.openTables, 2);
  } finally {
    await index.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
