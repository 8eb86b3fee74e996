// The one place where failures become HTTP responses. AppError codes map to statuses through the error
// catalogue; Fastify's own validation and body-size errors are translated into catalogue codes so every
// error body has the same shape: {code, message, status, details?} (DESIGN.md §5).
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
