import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eventLoopLag, stopEventLoopMonitor, timeSlicer, yieldToEventLoop } from './event-loop.ts';

function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) { /* hold the loop */ }
}

test('eventLoopLag reports a blocked loop, and reset opens a new window', async () => {
  stopEventLoopMonitor();
  eventLoopLag({ reset: true }); // starts the monitor
  await new Promise((r) => setTimeout(r, 50));
  busy(150);
  await new Promise((r) => setTimeout(r, 50));
  const lag = eventLoopLag({ reset: true });
  assert.ok(lag.samples > 0);
  assert.ok(lag.max_ms >= 100, `max ${lag.max_ms} ms after a 150 ms block`);
  assert.ok(lag.p50_ms <= lag.p99_ms && lag.p99_ms <= lag.max_ms);
  await new Promise((r) => setTimeout(r, 50));
  const after = eventLoopLag();
  assert.ok(after.max_ms < lag.max_ms, 'the reset window does not keep the old maximum');
  stopEventLoopMonitor();
});

test('yieldToEventLoop lets a pending timer run before the loop continues', async () => {
  let fired = false;
  setTimeout(() => { fired = true; }, 0);
  busy(5);
  await yieldToEventLoop();
  await yieldToEventLoop();
  assert.ok(fired);
});

test('timeSlicer yields only once its budget is spent', async () => {
  let fired = 0;
  const timer = setInterval(() => { fired++; }, 1);
  const tick = timeSlicer(20);
  busy(5);
  await tick(); // 5 ms of work: no yield
  const before = fired;
  busy(25);
  await tick(); // past the budget: timers get their turn
  clearInterval(timer);
  assert.equal(before, 0);
  assert.ok(fired > 0);
});
