// Async iteration over a job's status stream (GET /v3/status/v1/jobs/{id}, Server-Sent Events; shape in
// the service's docs/jobs.md). The iterator yields each `job_status` event, reconnects with
// Last-Event-ID when the connection drops before the terminal event (the service then sends only what
// changed), and ends after the terminal event or on a 204 (terminal event already seen).
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { DocsearchError } from './errors.ts';
import { retryDelayMs, sleep, type RetryOptions } from './retry.ts';
import { seg, type Transport } from './transport.ts';
import type { JobStatusEvent } from './types.ts';

export interface WatchJobOptions {
  signal?: AbortSignal;
  /** Resume after this event id (the `id:` of an event already seen). */
  lastEventId?: string;
  /** Consecutive reconnects without a new event before giving up (default 5). */
  maxReconnects?: number;
  /** Backoff between reconnects (same shape as the client's retry options). */
  retry?: RetryOptions;
}

/**
 * One `data:` payload as the SDK types it. `error` is `{code, message}` whether the service sends that
 * object or a message string beside `error_code` (a stream shape that older status-stream clients read,
 * docs/compat.md), so SDK users see one shape either way.
 */
export function toJobStatusEvent(data: unknown): JobStatusEvent {
  const raw = data as JobStatusEvent & { error?: unknown; error_code?: string };
  if (typeof raw.error === 'string') {
    const { error_code: code, ...rest } = raw;
    return { ...rest, error: { code: code ?? 'job_failed', message: raw.error } };
  }
  return raw;
}

/**
 * Events of one job until it is terminal.
 * @throws DocsearchError from the first request (e.g. 404 job_not_found), or `job_stream_failed` when
 *   the stream keeps breaking; the signal's reason on abort
 */
export async function* watchJob(transport: Transport, jobId: string, opts: WatchJobOptions = {}): AsyncGenerator<JobStatusEvent, void, undefined> {
  let lastId = opts.lastEventId;
  let failures = 0;
  const maxReconnects = opts.maxReconnects ?? 5;
  let serverRetryMs: number | undefined;
  for (;;) {
    const res = await transport.send('GET', `/v3/status/v1/jobs/${seg(jobId)}`, {
      headers: { accept: 'text/event-stream', 'last-event-id': lastId },
      signal: opts.signal,
      retryNetworkErrors: true,
      accept: [204],
    });
    if (res.status === 204 || !res.body) return;
    let progressed = false;
    let streamError: string | undefined;
    try {
      const events = res.body
        .pipeThrough(new TextDecoderStream())
        .pipeThrough(new EventSourceParserStream({ onRetry: (ms) => { serverRetryMs = ms; } }));
      for await (const ev of events as unknown as AsyncIterable<{ event?: string; id?: string; data: string }>) {
        if (ev.event === 'error') { streamError = ev.data; continue; }
        if (ev.event !== 'job_status') continue;
        if (ev.id) lastId = ev.id;
        const status = toJobStatusEvent(JSON.parse(ev.data));
        progressed = true;
        failures = 0;
        yield status;
        if (status.is_terminal) return;
      }
    } catch (err) {
      if (opts.signal?.aborted) throw opts.signal.reason;
      streamError = (err as Error).message;
    } finally {
      await res.body.cancel().catch(() => {});
    }
    if (!progressed && ++failures > maxReconnects) {
      throw new DocsearchError({
        code: 'job_stream_failed', status: res.status,
        message: `The status stream of job ${jobId} ended ${failures} times without news${streamError ? ` (${streamError})` : ''}.`,
      });
    }
    // A stream that delivered news and then dropped is resumed at once; one that keeps failing backs off.
    if (!progressed) await sleep(serverRetryMs ?? retryDelayMs(failures, undefined, opts.retry), opts.signal);
  }
}
