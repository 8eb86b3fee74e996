import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { countTokens, PIECE } from './token-count.ts';

const exact = (s: string) => encode(s, { allowedSpecial: 'all', disallowedSpecial: new Set() }).length;

test('countTokens is exact for prose, also when it is counted in pieces', () => {
  const prose = 'The quick brown fox jumps over the lazy dog, again and again. '.repeat(200);
  assert.ok(prose.length > 4 * PIECE);
  assert.equal(countTokens(prose), exact(prose));
  assert.equal(countTokens('short text'), exact('short text'));
  assert.equal(countTokens(''), 0);
  assert.equal(countTokens('<|endoftext|>'), 1);
});

test('countTokens of a 200,000-character unbroken run is near the exact count (pieces cut it)', () => {
  const run = Array.from({ length: 200_000 }, (_, i) => 'ACGT'[(i * 7919 + (i >> 3)) % 4]).join('');
  const sampleExact = exact(run.slice(0, 3 * PIECE)) / 3; // per piece, exact on a short prefix
  const counted = countTokens(run);
  const expected = (sampleExact * run.length) / PIECE;
  assert.ok(Math.abs(counted - expected) / expected < 0.05, `${counted} vs ≈${expected.toFixed(0)}`);
});

test('countTokens never splits a surrogate pair at a hard cut', () => {
  const s = 'x' + '😀'.repeat(1500); // 3,001 UTF-16 units without a space: one hard cut
  assert.ok(/[\ud800-\udbff]$/.test(s.slice(0, PIECE)), 'a cut at PIECE would fall inside a pair');
  assert.equal(countTokens(s), exact(s.slice(0, PIECE - 1)) + exact(s.slice(PIECE - 1)));
});
