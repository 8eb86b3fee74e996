// The HTTP layer under DocsearchClient: resolves paths against the service origin, sets the bearer
// token and X-Project-ID, retries per retry.ts, and turns error answers into DocsearchError. Everything
// goes through the global (or an injected) fetch, so it runs on Node 20+, Deno, Bun and browsers.
import { DocsearchError, errorFromResponse } from './errors.ts';
import { RETRY_STATUSES, retryDelayMs, sleep, type RetryOptions } from './retry.ts';

export interface TransportOptions {
  /** Service origin, e.g. `http://127.0.0.1:8080`; a trailing `/v3` is accepted and dropped. */
  baseUrl: string;
  /** Bearer token: project key (svc_prod_ds_…), account key (svc_acc_…) or a login token. */
  apiKey?: string;
  /** Project to act on; required with account keys and login tokens, ignored by project keys. */
  projectId?: string;
  retry?: RetryOptions;
  /** fetch implementation (default: globalThis.fetch). */
  fetch?: typeof fetch;
  /** Extra headers sent with every request (e.g. a user agent). */
  headers?: Record<string, string>;
}

export interface SendOptions {
  /** JSON-serialised unless it is a Blob, ArrayBuffer view or string. */
  body?: unknown;
  headers?: Record<string, string | undefined>;
  query?: Record<string, string | number | boolean | undefined>;
  signal?: AbortSignal;
  /** Also retry when no HTTP answer came (only for calls that are safe to repeat). Default false. */
  retryNetworkErrors?: boolean;
  /** Statuses handed back to the caller instead of being thrown (e.g. 204 of the job stream). */
  accept?: number[];
}

/** Origin of a docsearch base URL: `http://h:1/v3/` → `http://h:1`. */
export function serviceOrigin(baseUrl: string): string {
  return baseUrl.trim().replace(/\/+$/, '').replace(/\/v3$/, '');
}

export class Transport {
  readonly origin: string;
  private readonly fetchImpl: typeof fetch;

  constructor(private readonly opts: TransportOptions) {
    if (!opts.baseUrl) throw new TypeError('docsearch: baseUrl is required');
    this.origin = serviceOrigin(opts.baseUrl);
    this.fetchImpl = opts.fetch ?? globalThis.fetch.bind(globalThis);
  }

  /**
   * Send one request (retrying per policy) and return the successful Response unread.
   * @param path absolute path below the origin, e.g. `/v3/docsearch/docs`
   * @throws DocsearchError for an error answer or (after retries) no answer; the signal's reason on abort
   */
  async send(method: string, path: string, opts: SendOptions = {}): Promise<Response> {
    const url = new URL(this.origin + path);
    for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const headers = new Headers(this.opts.headers);
    if (this.opts.apiKey) headers.set('authorization', `Bearer ${this.opts.apiKey}`);
    if (this.opts.projectId) headers.set('x-project-id', this.opts.projectId);
    let body: BodyInit | undefined;
    if (opts.body !== undefined) {
      if (typeof opts.body === 'string' || opts.body instanceof Blob || ArrayBuffer.isView(opts.body) || opts.body instanceof ArrayBuffer) {
        body = opts.body as BodyInit;
      } else {
        body = JSON.stringify(opts.body);
        headers.set('content-type', 'application/json');
      }
    }
    for (const [k, v] of Object.entries(opts.headers ?? {})) if (v !== undefined) headers.set(k, v);
    const maxRetries = this.opts.retry?.maxRetries ?? 4;
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await this.fetchImpl(url, { method, headers, body, signal: opts.signal });
      } catch (err) {
        if (opts.signal?.aborted) throw opts.signal.reason;
        if (opts.retryNetworkErrors && attempt < maxRetries) {
          await sleep(retryDelayMs(attempt, undefined, this.opts.retry), opts.signal);
          continue;
        }
        throw new DocsearchError({
          code: 'network_error', status: 0,
          message: `${method} ${url.pathname}: no answer from ${this.origin} (${(err as Error).message})`,
        }, { cause: err });
      }
      if (res.ok || opts.accept?.includes(res.status)) return res;
      if (RETRY_STATUSES.has(res.status) && attempt < maxRetries) {
        const wait = retryDelayMs(attempt, res.headers.get('retry-after'), this.opts.retry);
        await res.body?.cancel().catch(() => {});
        await sleep(wait, opts.signal);
        continue;
      }
      throw await errorFromResponse(res);
    }
  }

  /**
   * send() and parse the JSON answer.
   * @throws DocsearchError `invalid_response` when the body is not JSON
   */
  async json<T>(method: string, path: string, opts: SendOptions = {}): Promise<T> {
    const res = await this.send(method, path, opts);
    const text = await res.text();
    try {
      return JSON.parse(text) as T;
    } catch (err) {
      throw new DocsearchError({ code: 'invalid_response', status: res.status, message: `${method} ${path}: answer is not JSON` }, {
        requestId: res.headers.get('x-request-id') ?? undefined, cause: err,
      });
    }
  }
}

/** Percent-encode one path segment (ids are opaque to the SDK). */
export const seg = (id: string): string => encodeURIComponent(id);
