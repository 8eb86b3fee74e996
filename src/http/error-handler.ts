// The one place where failures become HTTP responses. AppError codes map to statuses through the error
// catalogue; Fastify's own validation and body-size errors, its router's errors (bad URL encoding, an
// over-long path parameter) and Node's HTTP parser errors (invalid header bytes, oversized headers) are
// translated into catalogue codes so every error body has the same shape: {code, message, status,
// details?} (DESIGN.md §5; before the translation, 239 of 5,500 fuzzed responses were off that shape).
import type { Socket } from 'node:net';
import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, isAppError } from '../internal/errors.ts';

/** Translate any thrown value into an AppError (unknown errors become internal_error, logged). */
export function toAppError(err: unknown, request: FastifyRequest): AppError {
  if (isAppError(err)) return err;
  const fe = err as FastifyError & { validation?: Array<{ instancePath?: string; message?: string; params?: unknown }>; validationContext?: string };
  if (fe && Array.isArray(fe.validation)) {
    const first = fe.validation[0];
    const where = (fe.validationContext ?? 'body') + (first?.instancePath ? first.instancePath.replace(/\//g, '.') : '');
    const params = first?.params as { missingProperty?: string; additionalProperty?: string } | undefined;
    const field = params?.missingProperty ? `${where}.${params.missingProperty}` : params?.additionalProperty ? `${where}.${params.additionalProperty}` : where;
    return new AppError('validation_failed', `${field}: ${first?.message ?? 'invalid value'}`, { field, errors: fe.validation });
  }
  if (fe?.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || fe?.statusCode === 413) {
    return new AppError('payload_too_large', 'The request body exceeds the maximum allowed size.');
  }
  if (fe?.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return new AppError('unsupported_media_type', `Content-Type ${String(request.headers['content-type'] ?? '')} is not accepted here.`);
  }
  if (fe?.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || fe?.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || (fe?.statusCode === 400 && fe?.code?.startsWith('FST_'))) {
    return new AppError('validation_failed', fe.message);
  }
  if (fe?.statusCode === 404 && fe?.code === 'FST_ERR_NOT_FOUND') {
    return new AppError('not_found', fe.message);
  }
  // PostgreSQL refuses NUL in text (22021 character_not_in_repertoire): a value of the request did that.
  if ((err as { code?: string })?.code === '22021') {
    return new AppError('validation_failed', 'A text value of the request contains a NUL character, which cannot be stored.');
  }
  request.log.error({ err }, 'unhandled error');
  return new AppError('internal_error', 'Internal server error.');
}

/** Fastify error handler: renders the catalogue body and `Retry-After` for 429/503. */
export async function errorHandler(err: unknown, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const appErr = toAppError(err, request);
  if (appErr.status >= 500) request.log.error({ err, code: appErr.code }, appErr.message);
  if (appErr.retryAfterSeconds !== undefined) reply.header('Retry-After', String(appErr.retryAfterSeconds));
  // A request rejected before its body was read (413, 401 on upload...) must not leave unread bytes on a
  // keep-alive socket: the next request on it would hang.
  if (!request.raw.complete) reply.header('connection', 'close');
  await reply.status(appErr.status).send(appErr.toBody());
}

/**
 * Fastify `frameworkErrors`: router failures that happen before a route is found. FST_ERR_BAD_URL (a
 * malformed percent-encoding such as `/v3/jobs/%zz/status`) -> 400 malformed_request;
 * FST_ERR_MAX_PARAM_LENGTH (a path parameter over `maxParamLength`) -> 414 uri_too_long; anything else
 * through toAppError.
 */
export function frameworkErrorHandler(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  let appErr: AppError;
  if (err.code === 'FST_ERR_BAD_URL') appErr = new AppError('malformed_request', 'The request path is not valid percent-encoding.');
  else if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') appErr = new AppError('uri_too_long', 'A path parameter of the request is too long.');
  else appErr = toAppError(err, request);
  void reply.status(appErr.status).send(appErr.toBody());
}

/**
 * Root onRequest hook: a path parameter or query value holding NUL (`%00`) is refused with 400
 * malformed_request before any handler runs; no identifier contains one, and PostgreSQL cannot even
 * compare such a string (the fuzzer found 500s on every `{id}` route there).
 */
export async function refuseNulInUrl(request: FastifyRequest): Promise<void> {
  const values = [...Object.values((request.params ?? {}) as Record<string, unknown>), ...Object.values((request.query ?? {}) as Record<string, unknown>)];
  if (values.some((v) => (Array.isArray(v) ? v : [v]).some((x) => typeof x === 'string' && x.includes('\u0000')))) {
    throw new AppError('malformed_request', 'A path parameter or query value of the request contains a NUL character (%00).');
  }
}

/** Node HTTP parser error codes that have a status of their own (others are 400 malformed_request). */
const CLIENT_ERRORS: Record<string, () => AppError> = {
  HPE_HEADER_OVERFLOW: () => new AppError('headers_too_large', 'The request headers are too large.'),
  ERR_HTTP_REQUEST_TIMEOUT: () => new AppError('request_timeout', 'The request was not received in time.'),
  HPE_HEADERS_TIMEOUT: () => new AppError('request_timeout', 'The request headers were not received in time.'),
};

/**
 * Fastify `clientErrorHandler`: Node could not parse the request (invalid header bytes, a broken
 * request line, oversized headers, a timeout), so there is no request object; the catalogue body is
 * written raw and the connection closed. Nothing is written to a socket that is gone.
 */
export function clientErrorHandler(err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const appErr = CLIENT_ERRORS[err.code ?? '']?.() ?? new AppError('malformed_request', 'The request could not be parsed as HTTP/1.1.', { parser_code: err.code ?? null });
  const body = JSON.stringify(appErr.toBody());
  socket.end(`HTTP/1.1 ${appErr.status} ${STATUS_CODES[appErr.status] ?? 'Error'}\r\nContent-Type: application/json; charset=utf-8\r\n`
    + `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}
