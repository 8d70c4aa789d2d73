// The request context every command carries into its events' metadata (who, from where, what, which
// correlation id), and the correlation id echoed on every response.
import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { RequestContext } from '../domain/shared/command.js';
import type { Caller } from './route.js';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export const correlationId: RequestHandler = (req, res, next) => {
  const given = req.header('x-correlation-id');
  const id = given && SAFE_ID.test(given) ? given : randomUUID();
  res.locals.correlationId = id;
  res.set('X-Correlation-Id', id);
  next();
};

export const requestContext = (
  req: { ip?: string | undefined; method: string; originalUrl: string },
  correlation: string,
  caller: Caller | null,
  requestId?: string,
): RequestContext => ({
  apiKeyId: caller?.apiKeyId ?? null,
  projectId: caller?.projectId ?? null,
  clientIp: req.ip ?? null,
  method: req.method,
  path: req.originalUrl.split('?')[0] ?? req.originalUrl,
  correlationId: correlation,
  ...(requestId ? { requestId } : {}),
});
