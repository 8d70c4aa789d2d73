// The OAuth token pair of one cTrader account (account.ts renews it; README "cTrader").
//
// The account's loginAccountPassword holds `accessToken`, or the reference's `accessToken|refreshToken`;
// once the adapter renewed the pair it stores `accessToken|refreshToken|<expiry, ISO 8601>` (sealed
// like every password; the third member is ours). An access token cTrader no longer takes
// (CH_ACCESS_TOKEN_INVALID, OA_AUTH_TOKEN_EXPIRED, ProtoOAAccountsTokenInvalidatedEvent) is renewed with
// ProtoOARefreshTokenReq, and so is one whose known expiry is nearer than CTRADER_TOKEN_RENEW_BEFORE_MS;
// cTrader then answers a new pair and the old one stops working, so the new pair is persisted at once
// (VenueCredentials.onRenewed) before anything else uses it.
import type { ProtoOARefreshTokenRes } from './protocol.js';
import { int } from './protocol.js';

export interface TokenPair {
  readonly accessToken: string;
  /** null: none given (an expired token is then a refusal). */
  readonly refreshToken: string | null;
  /** ms; null: not known (a pair given by the user). */
  readonly expiresAt: number | null;
}

/** The pair a loginAccountPassword holds. */
export const tokensOf = (password: string): TokenPair => {
  const [access, refresh, expiry] = password.split('|').map((part) => part.trim());
  const expiresAt = expiry ? Date.parse(expiry) : NaN;
  return { accessToken: access ?? '', refreshToken: refresh || null, expiresAt: Number.isFinite(expiresAt) ? expiresAt : null };
};

/** The loginAccountPassword that holds a pair. */
export const passwordOf = (pair: TokenPair): string =>
  [pair.accessToken, pair.refreshToken ?? '', ...(pair.expiresAt !== null ? [new Date(pair.expiresAt).toISOString()] : [])].join('|');

/** The pair cTrader answered to a refresh, at `now` (ms). */
export const renewedPair = (res: ProtoOARefreshTokenRes, now: number): TokenPair => ({
  accessToken: res.accessToken,
  refreshToken: res.refreshToken,
  expiresAt: now + int(res.expiresIn) * 1000,
});

/** Timers of Node fire at once past 2^31 − 1 ms (24.8 days, less than a token's 30): wait at most this long, then look again. */
export const LONGEST_WAIT_MS = 6 * 3600_000;

/** How long to wait before renewing a pair at `now`: 0 when due; null when its expiry is not known. */
export const renewalDelay = (pair: TokenPair, now: number, renewBeforeMs: number): number | null =>
  pair.expiresAt === null ? null : Math.max(0, pair.expiresAt - renewBeforeMs - now);
