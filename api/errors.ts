// Every error leaves the service as { "error": "[CODE]", "message": "..." } (spec "Errors"), with
// `details` where it helps (the failing fields of a body).
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { DomainError, type DomainErrorKind, isConcurrencyConflict } from '../domain/shared/errors.js';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}

const statusOf: Record<DomainErrorKind, number> = {
  validation: 400,
  notFound: 404,
  conflict: 409,
  forbidden: 403,
  tooManyRequests: 429,
  unauthorized: 401,
};

export const toApiError = (error: unknown): ApiError | null => {
  if (error instanceof ApiError) return error;
  if (error instanceof DomainError) {
    const headers: Record<string, string> = {};
    const retry = error.details?.retryAfterSeconds;
    if (typeof retry === 'number') headers['Retry-After'] = String(retry);
    return new ApiError(statusOf[error.kind], error.code, error.message, error.details, headers);
  }
  // Another writer kept getting to the same stream first, after the command handler's retries.
  if (isConcurrencyConflict(error)) {
    return new ApiError(
      409,
      '[CONCURRENT_MODIFICATION]',
      'the resource was changed by concurrent requests and this change could not be applied; nothing was changed: read it again and retry',
      undefined,
      { 'Retry-After': '1' },
    );
  }
  // Something the request needs is moving between instances of the service (the venue sessions while
  // another instance takes them over): 503 with Retry-After, nothing was done.
  const unavailable = error as { temporarilyUnavailable?: unknown; code?: unknown; message?: string; retryAfterSeconds?: unknown };
  if (unavailable && unavailable.temporarilyUnavailable === true && typeof unavailable.code === 'string') {
    const retry = typeof unavailable.retryAfterSeconds === 'number' ? unavailable.retryAfterSeconds : 1;
    return new ApiError(503, unavailable.code, unavailable.message ?? 'temporarily unavailable; try again', undefined, { 'Retry-After': String(retry) });
  }
  // body-parser's errors carry a status and a type.
  const e = error as { status?: number; type?: string; message?: string };
  if (e && e.type === 'entity.parse.failed') return new ApiError(400, '[MALFORMED_JSON]', 'the request body is not valid JSON');
  if (e && e.type === 'entity.too.large') return new ApiError(413, '[PAYLOAD_TOO_LARGE]', 'the request body is too large');
  if (e && (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported')) {
    return new ApiError(415, '[UNSUPPORTED_MEDIA_TYPE]', e.message ?? 'unsupported encoding');
  }
  if (e && typeof e.status === 'number' && e.status >= 400 && e.status < 500) {
    return new ApiError(e.status, '[BAD_REQUEST]', e.message ?? 'bad request');
  }
  return null;
};

export const errorBody = (error: ApiError) =>
  error.details === undefined ? { error: error.code, message: error.message } : { error: error.code, message: error.message, details: error.details };

export const errorHandler =
  (log: (message: string, error: unknown) => void, unavailable?: (error: unknown) => ApiError | null): ErrorRequestHandler =>
  (error, req, res, _next) => {
    // A lost database connection is the database's state, not a defect: 503 with Retry-After.
    const apiError = toApiError(error) ?? unavailable?.(error) ?? null;
    if (res.headersSent) return;
    if (apiError) {
      res.set(apiError.headers).status(apiError.status).json(errorBody(apiError));
      return;
    }
    log(`unhandled error on ${req.method} ${req.path}`, error);
    res.status(500).json({ error: '[INTERNAL_ERROR]', message: 'an unexpected error occurred; it was logged' });
  };

/** A known path asked with a method it does not have: 405 with the methods it does have. */
export const methodNotAllowed =
  (routes: { specs: readonly { method: string; path: string }[] }, prefix: string): RequestHandler =>
  (req, res, next) => {
    if (!req.path.startsWith(`${prefix}/`)) return next();
    const path = req.path.slice(prefix.length);
    const allowed = routes.specs.filter((r) => new RegExp(`^${r.path.replace(/\{\w+\}/g, '[^/]+')}/?$`).test(path)).map((r) => r.method.toUpperCase());
    if (allowed.length === 0) return next();
    res.set('Allow', [...new Set(allowed)].join(', '));
    res.status(405).json({ error: '[METHOD_NOT_ALLOWED]', message: `${req.method} is not allowed here; use ${allowed.join(' or ')}` });
  };

export const notFoundHandler: RequestHandler = (req, res) => {
  res.status(404).json({ error: '[ENDPOINT_NOT_FOUND]', message: `no endpoint ${req.method} ${req.path}` });
};
