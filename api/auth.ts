// Authentication (spec "Authentication"): the API key travels in the X-API-KEY header. Keys are stored
// only as SHA-256 hashes: they are 32 random bytes, so a fast hash is enough and costs no CPU per request.
//
// After the key itself (unknown 401 [API_KEY_INVALID], revoked 401 [API_KEY_REVOKED], expired from the
// very millisecond of expiresAt 401 [API_KEY_EXPIRED]) come the key's rules that need no route: an AI
// key without an enabled access policy is denied (403 [AI_KEY_ACCESS_POLICY_REQUIRED]), and the IP
// whitelist (403 [FORBIDDEN_IP_NOT_ALLOWED]) against req.ip, which believes X-Forwarded-For only from
// TRUSTED_PROXIES.
//
// Every request reads its key's row, so a revocation or a policy change applies to the next request,
// whichever instance made it. Most read it in a query of its own. The account reads (routes declared
// with `checksKey`) read it in the same statement as their answer instead (issue 16: one round trip
// per read): for a key this instance has admitted before without restrictions (no access policy), the
// caller is taken from memory (what never changes of a key: id, project, level, account), the route
// runs, and its answer leaves only once the row read with it admits the key (KeyCheck.complete; an
// answer kept from an earlier request, api/accounts/answers.ts, is checked with the row read in the
// statement that tells whether it is still current). A
// refusal then discards the answer: such routes only read. Any error before that reads the key first,
// so a refused key learns nothing else, as before.
import type { Request, RequestHandler } from 'express';
import { type AccessPolicy, effectivePolicy } from '../domain/apiKey/accessPolicy.js';
import { hashApiKey } from '../domain/apiKey/secret.js';
import type { ApiKeyType } from '../domain/apiKey/events.js';
import { ipAllowed } from '../domain/apiKey/ipWhitelist.js';
import { recordUsage, usageIsStale } from '../app/apiKeyUsage.js';
import { keyWithLastUse, type KeyWithLastUse } from '../projections/apiKeys/queries.js';
import { ApiError } from './errors.js';
import type { Caller } from './route.js';
import type { Services } from '../app/services.js';

export const API_KEY_HEADER = 'X-API-KEY';

/** Keys remembered per instance; past this, the oldest is forgotten (it is read again when it comes back). */
const KNOWN_KEYS_MAX = 10_000;

/** A key's row as a query read it (timestamps as Date, or as ISO text when read as JSON). */
export type KeyRow = Omit<KeyWithLastUse, 'expires_at' | 'revoked_at' | 'last_used_at'> & {
  readonly expires_at: Date | string | null;
  readonly revoked_at: Date | string | null;
  readonly last_used_at: Date | string | null;
};

/** The keys this instance admitted last time without restrictions, by hash: the caller they give. */
type KnownKeys = Map<string, Caller>;

/** Judges a key's row as of now: the caller it gives, or the refusal. Remembers unrestricted keys. */
const admit = async (services: Services, known: KnownKeys, keyHash: string, row: KeyRow | undefined, req: Request): Promise<Caller> => {
  known.delete(keyHash);
  if (!row) throw new ApiError(401, '[API_KEY_INVALID]', 'the API key is not valid');
  // A blocked customer's keys are suspended, not revoked (app/customersBlock.ts): the block is read with the key, so unblocking restores them.
  // Its own project stays readable: ProjectDTO.blocked tells why everything else is refused.
  const ownProject = req.method === 'GET' && req.path === `/projects/${row.project_id}`;
  if (row.customer_blocked && !ownProject) throw new ApiError(403, '[CUSTOMER_BLOCKED]', "the brand's operator blocked the customer who owns this project");
  if (row.revoked_at) {
    throw new ApiError(
      401,
      '[API_KEY_REVOKED]',
      row.revoked_reason === 'PROJECT_DELETED' ? 'the API key was revoked: its project was deleted' : 'the API key was revoked',
    );
  }
  const now = services.clock();
  if (row.expires_at && new Date(row.expires_at) <= now) {
    throw new ApiError(401, '[API_KEY_EXPIRED]', 'the API key has expired');
  }
  const policy = effectivePolicy(row.key_type as ApiKeyType, (row.access_policy ?? null) as AccessPolicy | null);
  if (policy === 'DENIED') {
    throw new ApiError(403, '[AI_KEY_ACCESS_POLICY_REQUIRED]', 'an AI key is denied everything until it has an enabled access policy');
  }
  if (policy && !ipAllowed(policy.ipWhitelist, req.ip)) {
    throw new ApiError(403, '[FORBIDDEN_IP_NOT_ALLOWED]', `requests from ${req.ip ?? 'this address'} are not allowed for this API key`);
  }
  // At most once a minute per key (app/apiKeyUsage.ts), so not a write per request.
  if (usageIsStale(row.last_used_at, now)) await recordUsage(services.db, row.id, now);
  const caller: Caller = {
    apiKeyId: row.id,
    projectId: row.project_id,
    level: row.level === 'ACCOUNT' ? 'ACCOUNT' : 'PROJECT',
    accountId: row.account_id,
    accessPolicy: policy,
  };
  if (!policy && !row.customer_blocked) {
    if (known.size >= KNOWN_KEYS_MAX) known.delete(known.keys().next().value!);
    known.set(keyHash, caller);
  }
  return caller;
};

/**
 * The check of a key a route completes with the row it read in its own statement
 * (keyWithLastUseById in projections/apiKeys/queries.ts). Until it is complete, nothing is answered.
 */
export class KeyCheck {
  private admitted: Caller | null = null;

  constructor(
    private readonly services: Services,
    private readonly known: KnownKeys,
    private readonly keyHash: string,
    private readonly req: Request,
    /** The caller the key gave last time: the route reads with it. */
    readonly assumed: Caller,
  ) {}

  /** The caller once the key is admitted. */
  get caller(): Caller | null {
    return this.admitted;
  }

  /**
   * Judges the row read with the answer (undefined: the statement read none, as when it selected no
   * account; the key is read now). Answers the caller, or throws the refusal.
   */
  async complete(row?: KeyRow | null): Promise<Caller> {
    if (this.admitted) return this.admitted;
    const current = row ?? (await keyWithLastUse(this.services.db, this.keyHash));
    // The row by id: after a rotation it carries the new value's hash, and the old value is unknown.
    const own = current && current.id === this.assumed.apiKeyId && current.key_hash === this.keyHash ? current : undefined;
    this.admitted = await admit(this.services, this.known, this.keyHash, own, this.req);
    return this.admitted;
  }
}

/** The key check a route completes itself, if this request has one (see KeyCheck). */
export const keyCheckOf = (locals: Record<string, unknown>): KeyCheck | null => (locals.keyCheck as KeyCheck | undefined) ?? null;

/**
 * `defers(req)`: whether the request goes to a route that reads its key with its answer (a GET of one of
 * the routes declared with `checksKey`); only then, and only for a key admitted before without
 * restrictions and a request without an Origin (CORS answers depend on the key's policy) nor a body
 * (a body is parsed, and may be refused, before the route), is the check left to the route.
 */
export const authenticate = (services: Services, defers: (req: Request) => boolean = () => false): RequestHandler => {
  const known: KnownKeys = new Map();
  return async (req, res, next) => {
    try {
      const key = req.header(API_KEY_HEADER);
      if (!key) throw new ApiError(401, '[API_KEY_MISSING]', `send your API key in the ${API_KEY_HEADER} header`);
      if (key.length > 512) throw new ApiError(401, '[API_KEY_INVALID]', 'the API key is not valid');
      const keyHash = hashApiKey(key);
      const assumed = known.get(keyHash);
      const plain = req.header('origin') === undefined && req.header('content-length') === undefined && req.header('transfer-encoding') === undefined;
      if (assumed && req.method === 'GET' && plain && defers(req)) {
        res.locals.caller = assumed;
        res.locals.keyCheck = new KeyCheck(services, known, keyHash, req, assumed);
        return next();
      }
      res.locals.caller = await admit(services, known, keyHash, await keyWithLastUse(services.db, keyHash), req);
      next();
    } catch (error) {
      next(error);
    }
  };
};
