// An account's live session at its venue, as the Trading API uses it (spec "Trading API"): the checks
// every trading request passes first (the account exists in the caller's project, is started, is
// connected, may trade), and the venue's views of a book, a history and a symbol, named here so the API
// maps them to its DTOs without knowing the engine.
import { AccountStatus } from '../../domain/account/enums.js';
import { protectionSkip } from '../../domain/protection/blocks.js';
import { illegalState } from '../../domain/shared/errors.js';
import { protectionBlocksOf } from '../../projections/protections/queries.js';
import type { Services } from '../services.js';

export type {
  ClosedTrade,
  OpenPosition,
  OrderRequest,
  OrderType,
  PendingOrder,
  SymbolInfo,
  VenueConnection as TradingSession,
  VenuePosition,
} from '../../engine/venues/port.js';
export { VenueError as TradingRefusal } from '../../engine/venues/port.js';
export { specOrderType, venueOrderType } from '../../engine/venues/recorder.js';
import { DEFAULT_ACCOUNT_CURRENCY as SIMULATED_DEFAULT } from '../../engine/venues/simulated/market.js';
import { recordedCurrencies } from '../../projections/accounts/currency.js';

/**
 * The account currency: the broker's while the account has a session, else the one recorded at its last
 * connection (the accounts read model), else the simulated venue's default (USD).
 */
export const accountCurrencyOf = async (services: Services, accountId: string): Promise<string> =>
  (await services.connections.connection(accountId)?.accountInformation())?.currency ??
  (await recordedCurrencies(services.db, [accountId])).get(accountId) ??
  SIMULATED_DEFAULT;

/** The currency an account without a session is taken to have: the simulated venue's. */
export const DEFAULT_ACCOUNT_CURRENCY = SIMULATED_DEFAULT;

/** The account members the checks read (the accounts read model's row). */
export interface TradingAccount {
  readonly account_status_id: number;
  readonly trading_disabled: boolean;
}

/**
 * The account's live venue session; `write` also refuses an account whose trading is disabled. A
 * deleted, stopped or unconnected account: 409 with the code that says which.
 */
export const tradingSession = (services: Services, accountId: string, account: TradingAccount, write: boolean) => {
  if (account.account_status_id === AccountStatus.Deleted) throw illegalState('[ACCOUNT_DELETED]', `account ${accountId} was deleted`);
  if (account.account_status_id !== AccountStatus.Active) {
    throw illegalState('[ACCOUNT_NOT_ACTIVE]', 'the account is not started: POST .../actions/start connects it');
  }
  if (write && account.trading_disabled) throw illegalState('[TRADING_DISABLED]', 'trading is disabled on this account (tradingDisabled)');
  const connection = services.connections.connection(accountId);
  if (!connection) throw illegalState('[ACCOUNT_NOT_CONNECTED]', 'the account has no session with its broker; see its logs, or POST .../actions/reconnect');
  return connection;
};

/**
 * A risk limit hit or a profit target locked keeps new trades off the whole account (the spec's
 * "Profit target lock": "new ones will be blocked"), not only the copies: an open of `symbol` through the
 * Trading API is refused with 409 and the lock's own code ([RISK_LIMIT_HIT], [PROFIT_TARGET_LOCKED],
 * [OVERALL_TARGET_REACHED] for a per-symbol overall target's symbol), the reason the account log gives.
 * A risk limit scoped to one copier keeps only that copier's copies off. Closes, cancels and changes
 * of what is open stay allowed.
 */
export const refuseOpenWhileLocked = async (services: Pick<Services, 'db' | 'clock'>, accountId: string, symbol: string): Promise<void> => {
  const blocks = (await protectionBlocksOf(services.db, [accountId], services.clock())).get(accountId) ?? [];
  const lock = protectionSkip(blocks, symbol);
  if (lock) throw illegalState(`[${lock.reason}]`, `the account is locked, nothing new opens on it until the lock ends or is reset: ${lock.message}`);
};
