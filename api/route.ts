// One declaration per endpoint: the express route and its OpenAPI operation come from the same
// schemas, and every path parameter, query and body is validated before the handler runs.
import { type TObject, type TSchema, Type } from '@sinclair/typebox';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { AccessPolicy } from '../domain/apiKey/accessPolicy.js';
import type { RequestContext } from '../domain/shared/command.js';
import type { SerialisedBody } from './accounts/answers.js';
import { applyFieldAccess, enforceEndpointAccess, hidesFields, withHideableFields } from './apiKeys/enforcement.js';
import { FirstSegmentDispatch } from './dispatch.js';
import { type LaneTurn, laneTurnOf } from './availability.js';
import { ApiError } from './errors.js';
import { type KeyCheck, keyCheckOf } from './auth.js';
import { errorResponses } from './shared/schemas.js';
import { validate } from './validation.js';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface Caller {
  readonly apiKeyId: string;
  readonly projectId: string;
  readonly level: 'PROJECT' | 'ACCOUNT';
  readonly accountId: string | null;
  /** The key's access policy when it is enabled (spec "Access policy of an API key"); null restricts nothing. */
  readonly accessPolicy?: AccessPolicy | null;
}

export interface HandlerInput<P, Q, B> {
  readonly params: P;
  readonly query: Q;
  readonly body: B;
  readonly caller: Caller;
  readonly context: RequestContext;
  readonly req: Request;
  /** Routes declared with `checksKey`: the key check to complete with the key's row read in the answer's statement, if left to the route. */
  readonly keyCheck: KeyCheck | null;
  /** The request's slot in its lane (api/availability.ts), for a read that waits on a shared statement. */
  readonly lane: LaneTurn | null;
}

export interface HandlerOutput {
  readonly status?: number;
  readonly body?: unknown;
  /** `body` already serialised (api/accounts/answers.ts): sent as it is unless the key's policy hides fields of it. */
  readonly json?: SerialisedBody;
  /** A body that is not JSON (an SVG picture), sent as is with its content type. */
  readonly raw?: { readonly contentType: string; readonly body: string };
  readonly headers?: Readonly<Record<string, string>>;
}

export interface ResponseSpec {
  readonly description: string;
  readonly schema?: TSchema;
  /** Default application/json; another type means the body is sent raw (HandlerOutput.raw). */
  readonly contentType?: string;
  readonly headers?: Readonly<Record<string, { readonly description: string; readonly schema: TSchema }>>;
}

export interface RouteSpec<P = unknown, Q = unknown, B = unknown> {
  readonly method: Method;
  /** OpenAPI form, relative to /rest/api/v1: `/accounts/{accountId}`. */
  readonly path: string;
  readonly tag: string;
  readonly operationId: string;
  readonly summary: string;
  readonly description?: string;
  readonly params?: TObject;
  readonly query?: TObject;
  /** Request headers the handler reads (Idempotency-Key): documented in the OpenAPI document; the handler checks them. */
  readonly headers?: TObject;
  readonly body?: TSchema;
  /**
   * What the body is checked against before the handler, when that differs from the documented `body`:
   * a polymorphic member whose branch a sibling names (FeatureDTO's setting, by type.id) is checked
   * by the handler against that branch alone, for errors that speak of its members only.
   */
  readonly bodyValidation?: TSchema;
  readonly bodyRequired?: boolean;
  readonly responses: Readonly<Record<number, ResponseSpec>>;
  /** Default true: the X-API-KEY header is required. */
  readonly authenticated?: boolean;
  /**
   * A GET whose handler reads the caller's key in the statement of its answer and completes
   * `keyCheck` with it (api/auth.ts). Only for routes that change nothing.
   */
  readonly checksKey?: boolean;
  readonly handler: (input: HandlerInput<P, Q, B>) => Promise<HandlerOutput>;
}

const EMPTY_QUERY = Type.Object({}, { additionalProperties: false });

const isEmptyBody = (req: Request): boolean =>
  req.body === undefined || (typeof req.body === 'object' && req.body !== null && Object.keys(req.body).length === 0 && !req.headers['content-length']);

/**
 * JSON already serialised, as res.json would send it (same type, length, entity tag and freshness
 * check), without serialising again nor hashing the bytes again for the entity tag.
 */
const sendSerialised = (res: Response, json: SerialisedBody): void => {
  // res.setHeader, not res.set: the same headers (res.set would parse this type to add the charset it has).
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  const etagOf = res.app.get('etag fn') as ((body: Buffer) => string) | undefined;
  if (etagOf) {
    json.etag ??= etagOf(json.bytes);
    res.setHeader('ETag', json.etag);
  }
  res.send(json.bytes);
};

export class Routes {
  readonly specs: RouteSpec[] = [];

  add<P, Q, B>(spec: RouteSpec<P, Q, B>): void {
    // Declared as a restricted key may receive them: see api/apiKeys/enforcement.ts.
    // Any authenticated operation may meet the key's access policy (IP, endpoint, origin, AI key): 403.
    const withPolicy = spec.authenticated === false ? spec.responses : { ...errorResponses(403), ...spec.responses };
    // Any write may keep losing to concurrent writers of the same aggregate: 409 [CONCURRENT_MODIFICATION].
    const declared = spec.method === 'get' ? withPolicy : { ...errorResponses(409), ...withPolicy };
    const responses = Object.fromEntries(
      Object.entries(declared).map(([status, r]) => [status, r.schema ? { ...r, schema: withHideableFields(r.schema) } : r]),
    );
    this.specs.push({ ...spec, responses } as unknown as RouteSpec);
  }

  /** Whether a request goes to a route declared with `checksKey` (its path within the API, as the router sees it). */
  checksKey(): (req: Request) => boolean {
    const patterns = this.specs
      .filter((spec) => spec.checksKey && spec.method === 'get')
      .map((spec) => new RegExp(`^${spec.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+')}$`));
    return (req) => {
      if (req.method !== 'GET') return false;
      const path = req.path;
      for (const pattern of patterns) if (pattern.test(path)) return true;
      return false;
    };
  }

  /** Every authenticated route, as one handler dispatching by method and first path segment (api/dispatch.ts). */
  handler(callerOf: (res: Response) => Caller | null, contextOf: (req: Request, res: Response) => RequestContext): express.RequestHandler {
    const dispatch = new FirstSegmentDispatch();
    for (const spec of this.specs) {
      // Operations without an API key are served before authentication by handlers of their own
      // (api/webhooks/charting/inbound.ts); declared here for the OpenAPI document and the contract checks.
      if (spec.authenticated === false) continue;
      dispatch.route(spec.method, spec.path, async (req: Request, res: Response, next: NextFunction) => {
        try {
          const assumed = callerOf(res);
          const keyCheck = keyCheckOf(res.locals);
          // A route that does not read the key itself waits for it here.
          if (keyCheck && !spec.checksKey) await keyCheck.complete();
          // Before anything else looks at the request: a blocked call learns nothing, not even about its input.
          enforceEndpointAccess(assumed?.accessPolicy, spec.path, req);
          const params = spec.params ? validate(spec.params, { ...req.params }, 'path') : {};
          // Without a query string there is nothing to parse (req.query parses it at each read) nor to check.
          const query = spec.query || req.url.includes('?') ? validate(spec.query ?? EMPTY_QUERY, { ...(req.query as object) }, 'query') : {};
          let body: unknown = undefined;
          if (spec.body) {
            const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
            if (hasBody && !req.is(['application/json', 'application/*+json'])) {
              throw new ApiError(415, '[UNSUPPORTED_MEDIA_TYPE]', 'send the body as application/json');
            }
            if (req.body === undefined || isEmptyBody(req)) {
              if (spec.bodyRequired) throw new ApiError(400, '[VALIDATION_FAILED]', 'a JSON request body is required');
              body = {};
            } else {
              body = validate(spec.bodyValidation ?? spec.body, req.body, 'body');
            }
          } else if (req.body !== undefined && Number(req.headers['content-length'] ?? 0) > 0 && req.is('application/json')) {
            const empty = typeof req.body === 'object' && req.body !== null && Object.keys(req.body).length === 0;
            if (!empty) throw new ApiError(400, '[VALIDATION_FAILED]', 'this endpoint takes no request body');
          }
          const lane = laneTurnOf(res.locals);
          // The request context (its client address asks the proxy rules) is made only for a handler that takes it.
          let context: RequestContext | undefined;
          const input = {
            params,
            query,
            body,
            caller: assumed!,
            get context() {
              return (context ??= contextOf(req, res));
            },
            req,
            keyCheck,
            lane,
          } as HandlerInput<unknown, unknown, unknown>;
          const out = await spec.handler(input);
          // Nothing leaves before the key is admitted, with its policy as it is now.
          const caller = keyCheck ? (keyCheck.caller ?? (await keyCheck.complete())) : assumed;
          if (caller !== assumed) enforceEndpointAccess(caller?.accessPolicy, spec.path, req);
          if (out.headers) res.set(out.headers);
          const status = out.status ?? 200;
          if (out.raw) res.status(status).type(out.raw.contentType).send(out.raw.body);
          else if (out.body === undefined) res.status(status).end();
          else if (out.json && !hidesFields(caller?.accessPolicy)) sendSerialised(res.status(status), out.json);
          else res.status(status).json(applyFieldAccess(caller?.accessPolicy, spec.responses[status]?.schema, out.body));
        } catch (error) {
          // A refused key learns nothing else (nor a call its policy now blocks): the refusal comes first.
          const keyCheck = keyCheckOf(res.locals);
          if (keyCheck && !keyCheck.caller) {
            try {
              enforceEndpointAccess((await keyCheck.complete()).accessPolicy, spec.path, req);
            } catch (refusal) {
              return next(refusal);
            }
          }
          next(error);
        }
      });
    }
    return dispatch.handler;
  }
}
