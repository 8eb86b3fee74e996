import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IndexHit, StoredChunk } from '../../storage/namespace-index.ts';
import { withAnchorSimilarity } from './anchor.ts';
import { fuseRrf } from './fuse.ts';
import { groupRegions } from './group-regions.ts';

const chunk = (doc: string, i: number): StoredChunk => ({
  id: `${doc}:${i}`, doc_id: doc, source_job_id: 'j', chunk_index: i, chunkset_index: 0,
  page_start: 1, page_end: 1, heading_path: '', content: `${doc} ${i}`, token_count: 10,
});
const hit = (doc: string, i: number, score: number, v?: number[]): IndexHit => ({ chunk: chunk(doc, i), score, ...(v ? { vector: Float32Array.from(v) } : {}) });

test('every fused chunk gets its cosine to the best BM25 hit; the anchor itself gets 1', () => {
  const vector = [hit('a', 0, 0.9, [0, 1]), hit('b', 0, 0.8, [0.6, 0.8])];
  const bm25 = [hit('b', 0, 12, [0.6, 0.8]), hit('c', 0, 7, [1, 0])];
  const fused = withAnchorSimilarity(fuseRrf(vector, bm25), bm25);
  const by = new Map(fused.map((f) => [f.chunk.doc_id, f.anchor]));
  assert.ok(Math.abs(by.get('b')! - 1) < 1e-6);
  assert.ok(Math.abs(by.get('a')! - 0.8) < 1e-6);
  assert.ok(Math.abs(by.get('c')! - 0.6) < 1e-6);
  // grouping carries the best member's value into the region
  const regions = groupRegions(fused);
  assert.ok(Math.abs(regions.find((r) => r.docId === 'a')!.anchor! - 0.8) < 1e-6);
});

test('no BM25 list, an anchor without a vector or a chunk without one: null, input untouched', () => {
  const vector = [hit('a', 0, 0.9, [0, 1])];
  const fused = fuseRrf(vector, null);
  assert.deepEqual(withAnchorSimilarity(fused, null).map((f) => f.anchor), [null]);
  assert.deepEqual(withAnchorSimilarity(fuseRrf(vector, [hit('b', 0, 3)]), [hit('b', 0, 3)]).map((f) => f.anchor), [null, null]);
  const noVec = [hit('z', 0, 5)];
  const bm25 = [hit('y', 0, 9, [1, 0]), ...noVec];
  const out = withAnchorSimilarity(fuseRrf(null, bm25), bm25);
  assert.deepEqual(out.map((f) => f.anchor), [1, null]);
  assert.equal(fused[0].anchor, null, 'the stage returns new objects');
});

test('the anchor is skipped for a query the embedder covers poorly', async () => {
  const { denseCoverageOk, rankStandard } = await import('./standard-rank.ts');
  const { queryStats } = await import('./fuse.ts');
  const cov = (share: number) => ({ coverage: () => share });
  assert.equal(denseCoverageOk(cov(0.2), 'q'), false);
  assert.equal(denseCoverageOk(cov(0.5), 'q'), true);
  assert.equal(denseCoverageOk({}, 'q'), true, 'embedders without a coverage method: keep');
  const bm25 = [hit('a', 0, 9, [1, 0]), hit('b', 0, 8, [1, 0])];
  const stats = queryStats(null, bm25, true, 2, 100);
  assert.deepEqual(rankStandard(null, bm25, stats).regions.map((r) => r.anchor), [1, 1]);
  assert.deepEqual(rankStandard(null, bm25, stats, { anchor: false }).regions.map((r) => r.anchor), [null, null]);
});
