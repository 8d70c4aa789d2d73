// Authentication (spec "Authentication"): the API key travels in the X-API-KEY header. Keys are stored
// only as SHA-256 hashes: they are 32 random bytes, so a fast hash is enough and costs no CPU per request.
import { createHash, randomBytes } from 'node:crypto';
import type { RequestHandler } from 'express';
import { findApiKeyByHash } from '../projections/apiKeys/queries.js';
import { ApiError } from './errors.js';
import type { Caller } from './route.js';
import type { Services } from './services.js';

export const API_KEY_HEADER = 'X-API-KEY';

export const hashApiKey = (key: string): string => createHash('sha256').update(key, 'utf8').digest('hex');

export const generateApiKey = (): string => `ct_${randomBytes(32).toString('base64url')}`;

/** Enough to recognise a key in a list (`ct_` and four characters), far too little to guess it. */
export const keyPrefix = (key: string): string => key.slice(0, 7);

export const authenticate =
  (services: Services): RequestHandler =>
  async (req, res, next) => {
    try {
      const key = req.header(API_KEY_HEADER);
      if (!key) throw new ApiError(401, '[API_KEY_MISSING]', `send your API key in the ${API_KEY_HEADER} header`);
      if (key.length > 512) throw new ApiError(401, '[API_KEY_INVALID]', 'the API key is not valid');
      const row = await findApiKeyByHash(services.db, hashApiKey(key));
      if (!row) throw new ApiError(401, '[API_KEY_INVALID]', 'the API key is not valid');
      if (row.revoked_at) throw new ApiError(401, '[API_KEY_REVOKED]', 'the API key was revoked');
      if (row.expires_at && new Date(row.expires_at) <= services.clock()) {
        throw new ApiError(401, '[API_KEY_EXPIRED]', 'the API key has expired');
      }
      const caller: Caller = {
        apiKeyId: row.id,
        projectId: row.project_id,
        level: row.level === 'ACCOUNT' ? 'ACCOUNT' : 'PROJECT',
        accountId: row.account_id,
      };
      res.locals.caller = caller;
      next();
    } catch (error) {
      next(error);
    }
  };
