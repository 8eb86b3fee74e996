// Retry-After parsing and the backoff bounds of the SDK's retry policy.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRetryAfter, retryDelayMs } from './retry.ts';

test('Retry-After: delay-seconds, HTTP-date, absent or unreadable', () => {
  assert.equal(parseRetryAfter('3'), 3000);
  assert.equal(parseRetryAfter(' 0 '), 0);
  const now = Date.parse('2026-01-01T00:00:00Z');
  assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', now), 5000);
  assert.equal(parseRetryAfter('Wed, 31 Dec 2025 23:59:00 GMT', now), 0, 'a date in the past means now');
  assert.equal(parseRetryAfter(undefined), undefined);
  assert.equal(parseRetryAfter('soon'), undefined);
  assert.equal(parseRetryAfter('-1'), undefined);
});

test('backoff: Retry-After wins but is capped; otherwise full jitter under base·2^attempt', () => {
  assert.equal(retryDelayMs(0, '2', {}), 2000);
  assert.equal(retryDelayMs(0, '120', { maxDelayMs: 5000 }), 5000);
  for (let attempt = 0; attempt < 6; attempt++) {
    for (let i = 0; i < 50; i++) {
      const d = retryDelayMs(attempt, null, { baseDelayMs: 100, maxDelayMs: 1000 });
      assert.ok(d >= 0 && d <= Math.min(1000, 100 * 2 ** attempt), `attempt ${attempt}: ${d}`);
    }
  }
});
