// Retry policy of the SDK: 429, 502 and 503 (and, for calls that are safe to repeat, a failure to get
// any answer) are retried with exponential backoff and full jitter, honouring `Retry-After` (seconds or
// an HTTP date, RFC 9110 §10.2.3) when the service sends one — docsearch sends it with 503
// backend_unavailable and its rate limits.

export interface RetryOptions {
  /** Retries after the first attempt (default 4; 0 disables retrying). */
  maxRetries?: number;
  /** First backoff step in ms when no Retry-After is given (default 250); doubles per retry. */
  baseDelayMs?: number;
  /** Upper bound of any one wait, Retry-After included, in ms (default 30 000). */
  maxDelayMs?: number;
}

export const RETRY_STATUSES: ReadonlySet<number> = new Set([429, 502, 503]);

/**
 * Milliseconds a Retry-After header asks for, or undefined when absent or unreadable.
 * @param value header value: delay-seconds or an HTTP-date
 * @param now current time in ms (for HTTP dates)
 */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  if (/^[-+\d]/.test(trimmed)) return undefined; // a negative or fractional number is not a delay; dates start with a day name
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * Wait before retry number `attempt` (0-based): Retry-After when given, else a random delay in
 * [0, base·2^attempt] (full jitter), both capped at maxDelayMs.
 */
export function retryDelayMs(attempt: number, retryAfter: string | null | undefined, opts: RetryOptions = {}): number {
  const max = opts.maxDelayMs ?? 30_000;
  const asked = parseRetryAfter(retryAfter);
  if (asked !== undefined) return Math.min(asked, max);
  const ceiling = Math.min(max, (opts.baseDelayMs ?? 250) * 2 ** attempt);
  return Math.round(Math.random() * ceiling);
}

/** Resolve after ms, or reject with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) { reject(signal.reason); return; }
    const done = () => { signal?.removeEventListener('abort', onAbort); resolve(); };
    const timer = setTimeout(done, ms);
    const onAbort = () => { clearTimeout(timer); reject(signal!.reason); };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
