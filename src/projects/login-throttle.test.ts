import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LoginThrottle } from './login-throttle.ts';
import { AppError } from '../internal/errors.ts';

function refused(fn: () => void): AppError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof AppError && err.code === 'rate_limited', String(err));
    return err;
  }
  assert.fail('the attempt was admitted');
}

test('per account: free failures, then each failure doubles the wait up to the cap', () => {
  let now = 0;
  const t = new LoginThrottle({ freeFailures: 2, ipFreeFailures: 1000, baseMs: 1000, maxMs: 4000 }, () => now);
  t.attempt('A@x', 'ip1');
  t.attempt('a@x', 'ip1'); // 2 free
  t.attempt('a@x', 'ip1'); // 3rd: counted, and now 1 s to wait
  assert.equal(refused(() => t.attempt('a@x', 'ip2')).retryAfterSeconds, 1);
  now += 1000;
  t.attempt('a@x', 'ip1'); // 4th: 2 s
  now += 1999;
  assert.equal(refused(() => t.attempt('a@x', 'ip1')).details?.scope, 'account');
  now += 1;
  t.attempt('a@x', 'ip1'); // 5th: 4 s
  now += 4000;
  t.attempt('a@x', 'ip1'); // 6th: capped at 4 s
  assert.equal(refused(() => t.attempt('a@x', 'ip1')).retryAfterSeconds, 4);
  t.attempt('b@x', 'ip1'); // another account is not affected
});

test('a success clears the account; the IP counts failures across accounts', () => {
  let now = 0;
  const t = new LoginThrottle({ freeFailures: 2, ipFreeFailures: 4, baseMs: 1000, maxMs: 60_000 }, () => now);
  t.attempt('a@x', 'ip1');
  t.attempt('a@x', 'ip1');
  t.succeeded('a@x', 'ip1'); // the second attempt was right
  t.attempt('a@x', 'ip1');
  t.attempt('a@x', 'ip1'); // the account is back to 2 free failures: no wait yet
  t.attempt('b@x', 'ip1'); // ip: 4 counted (1 taken back)
  t.attempt('c@x', 'ip1'); // ip: 5 > 4 -> wait
  const err = refused(() => t.attempt('d@x', 'ip1'));
  assert.equal(err.details?.scope, 'ip');
  t.attempt('d@x', 'ip2'); // another address is not affected
  now += 1000;
  t.attempt('d@x', 'ip1');
});
