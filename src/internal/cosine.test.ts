import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cosine } from './cosine.ts';

test('cosine: angle of two vectors; null for zero vectors and mismatched lengths', () => {
  assert.equal(cosine(Float32Array.from([1, 0]), Float32Array.from([0, 2])), 0);
  assert.ok(Math.abs(cosine(Float32Array.from([1, 1]), Float32Array.from([2, 2]))! - 1) < 1e-12);
  assert.equal(cosine(Float32Array.from([0, 0]), Float32Array.from([1, 0])), null);
  assert.equal(cosine(Float32Array.from([1]), Float32Array.from([1, 0])), null);
});
