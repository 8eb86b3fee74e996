// The one error type the SDK throws for a failed call: the service's error body (`code`, `message`,
// `status`, `details`, see the service's src/internal/errors.ts catalogue) plus the request id, so a
// caller can branch on the stable snake_case `code` instead of parsing messages.

import type { components } from './generated/openapi.ts';

/** Error body every docsearch error response carries (the OpenAPI component ErrorBody). */
export type ErrorBody = components['schemas']['ErrorBody'];

/**
 * A call the service refused or that could not reach it.
 * - `code`: the service's stable error code (e.g. `document_not_found`, `invalid_request`), or
 *   `network_error` (no HTTP answer), `invalid_response` (an answer that is not docsearch's JSON), or
 *   `job_stream_failed` (the status stream broke and could not be resumed).
 * - `status`: the HTTP status; 0 when there was no HTTP answer.
 */
export class DocsearchError extends Error {
  readonly code: string;
  readonly status: number;
  readonly details?: Record<string, unknown>;
  /** The x-request-id of the failed request, for the service's logs. */
  readonly requestId?: string;

  constructor(body: ErrorBody, opts: { requestId?: string; cause?: unknown } = {}) {
    super(body.message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'DocsearchError';
    this.code = body.code;
    this.status = body.status;
    this.details = body.details;
    this.requestId = opts.requestId;
  }
}

/** True for a parsed JSON value shaped like the service's error body. */
export function isErrorBody(value: unknown): value is ErrorBody {
  const v = value as Partial<ErrorBody> | null;
  return typeof v === 'object' && v !== null && typeof v.code === 'string' && typeof v.message === 'string';
}

/**
 * The DocsearchError for a non-2xx response (reads its body).
 * @param res a response whose body has not been read
 */
export async function errorFromResponse(res: Response): Promise<DocsearchError> {
  const requestId = res.headers.get('x-request-id') ?? undefined;
  const text = await res.text().catch(() => '');
  let body: unknown;
  try { body = JSON.parse(text); } catch { body = undefined; }
  if (isErrorBody(body)) return new DocsearchError({ ...body, status: res.status }, { requestId });
  const snippet = text.slice(0, 200).trim();
  return new DocsearchError({
    code: res.status === 404 ? 'not_found' : 'invalid_response',
    message: `HTTP ${res.status}${snippet ? `: ${snippet}` : ''}`,
    status: res.status,
  }, { requestId });
}
