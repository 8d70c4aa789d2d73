// Authentication (spec "Authentication"): the API key travels in the X-API-KEY header. Keys are stored
// only as SHA-256 hashes: they are 32 random bytes, so a fast hash is enough and costs no CPU per request.
//
// After the key itself (unknown 401 [API_KEY_INVALID], revoked 401 [API_KEY_REVOKED], expired from the
// very millisecond of expiresAt 401 [API_KEY_EXPIRED]) come the key's rules that need no route: an AI
// key without an enabled access policy is denied (403 [AI_KEY_ACCESS_POLICY_REQUIRED]), and the IP
// whitelist (403 [FORBIDDEN_IP_NOT_ALLOWED]) against req.ip, which believes X-Forwarded-For only from
// TRUSTED_PROXIES. Nothing is cached: a revocation or a policy change applies to the next request.
import type { RequestHandler } from 'express';
import { type AccessPolicy, effectivePolicy } from '../domain/apiKey/accessPolicy.js';
import { hashApiKey } from '../domain/apiKey/secret.js';
import type { ApiKeyType } from '../domain/apiKey/events.js';
import { ipAllowed } from '../domain/apiKey/ipWhitelist.js';
import { keyWithLastUse, recordUsage, usageIsStale } from '../app/apiKeyUsage.js';
import { ApiError } from './errors.js';
import type { Caller } from './route.js';
import type { Services } from '../app/services.js';

export const API_KEY_HEADER = 'X-API-KEY';

export const authenticate =
  (services: Services): RequestHandler =>
  async (req, res, next) => {
    try {
      const key = req.header(API_KEY_HEADER);
      if (!key) throw new ApiError(401, '[API_KEY_MISSING]', `send your API key in the ${API_KEY_HEADER} header`);
      if (key.length > 512) throw new ApiError(401, '[API_KEY_INVALID]', 'the API key is not valid');
      const row = await keyWithLastUse(services.db, hashApiKey(key));
      if (!row) throw new ApiError(401, '[API_KEY_INVALID]', 'the API key is not valid');
      if (row.revoked_at) throw new ApiError(401, '[API_KEY_REVOKED]', 'the API key was revoked');
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
      if (usageIsStale(row.last_used_at, now)) await recordUsage(services.db, row.id, now);
      const caller: Caller = {
        apiKeyId: row.id,
        projectId: row.project_id,
        level: row.level === 'ACCOUNT' ? 'ACCOUNT' : 'PROJECT',
        accountId: row.account_id,
        accessPolicy: policy,
      };
      res.locals.caller = caller;
      next();
    } catch (error) {
      next(error);
    }
  };
