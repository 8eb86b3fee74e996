// The one error catalogue of docsearch: every failure the service reports has a stable snake_case
// code, and this table is the only place that maps a code to an HTTP status (DESIGN.md §5 body shape).
// Domain code throws `AppError(code, message, details)`; the HTTP layer renders it.

/** code -> HTTP status. Codes are part of the public interface: never rename one. */
export const ERROR_CATALOGUE = {
  // 400
  validation_failed: 400,
  missing_filename: 400,
  unsupported_media_type: 400,
  empty_body: 400,
  invalid_header: 400,
  invalid_remote_url: 400,
  attribute_type_conflict: 400,
  attribute_invalid_name: 400,
  attribute_invalid_value: 400,
  attribute_limit_reached: 400,
  attribute_header_too_long: 400,
  attribute_invalid_type: 400,
  unencrypted_strings_invalid: 400,
  unsupported_operator: 400,
  invalid_doc_id: 400,
  egress_cost_not_acknowledged: 400,
  source_access_denied: 400,
  malformed_request: 400,
  // 401
  unauthorized: 401,
  invalid_credentials: 401,
  // 403
  multipart_not_accepted: 403,
  product_not_enabled: 403,
  project_access_denied: 403,
  remote_url_forbidden: 403,
  // 404
  not_found: 404,
  project_not_found: 404,
  document_not_found: 404,
  job_not_found: 404,
  bucket_task_not_found: 404,
  evaluation_not_found: 404,
  // 405
  method_not_allowed: 405,
  // 409
  conflict: 409,
  task_already_active: 409,
  project_name_taken: 409,
  task_not_active: 409,
  task_cancelled: 409,
  idempotency_key_reused: 409,
  evaluation_running: 409,
  reindex_running: 409,
  // 408
  request_timeout: 408,
  // 410
  namespace_purged: 410,
  // 413
  payload_too_large: 413,
  // 414 / 431: request line or headers too long
  uri_too_long: 414,
  headers_too_large: 431,
  // 415 / 422 / 424 appear as job status codes, not as request statuses
  // 429
  rate_limited: 429,
  // 5xx
  internal_error: 500,
  upstream_error: 502,
  backend_unavailable: 503,
  embedder_mismatch: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** Shape of every error response body (DESIGN.md §5). */
export interface ErrorBody {
  code: ErrorCode;
  message: string;
  status: number;
  details?: Record<string, unknown>;
  /** Seconds to wait before retrying, as in the Retry-After header (429 and 503 bodies). */
  retry_after_seconds?: number;
}

/**
 * A failure with a stable public code. `status` is derived from the catalogue, never passed in.
 * @param code      catalogue code (snake_case)
 * @param message   human sentence naming the field or value at fault
 * @param details   optional machine-readable context (field names, allowed values)
 * @param retryAfterSeconds  set for 429/503 so the HTTP layer can send `Retry-After`
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details?: Record<string, unknown>;
  readonly retryAfterSeconds?: number;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>, retryAfterSeconds?: number) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.status = ERROR_CATALOGUE[code];
    this.details = details;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  toBody(): ErrorBody {
    const body: ErrorBody = { code: this.code, message: this.message, status: this.status };
    if (this.details) body.details = this.details;
    if (this.retryAfterSeconds !== undefined) {
      // Clients of the modelled API read the wait from the body's top level (docs/compat.md); a 429 also
      // keeps it in details.retry_after_s.
      body.retry_after_seconds = this.retryAfterSeconds;
      if (this.status === 429) body.details = { ...body.details, retry_after_s: this.retryAfterSeconds };
    }
    return body;
  }
}

/** True when `err` is an AppError (also across module copies). */
export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError || (typeof err === 'object' && err !== null && (err as { name?: string }).name === 'AppError');
}

/**
 * A failure worth another attempt (a timeout, a 5xx, a lease not had): the job worker retries a job that
 * throws one (any error with `retryable: true`) with backoff, up to the job's attempts. Defined here, not in
 * jobs/, because the model clients in src/models throw it too.
 */
export class RetryableError extends Error {
  readonly retryable = true;
}
