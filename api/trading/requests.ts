// What every trading request of an account goes through (spec "Trading API"): the account's live session,
// the request's identity (an Idempotency-Key, else the reference's requestId), the record of who asked
// for what before the venue hears of it (TradeRequested), the venue's refusal recorded
// (TradeRequestRejected), and the answer once the read models include the venue's changes.
import { randomUUID } from 'node:crypto';
import { v5 as uuidv5 } from 'uuid';
import { TRADE_REQUEST_NAMESPACE } from '../../domain/positions/requests.js';
import type { TradeRequest } from '../../domain/positions/events.js';
import { claimClientRequestId, type EventMetadata, recordTradeRejection, recordTradeRequest } from '../../app/commands/tradeRequests.js';
import { TradingRefusal, type TradingSession, tradingSession } from '../../app/trading/session.js';
import { type Services, settle } from '../../app/services.js';
import { loadAccount } from '../shared/accounts.js';
import type { Caller, HandlerInput } from '../route.js';
import { idempotencyKeyOf, idempotencyKeyReused, requestFingerprint } from './idempotency.js';

/** A trading request's client order id, and the fingerprint to record when an Idempotency-Key named it. */
export interface RequestIdentity {
  readonly requestId: string;
  readonly fingerprint: string | null;
}

type Input = HandlerInput<{ accountId: string }, unknown, unknown>;

export const tradingRequests = (services: Services) => {
  /** The account, and its live venue session; `write` also refuses an account whose trading is disabled. */
  const session = async (caller: Caller, accountId: string, write: boolean) => {
    const account = await loadAccount(services, caller, accountId);
    return { account, connection: tradingSession(services, accountId, account, write) };
  };

  const fingerprintOf = (input: Input) =>
    requestFingerprint({ method: input.req.method, path: input.context.path ?? input.req.path, query: input.query, body: input.body });

  /**
   * The client order id: from Idempotency-Key when given (a retried request places nothing twice), else
   * from the body's requestId (a retry within its window places nothing twice), else new. Call it after
   * every check that can refuse the request: `requested` then records the key's use.
   */
  const identityOf = async (input: Input, requestId?: number): Promise<RequestIdentity> => {
    const key = idempotencyKeyOf(input.req.header('idempotency-key'));
    if (key !== null) return { requestId: uuidv5(`${input.params.accountId}/${key}`, TRADE_REQUEST_NAMESPACE), fingerprint: fingerprintOf(input) };
    if (requestId === undefined) return { requestId: randomUUID(), fingerprint: null };
    const orderRequestId = await claimClientRequestId(services, {
      accountId: input.params.accountId,
      requestId,
      fingerprint: fingerprintOf(input),
      orderRequestId: randomUUID(),
      context: input.context,
    });
    return { requestId: orderRequestId, fingerprint: null };
  };

  /** Records who asked for what, before the venue hears of it; answers the metadata its refusal carries too. */
  const requested = async (input: Input, { requestId, fingerprint }: RequestIdentity, request: TradeRequest): Promise<EventMetadata> => {
    try {
      return await recordTradeRequest(services, { accountId: input.params.accountId, requestId, fingerprint, request, context: input.context });
    } catch (error) {
      throw idempotencyKeyReused(error);
    }
  };

  const rejected = async (accountId: string, requestId: string, error: TradingRefusal, metadata: EventMetadata) => {
    await recordTradeRejection(services, { accountId, requestId, refusal: error }, metadata);
  };

  /** Runs a venue request; a refusal is recorded and answered as the venue's 4xx. */
  const atVenue = async <T>(accountId: string, requestId: string, metadata: EventMetadata, work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      if (error instanceof TradingRefusal) {
        await rejected(accountId, requestId, error, metadata);
        await settle(services);
      }
      throw error;
    }
  };

  /** Answers once the venue's changes are recorded and the read models include them. */
  const recorded = async (accountId: string) => {
    await services.connections.recorded(accountId);
    await settle(services);
  };

  /** Closes and cancels everything at the account; answers what stayed open and why. */
  const closeEverything = async (accountId: string, connection: TradingSession, input: HandlerInput<unknown, unknown, unknown>) => {
    const { requestId } = await identityOf({ ...input, params: { accountId } } as Input);
    const metadata = await requested({ ...input, params: { accountId } } as Input, { requestId, fingerprint: null }, { action: 'closeAll' });
    const failures: { positionId: string; error: string; message: string }[] = [];
    for (const item of await connection.positions()) {
      try {
        if (item.kind === 'order') await connection.cancelOrder(item.id, `${requestId}/${item.id}`);
        else await connection.closePosition(item.id, undefined, `${requestId}/${item.id}`);
      } catch (error) {
        if (!(error instanceof TradingRefusal)) throw error;
        failures.push({ positionId: item.id, error: error.code, message: error.message });
        await rejected(accountId, `${requestId}/${item.id}`, error, metadata);
      }
    }
    await recorded(accountId);
    return failures;
  };

  return { session, identityOf, requested, rejected, atVenue, recorded, closeEverything };
};

export type TradingRequests = ReturnType<typeof tradingRequests>;
