// The API's routes grouped by method, first path segment and number of segments (issue 16: GET
// /accounts/{accountId} at 0.5 of a bare express route and more). Declared one after another on one
// router, a request walked every route declared before its own (GET /accounts/{accountId} about 45,
// each a regular expression tried); here one lookup picks the group holding only the routes that can
// match it, in their declared order (GET /accounts/{accountId}: 3 before it instead of 10).
//
// A group's routes are declared on an express router of their own, but the request does not go through
// that router: its route layers are tried here in their order, each with the layer's own match (the
// same regular expression, case-insensitive, one trailing slash allowed, parameters decoded, a bad
// escape an error 400), and a route with one handler has it called directly, as the route would call
// it (a thrown error or a rejected promise is passed on as an error); a route of several handlers is
// dispatched by the route itself. What a request walked through a router costs (its closures, its
// exit through setImmediate, and for the route a closure of its own, issue 16: the two were about a
// quarter of the bytes allocated per GET /accounts/{accountId}) is spared; what the handlers see is
// not changed: req.url as it is (no mount path), so req.path, req.baseUrl and req.originalUrl are
// those of the request, req.params are the route's (those before it are given back when it passes the
// request on) and req.route is the route (for the metrics' route label and the audit recorder). A
// request no group holds, or that no route of its group matches, goes on to what follows
// (405 [METHOD_NOT_ALLOWED], 404 [ENDPOINT_NOT_FOUND]), as before. A handler passing the request on
// without an error, or with 'route', goes to the next route of its group that matches, with 'router'
// out of the group, as the router would do. (The router's diagnostics channel, router's tracing of
// each handler, is not published for these routes: nothing here subscribes to it.)
//
// Why a group holds every route that can match: every declared path starts with a literal segment (a
// path starting with a parameter is refused when declared), a route matches its first segment
// case-insensitively as the router does (routes are not case-sensitive), and express serves HEAD with
// the GET route. Every segment of a route, literal or parameter, matches one non-empty run of
// characters without a slash (no wildcards: refused when declared), and the router allows one trailing
// slash, so a route matches only paths with as many segments as it has once that slash is set aside.
import express, { type ErrorRequestHandler, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { Method } from './route.js';

/** Express's form of an OpenAPI path: `/accounts/{accountId}` → `/accounts/:accountId`. */
export const expressPath = (path: string): string => path.replace(/\{(\w+)\}/g, ':$1');

/** The first segment of a path, as the routers compare it (case-insensitively): '/accounts/1' → 'accounts'. */
const firstSegment = (path: string): string => {
  const end = path.indexOf('/', 1);
  return (end < 0 ? path.slice(1) : path.slice(1, end)).toLowerCase();
};

/** Segments of a path, one trailing slash set aside as the router does: '/accounts/1' and '/accounts/1/' → 2. */
const segmentCount = (path: string): number => {
  const end = path.length > 1 && path.endsWith('/') ? path.length - 1 : path.length;
  let count = 0;
  for (let i = 0; i < end; i++) if (path.charCodeAt(i) === 47) count++;
  return count;
};

export class FirstSegmentDispatch {
  private readonly routers = new Map<string, express.Router>();

  /**
   * The router for routes of this method whose path (`/accounts/{accountId}`, or express's
   * `/accounts/:accountId`) starts with this segment and has as many segments.
   */
  routerFor(method: Method, path: string): express.Router {
    const segment = firstSegment(path);
    if (!path.startsWith('/') || segment === '' || segment.includes('{') || segment.includes(':')) {
      throw new Error(`a route's path must start with a literal segment: ${method.toUpperCase()} ${path}`);
    }
    if (/[*?()]|\/\/|.\/$/.test(path)) throw new Error(`a route's path must be segments without wildcards: ${method.toUpperCase()} ${path}`);
    const key = `${method.toUpperCase()} ${segment} ${segmentCount(path)}`;
    let router = this.routers.get(key);
    if (!router) {
      router = express.Router();
      this.routers.set(key, router);
    }
    return router;
  }

  /** Declares a route (OpenAPI path) with its handlers on its group's router. */
  route(method: Method, path: string, ...handlers: (RequestHandler | ErrorRequestHandler)[]): void {
    this.routerFor(method, path)[method](expressPath(path), ...handlers);
  }

  /** Serves the request by the first route of its group that matches it (see above), or passes it on when none does. */
  readonly handler: RequestHandler = (req, res, next) => {
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    const path = req.path;
    const router = this.routers.get(`${method} ${firstSegment(path)} ${segmentCount(path)}`);
    if (!router) return next();
    serveFrom(router.stack as unknown as readonly RouteLayer[], 0, path, req, res, next);
  };
}

const isPromise = (value: unknown): value is Promise<unknown> => typeof (value as Promise<unknown> | null)?.then === 'function';

/** What express's router (router 2.x) keeps of a route declared on it: the layer matching its path, and the route. */
interface RouteLayer {
  /** The path's parameters (decoded) when it matches; throws a 400 error for a parameter that does not decode. */
  match(path: string): { readonly params: Record<string, string> } | false;
  readonly route?: {
    readonly stack: readonly { readonly handle: (req: Request, res: Response, next: NextFunction) => unknown }[];
    dispatch(req: Request, res: Response, next: NextFunction): void;
  };
}

/** Tries the route layers of `stack` from `from` on, in their order, as the router does (see above). */
const serveFrom = (stack: readonly RouteLayer[], from: number, path: string, req: Request, res: Response, next: NextFunction): void => {
  for (let i = from; i < stack.length; i++) {
    const layer = stack[i]!;
    const route = layer.route;
    if (!route) continue;
    let match: ReturnType<RouteLayer['match']>;
    try {
      match = layer.match(path);
    } catch (error) {
      return next(error);
    }
    if (!match) continue;
    const before = req.params;
    req.route = route;
    req.params = match.params;
    const onward = (error?: unknown): void => {
      req.params = before;
      if (error === 'router') return next();
      if (error && error !== 'route') return next(error);
      serveFrom(stack, i + 1, path, req, res, next);
    };
    const handler = route.stack.length === 1 ? route.stack[0]!.handle : undefined;
    // A handler of four parameters handles errors only: the route would pass the request by it.
    if (!handler || handler.length > 3) return route.dispatch(req, res, onward);
    try {
      const out = handler(req, res, onward);
      if (isPromise(out)) out.then(undefined, (rejection: unknown) => onward(rejection || new Error('Rejected promise')));
    } catch (thrown) {
      onward(thrown);
    }
    return;
  }
  next();
};

/**
 * `router` for the requests whose path (as the router sees it) starts with one of `segments` (compared as
 * the routers compare them, case-insensitively); every other request goes on at once, without walking
 * the router's routes.
 */
export const underSegments = (segments: readonly string[], router: RequestHandler): RequestHandler => {
  const wanted = new Set(segments.map((segment) => segment.toLowerCase()));
  return (req, res, next) => (wanted.has(firstSegment(req.path)) ? router(req, res, next) : next());
};

/**
 * Middleware run one after another as one layer of a router, as the router would run them one layer
 * each (issue 16: each layer a request walks costs the router's bookkeeping, a URL parse check and a
 * promise check). Nothing else changes: each is called with the request and a `next` of its own; an
 * error passed to it, thrown, or a rejected promise skips the rest and goes to the router's error
 * handling, as from a layer of the router. For path-less middleware only (none of them reads
 * req.params, which the router sets to {} for such a layer), that call `next` once.
 */
export const inSequence = (...handlers: readonly RequestHandler[]): RequestHandler => {
  if (handlers.length === 0) throw new Error('inSequence needs at least one handler');
  return (req, res, next) => {
    let index = 0;
    const step = (error?: unknown): void => {
      if (error) return next(error);
      const handler = handlers[index++];
      if (!handler) return next();
      try {
        const out = handler(req, res, step) as unknown;
        if (isPromise(out)) out.then(undefined, (rejection: unknown) => next(rejection || new Error('Rejected promise')));
      } catch (thrown) {
        next(thrown);
      }
    };
    step();
  };
};
