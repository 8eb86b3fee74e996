// The console's only way to the service: the public /v3 API with the signed-in credential. The
// credential (session JWT from login, or a pasted API key) lives in sessionStorage, so it is gone when
// the tab closes. Errors become ApiError carrying the error body's `code` and `message`.

const SESSION_KEY = 'docsearch.console.session';

/**
 * @typedef {object} Session
 * @property {string} token        Bearer token: session JWT, svc_acc_… or svc_prod_ds_… key
 * @property {'login'|'account_key'|'project_key'} kind
 * @property {string} [projectId]  sent as X-Project-ID (login and account keys only)
 * @property {string} [projectName]
 * @property {string} [email]
 */

/** @returns {Session|null} */
export function loadSession() {
  try { return JSON.parse(sessionStorage.getItem(SESSION_KEY) ?? 'null'); } catch { return null; }
}

/** @param {Session} session */
export function saveSession(session) {
  sessionStorage.setItem(SESSION_KEY, JSON.stringify(session));
}

export function clearSession() {
  sessionStorage.removeItem(SESSION_KEY);
}

/** An API error: HTTP status plus the error body's stable `code` and `message`. */
export class ApiError extends Error {
  constructor(status, body, fallback) {
    super(body?.message ?? fallback ?? `HTTP ${status}`);
    this.status = status;
    this.code = body?.code ?? `http_${status}`;
    this.body = body;
  }
}

function authHeaders(session) {
  const headers = {};
  if (session?.token) headers.authorization = `Bearer ${session.token}`;
  if (session?.projectId) headers['x-project-id'] = session.projectId;
  return headers;
}

/** `signedIn`: the call used the stored session, so its 401 ends that session (not a key typed into a form). */
async function toApiError(res, signedIn) {
  const text = await res.text().catch(() => '');
  let body;
  try { body = JSON.parse(text); } catch { body = undefined; }
  if (res.status === 401 && signedIn) window.dispatchEvent(new CustomEvent('console:unauthorized', { detail: body }));
  return new ApiError(res.status, body, text.slice(0, 200) || res.statusText);
}

/**
 * Call `/v3{path}`.
 * @param {string} path  e.g. '/docsearch/docs'
 * @param {{method?: string, body?: unknown, headers?: Record<string,string>, session?: Session|null, signal?: AbortSignal, raw?: boolean}} [opts]
 *   body: a plain object is sent as JSON; a Blob/File as is. raw: return the Response (for streams).
 *   session: another credential than the stored one (its 401 does not sign the console out).
 * @returns {Promise<any>} parsed JSON (null for 204), or the Response with `raw`
 * @throws {ApiError} for any non-2xx answer; a TypeError when the network fails
 */
export async function api(path, opts = {}) {
  const session = opts.session === undefined ? loadSession() : opts.session;
  const headers = { ...authHeaders(session), ...opts.headers };
  let body = opts.body;
  if (body !== undefined && !(body instanceof Blob) && typeof body !== 'string') {
    body = JSON.stringify(body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(`/v3${path}`, { method: opts.method ?? 'GET', headers, body, signal: opts.signal });
  if (!res.ok) throw await toApiError(res, opts.session === undefined);
  if (opts.raw) return res;
  if (res.status === 204) return null;
  const text = await res.text();
  return text ? JSON.parse(text) : null;
}

/**
 * Content-Disposition for a raw upload: an ASCII `filename` (fetch headers must be Latin-1) plus the
 * RFC 5987 `filename*` with the real UTF-8 name, which the service prefers (RFC 6266).
 */
export function contentDisposition(name) {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/**
 * Parse a text/event-stream body into events. EventSource cannot send an Authorization header, so the
 * stream is read with fetch and a ReadableStream reader.
 * @returns {AsyncGenerator<{event: string, id?: string, data: string}>}
 */
export async function* readEvents(response) {
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value.replace(/\r\n?/g, '\n');
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const ev = { event: 'message', data: '' };
      const data = [];
      for (const line of block.split('\n')) {
        if (!line || line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const val = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') ev.event = val;
        else if (field === 'data') data.push(val);
        else if (field === 'id') ev.id = val;
      }
      if (data.length) { ev.data = data.join('\n'); yield ev; }
    }
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Follow a job on `GET /v3/status/v1/jobs/{id}` until it is terminal, reconnecting with Last-Event-ID
 * when the stream drops (after 2 s, the stream's own `retry`). A 204 on reconnect means the terminal
 * state was already delivered; the job is then read once from `GET /v3/jobs/{id}/status`. When the project
 * has too many open streams (429), the job is read from that endpoint every 2 s instead.
 * @param {string} jobId
 * @param {(status: {job_id: string, status: string, code: number, is_terminal: boolean, error?: unknown, doc_id?: string}) => void} onStatus
 * @param {AbortSignal} [signal]
 * @returns {Promise<object>} the terminal status event
 * @throws {ApiError} when the stream is refused (404, 401 …) or reports a stream error twice in a row
 */
export async function watchJob(jobId, onStatus, signal) {
  let lastId;
  let failures = 0;
  for (;;) {
    const headers = { accept: 'text/event-stream', ...(lastId ? { 'last-event-id': lastId } : {}) };
    let last;
    try {
      const res = await api(`/status/v1/jobs/${encodeURIComponent(jobId)}`, { headers, signal, raw: true });
      if (res.status === 204) {
        const final = await api(`/jobs/${encodeURIComponent(jobId)}/status`, { signal });
        onStatus(final);
        return final;
      }
      for await (const ev of readEvents(res)) {
        if (ev.event === 'error') throw new ApiError(500, JSON.parse(ev.data));
        if (ev.event !== 'job_status') continue;
        lastId = ev.id ?? lastId;
        last = JSON.parse(ev.data);
        failures = 0;
        onStatus(last);
        if (last.is_terminal) return last;
      }
    } catch (err) {
      // Too many open streams in the project (429): read the status instead, as often as the stream retries.
      if (err instanceof ApiError && err.status === 429 && !signal?.aborted) return pollJob(jobId, onStatus, signal);
      if (signal?.aborted || (err instanceof ApiError && err.status < 500) || ++failures > 1) throw err;
    }
    await sleep(2000);
  }
}

/** Read `GET /v3/jobs/{id}/status` every 2 s until the job is terminal. @throws {ApiError} as api() */
async function pollJob(jobId, onStatus, signal) {
  for (;;) {
    const status = await api(`/jobs/${encodeURIComponent(jobId)}/status`, { signal });
    onStatus(status);
    if (status.is_terminal) return status;
    await sleep(2000);
  }
}

/**
 * The error of a failed job as {code, message}: the JSON status sends an object, the status stream a
 * message string with the code in `error_code` (docs/compat.md).
 * @param {unknown} error
 * @param {string} [errorCode] the stream event's `error_code`
 */
export function jobError(error, errorCode) {
  if (!error) return null;
  if (typeof error === 'string') return { code: errorCode ?? 'job_failed', message: error };
  return { code: error.code ?? 'job_failed', message: error.message ?? JSON.stringify(error) };
}
