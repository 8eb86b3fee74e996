// The service's event loop must stay free (DESIGN.md: /healthz p99 < 100 ms while any request or
// document is processed). This module measures it — event-loop lag from Node's
// perf_hooks.monitorEventLoopDelay, for logs, /readyz or a metrics exporter — and offers the one way
// long main-thread loops give it back: `yieldToEventLoop()` between bounded slices of work.
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

/** Event-loop lag over the current window, in milliseconds. */
export interface EventLoopLag {
  /** Samples are taken every `resolutionMs`; lag = how late a sample's timer ran. */
  resolutionMs: number;
  min_ms: number;
  mean_ms: number;
  p50_ms: number;
  p90_ms: number;
  p99_ms: number;
  max_ms: number;
  /** Timer samples in the window (0 before the first one). */
  samples: number;
  /** Start of the window (ISO 8601): the monitor's start or its last reset. */
  since: string;
}

let histogram: IntervalHistogram | undefined;
let since = new Date();
/** Sampling interval of the lag histogram, Node's monitorEventLoopDelay default. */
const RESOLUTION_MS = 10;

/**
 * Start the process-wide lag monitor (idempotent). Samples every 10 ms (Node's default); the cost is one
 * timer, negligible.
 */
export function startEventLoopMonitor(): void {
  if (histogram) return;
  histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  since = new Date();
}

/** Stop the monitor (tests, shutdown); a later start opens a fresh window. */
export function stopEventLoopMonitor(): void {
  histogram?.disable();
  histogram = undefined;
}

/**
 * Lag statistics of the window since the monitor started or was last reset (the monitor is started on
 * first use). Node reports nanoseconds, converted to milliseconds with 0.01 ms precision; the timer's own
 * resolution is already subtracted by Node, so an idle loop reads ≈0.
 * @param opts.reset start a new window after reading (e.g. a scraper reading deltas)
 */
export function eventLoopLag(opts: { reset?: boolean } = {}): EventLoopLag {
  startEventLoopMonitor();
  const h = histogram!;
  const ms = (ns: number) => (Number.isFinite(ns) ? Math.round(ns / 1e4) / 100 : 0);
  const samples = h.count;
  const out: EventLoopLag = {
    resolutionMs: RESOLUTION_MS,
    min_ms: samples ? ms(h.min) : 0,
    mean_ms: samples ? ms(h.mean) : 0,
    p50_ms: samples ? ms(h.percentile(50)) : 0,
    p90_ms: samples ? ms(h.percentile(90)) : 0,
    p99_ms: samples ? ms(h.percentile(99)) : 0,
    max_ms: samples ? ms(h.max) : 0,
    samples,
    since: since.toISOString(),
  };
  if (opts.reset) {
    h.reset();
    since = new Date();
  }
  return out;
}

/**
 * Let pending I/O and timers run before continuing a long loop on the main thread (a macrotask turn via
 * setImmediate; `await` on a resolved promise alone does not yield to I/O).
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * A cooperative time slice for a long loop on the main thread: `await tick()` after each unit of work
 * yields (yieldToEventLoop) once `budgetMs` have passed since the last yield, and is a no-op otherwise.
 * @param budgetMs longest stretch of work between two yields, ms (default 10: a tenth of the 100 ms
 *   /healthz budget, DESIGN.md)
 */
export function timeSlicer(budgetMs = 10): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < budgetMs) return;
    await yieldToEventLoop();
    since = performance.now();
  };
}
