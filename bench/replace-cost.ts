// What replacing one document costs the index as the namespace grows: NamespaceIndex.replaceDocuments
// (one merge commit, docs/decisions/2026-11-29-source-replacement.md) against a delete followed by an
// append (two commits, not atomic), for a 10-chunk document in tables of 10k, 50k and 100k rows
// (synthetic rows: 100-d random vectors, short token strings; no ANN index, as below 50k rows in service).
// Run: npx tsx bench/replace-cost.ts [--sizes 10000,50000,100000] [--repeats 5]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openLanceIndex } from '../src/storage/lance-index.ts';
import { chunkId, type ChunkRecord } from '../src/storage/namespace-index.ts';
import { rng } from './lib/random.ts';

const arg = (name: string, dflt: string) => (process.argv.indexOf(name) > 0 ? process.argv[process.argv.indexOf(name) + 1] : dflt);
const SIZES = arg('--sizes', '10000,50000,100000').split(',').map(Number);
const REPEATS = Number(arg('--repeats', '5'));
const DIM = 100;
const signature = { provider: 'bench', model: 'random', dimension: DIM };
const rand = rng(7);

function rows(docId: string, n: number, jobId: string): ChunkRecord[] {
  return Array.from({ length: n }, (_, i) => ({
    id: chunkId(docId, i), doc_id: docId, source_job_id: jobId, chunk_index: i, chunkset_index: 0, page_start: 1, page_end: 1,
    heading_path: '', content: `chunk ${i} of ${docId}`, tokens: `chunk ${docId.toLowerCase()} w${Math.floor(rand() * 5000)}`, token_count: 8,
    vector: Float32Array.from({ length: DIM }, () => rand() - 0.5),
  }));
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const results = [];
for (const size of SIZES) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docsearch-replace-cost-'));
  const index = await openLanceIndex({ uri: dir, autoOptimizeEveryWrites: 0 });
  try {
    for (let d0 = 0; d0 < size / 20; d0 += 500) {
      const batch: ChunkRecord[] = [];
      for (let d = d0; d < Math.min(size / 20, d0 + 500); d++) batch.push(...rows(`doc${d}`, 20, 'seed'));
      await index.addChunks('ns', batch, signature);
    }
    await index.optimize('ns');
    const merge: number[] = [];
    const twoCommits: number[] = [];
    for (let r = 0; r < REPEATS; r++) {
      let t = performance.now();
      await index.replaceDocuments('ns', ['doc1'], rows('doc1', 10, `m${r}`), signature);
      merge.push(performance.now() - t);
      t = performance.now();
      await index.deleteDocument('ns', 'doc2');
      await index.addChunks('ns', rows('doc2', 10, `d${r}`), signature);
      twoCommits.push(performance.now() - t);
    }
    results.push({ rows: size, merge_ms_p50: Math.round(median(merge)), delete_then_add_ms_p50: Math.round(median(twoCommits)) });
  } finally {
    await index.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
console.table(results);
