// The API's routes grouped by method and first path segment (issue 16: GET /accounts/{accountId} at 0.5
// of a bare express route and more). Declared one after another on one router, a request walked every
// route declared before its own (GET /accounts/{accountId} about 45, each a regular expression tried);
// here one lookup picks the router holding only the routes that can match it, in their declared order.
//
// Nothing else changes for the request: the chosen router is called with req.url as it is (no mount
// path), so req.path, req.baseUrl, req.originalUrl, req.params and req.route are what the one router
// gave them, for the handlers, the metrics' route label and the audit recorder. A request no group
// holds, or that no route of its group matches, goes on to what follows (405 [METHOD_NOT_ALLOWED],
// 404 [ENDPOINT_NOT_FOUND]), as before.
//
// Why a group holds every route that can match: every declared path starts with a literal segment (a
// path starting with a parameter is refused when declared), a route matches its first segment
// case-insensitively as the router does (routes are not case-sensitive), and express serves HEAD with
// the GET route.
import express, { type RequestHandler } from 'express';
import type { Method } from './route.js';

/** The first segment of a path, as the routers compare it (case-insensitively): '/accounts/1' → 'accounts'. */
const firstSegment = (path: string): string => {
  const end = path.indexOf('/', 1);
  return (end < 0 ? path.slice(1) : path.slice(1, end)).toLowerCase();
};

export class FirstSegmentDispatch {
  private readonly routers = new Map<string, express.Router>();

  /** The router for routes of this method whose OpenAPI path (`/accounts/{accountId}`) starts with this segment. */
  routerFor(method: Method, path: string): express.Router {
    const segment = firstSegment(path);
    if (!path.startsWith('/') || segment === '' || segment.includes('{') || segment.includes(':')) {
      throw new Error(`a route's path must start with a literal segment: ${method.toUpperCase()} ${path}`);
    }
    const key = `${method.toUpperCase()} ${segment}`;
    let router = this.routers.get(key);
    if (!router) {
      router = express.Router();
      this.routers.set(key, router);
    }
    return router;
  }

  /** Hands the request to its group's router, or on when there is none. */
  readonly handler: RequestHandler = (req, res, next) => {
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    const router = this.routers.get(`${method} ${firstSegment(req.path)}`);
    if (!router) return next();
    router(req, res, next);
  };
}
