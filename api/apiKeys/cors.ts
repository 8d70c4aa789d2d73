// CORS with per-key origins (spec "Access policy of an API key", CORS origins), through the `cors`
// package.
//
// A preflight (OPTIONS) carries no API key: browsers never send credentials or custom headers with it,
// so the service cannot tell whose origin list applies. It therefore answers every preflight with the
// origin reflected (a preflight reads and changes nothing), and decides on the actual request, which
// carries X-API-KEY: an Origin the key's policy does not allow gets 403 [FORBIDDEN_ORIGIN_NOT_ALLOWED]
// without any Access-Control-Allow-Origin header, so the browser shows the page nothing and the request
// is refused before any handler runs. Because X-API-KEY is not a CORS-safelisted header, every
// cross-origin browser request is preflighted and then sent with its Origin, so nothing slips past.
import cors from 'cors';
import type { RequestHandler } from 'express';
import { originAllowed } from '../../domain/apiKey/origins.js';
import { ApiError } from '../errors.js';
import type { Caller } from '../route.js';

const METHODS = ['GET', 'POST', 'PUT', 'DELETE'];
const ALLOWED_HEADERS = ['X-API-KEY', 'Content-Type', 'X-Correlation-Id', 'Idempotency-Key'];
const EXPOSED_HEADERS = ['X-Correlation-Id', 'X-Position-Id', 'Retry-After', 'Allow', 'X-Account-Api-Key', 'X-Account-Api-Key-Id'];

const preflight = cors({ origin: true, methods: METHODS, allowedHeaders: ALLOWED_HEADERS, maxAge: 600 });
const actual = cors({ origin: true, exposedHeaders: EXPOSED_HEADERS });

/** Before authentication: OPTIONS is answered here, without a key. */
export const corsPreflight: RequestHandler = (req, res, next) => (req.method === 'OPTIONS' ? preflight(req, res, next) : next());

/** After authentication: the key's origins (and always the operator's domain). */
export const corsForKey =
  (operatorDomain: string | null): RequestHandler =>
  (req, res, next) => {
    const origin = req.header('origin');
    if (origin === undefined) return next();
    const caller = res.locals.caller as Caller;
    if (!originAllowed(caller.accessPolicy?.corsOrigins ?? [], origin, operatorDomain)) {
      return next(new ApiError(403, '[FORBIDDEN_ORIGIN_NOT_ALLOWED]', `the origin ${origin} is not allowed for this API key`));
    }
    return actual(req, res, next);
  };
