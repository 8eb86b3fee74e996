import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { StoredChunk } from '../../storage/namespace-index.ts';
import { planWidening } from './widen.ts';

const chunk = (i: number, tokens = 100): StoredChunk => ({
  id: `d:${i}`, doc_id: 'd', source_job_id: 'j', chunk_index: i, chunkset_index: Math.floor(i / 3), page_start: i + 1, page_end: i + 1,
  heading_path: '', content: `c${i}`, token_count: tokens,
});
const doc = Array.from({ length: 10 }, (_, i) => chunk(i));

test('widening crosses chunkset boundaries, nearest first, alternately after and before', () => {
  assert.deepEqual(planWidening({ from: 4, to: 4 }, doc, new Set(), 300), { from: 3, to: 6, added: 300 });
});

test('widening stops at chunks other hits own, at the document ends and at the allowance', () => {
  assert.deepEqual(planWidening({ from: 4, to: 4 }, doc, new Set([5]), 1000), { from: 0, to: 4, added: 400 });
  assert.deepEqual(planWidening({ from: 8, to: 9 }, doc, new Set(), 150), { from: 7, to: 9, added: 100 });
  assert.deepEqual(planWidening({ from: 4, to: 4 }, doc, new Set(), 0), { from: 4, to: 4, added: 0 });
});
