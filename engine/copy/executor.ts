// Carries out the copy actions of one decision at the slave's venue, in order, and says what came of
// each as copy events. Every request carries the action's deterministic client id, so running the
// same decision again after a crash gets the venue's first answers back and changes nothing.
//
// Venue answers that are not failures of the copy:
//   - a close, partial close or modify of a slave position that is already gone: the slave closed it
//     (its own stop loss, by hand); recorded as SLAVE_POSITION_ALREADY_CLOSED;
//   - a cancel of a slave pending order that already filled: the copy is a position now; when the
//     decision meant to replace the order by a market open, the open is dropped (the slave holds
//     the position already), otherwise the position is closed, as the master holds nothing.
import type { CopyEvent, CopySkipReason, CopySource, ExecutionResult } from '../../domain/copy/events.js';
import { slaveOrderId } from '../../domain/copy/orderIds.js';
import type { CloseAction, CopyAction, MasterEvent, OpenAction, TradeAction } from '../../domain/copy/types.js';
import type { ClosedTrade, MarginMode, OrderRequest, VenueConnection } from '../venues/port.js';
import { VenueError } from '../venues/port.js';
import { venueOrderType } from '../venues/recorder.js';

export interface ExecutionContext {
  readonly copierId: string;
  readonly masterAccountId: string;
  readonly slaveAccountId: string;
  readonly source: CopySource;
  readonly slave: VenueConnection;
  readonly slaveMarginMode: MarginMode;
  /** CopierDTO.openRetry: minutes during which a refused open is resent every 30 seconds. */
  readonly openRetryMinutes: number;
  readonly masterEventAt: string | null;
  readonly now: () => Date;
  /** The master event decided, kept with a deferral so it can be decided again. */
  readonly masterEvent?: MasterEvent;
  /** Feature types that already held this event back. */
  readonly deferredBy?: readonly string[];
}

const RETRY_MS_PER_MINUTE = 60_000;

type Data<T extends CopyEvent['type']> = Extract<CopyEvent, { type: T }>['data'];

const closedResult = (trade: ClosedTrade): ExecutionResult => ({
  type: 'closed',
  volume: trade.volume,
  result: Math.round((trade.profit + trade.swap + trade.commission) * 100) / 100,
  closePrice: trade.closePrice,
  time: trade.closeTime,
});

export const openRequest = (action: OpenAction): OrderRequest => {
  const type = venueOrderType(action.orderType);
  const base = {
    symbol: action.symbol,
    volume: action.volume,
    stopLoss: action.stopLoss,
    takeProfit: action.takeProfit,
    comment: action.comment,
    magicNumber: action.magicNumber,
  };
  return type === 'buy' || type === 'sell' ? { ...base, orderType: type } : { ...base, orderType: type, openPrice: action.openPrice ?? 0 };
};

const isCode = (error: unknown, ...codes: string[]): error is VenueError => error instanceof VenueError && codes.includes(error.code);

export const executeActions = async (actions: readonly CopyAction[], ctx: ExecutionContext): Promise<CopyEvent[]> => {
  const base = () => ({
    copierId: ctx.copierId,
    masterAccountId: ctx.masterAccountId,
    slaveAccountId: ctx.slaveAccountId,
    source: ctx.source,
    at: ctx.now().toISOString(),
  });
  const events: CopyEvent[] = [];
  const executed = (action: TradeAction, result: ExecutionResult) =>
    events.push({ type: 'CopyExecuted', data: { ...base(), action, result, masterEventAt: ctx.masterEventAt } satisfies Data<'CopyExecuted'> });
  const skipped = (masterPositionId: string, reason: CopySkipReason, message: string) =>
    events.push({ type: 'TradeSkipped', data: { ...base(), masterPositionId, reason, message, wouldHave: [] } });
  const failed = (action: TradeAction, error: unknown) => {
    if (!(error instanceof VenueError)) throw error;
    const retry = action.type === 'open' && ctx.openRetryMinutes > 0;
    const retryUntil = retry ? new Date(ctx.now().getTime() + ctx.openRetryMinutes * RETRY_MS_PER_MINUTE).toISOString() : null;
    events.push({ type: 'CopyFailed', data: { ...base(), action, code: error.code, message: error.message, retryUntil } });
  };
  const alreadyClosed = (action: TradeAction & { slavePositionId: string }) =>
    skipped(action.masterPositionId, 'SLAVE_POSITION_ALREADY_CLOSED',
      `${action.type} of master #${action.masterPositionId} not copied: slave position #${action.slavePositionId} is already closed at the slave's broker`);

  const close = async (action: CloseAction) => {
    // Hedging: the position is the copy's alone. Netting: it may hold other copies too; close this one's volume.
    const volume = ctx.slaveMarginMode === 'netting' ? action.volume : undefined;
    try {
      executed(action, closedResult(await ctx.slave.closePosition(action.slavePositionId, volume, action.clientOrderId)));
    } catch (error) {
      if (isCode(error, '[POSITION_NOT_FOUND]')) alreadyClosed(action);
      else failed(action, error);
    }
  };

  /** Pending orders of the slave cancelled in this run, and whether they had filled instead. */
  const cancelOutcome = new Map<string, 'cancelled' | 'filled' | 'failed'>();

  for (const action of actions) {
    switch (action.type) {
      case 'skip':
        events.push({
          type: 'TradeSkipped',
          data: { ...base(), masterPositionId: action.masterPositionId, reason: action.reason, message: action.message, wouldHave: action.wouldHave },
        });
        break;
      case 'defer':
        if (!ctx.masterEvent) throw new Error('a deferral needs the master event');
        events.push({
          type: 'CopyDeferred',
          data: {
            ...base(),
            masterPositionId: action.masterPositionId,
            until: action.until,
            by: action.by,
            message: action.message,
            masterEvent: ctx.masterEvent,
            deferredBy: [...(ctx.deferredBy ?? []), action.by],
            masterEventAt: ctx.masterEventAt,
          },
        });
        break;
      case 'open': {
        if (action.replacesPendingOrderId !== null) {
          const outcome = cancelOutcome.get(action.replacesPendingOrderId);
          if (outcome === 'filled') {
            skipped(action.masterPositionId, 'SLAVE_ORDER_ALREADY_FILLED',
              `fill of master #${action.masterPositionId} needs no market open: the slave's pending order #${action.replacesPendingOrderId} filled too`);
            break;
          }
          if (outcome !== 'cancelled') break;
        }
        try {
          const placed = await ctx.slave.placeOrder(openRequest(action), action.clientOrderId);
          executed(action, placed.status === 'filled'
            ? { type: 'opened', slavePositionId: placed.positionId ?? placed.orderId, kind: 'position', price: placed.price, volume: placed.volume, time: placed.time }
            : { type: 'opened', slavePositionId: placed.orderId, kind: 'pendingOrder', price: placed.openPrice, volume: placed.volume, time: placed.time });
        } catch (error) {
          failed(action, error);
        }
        break;
      }
      case 'modify':
        try {
          const changes = action.openPrice === null
            ? { stopLoss: action.stopLoss, takeProfit: action.takeProfit }
            : { stopLoss: action.stopLoss, takeProfit: action.takeProfit, openPrice: action.openPrice };
          await ctx.slave.modifyPosition(action.slavePositionId, changes, action.clientOrderId);
          executed(action, { type: 'modified', time: ctx.now().toISOString() });
        } catch (error) {
          if (isCode(error, '[POSITION_NOT_FOUND]')) alreadyClosed(action);
          else failed(action, error);
        }
        break;
      case 'partialClose':
        try {
          executed(action, closedResult(await ctx.slave.closePosition(action.slavePositionId, action.volume, action.clientOrderId)));
        } catch (error) {
          if (isCode(error, '[POSITION_NOT_FOUND]')) alreadyClosed(action);
          else failed(action, error);
        }
        break;
      case 'close':
        await close(action);
        break;
      case 'cancel':
        try {
          await ctx.slave.cancelOrder(action.slavePositionId, action.clientOrderId);
          cancelOutcome.set(action.slavePositionId, 'cancelled');
          executed(action, { type: 'cancelled', time: ctx.now().toISOString() });
        } catch (error) {
          if (!isCode(error, '[ORDER_NOT_FOUND]')) {
            cancelOutcome.set(action.slavePositionId, 'failed');
            failed(action, error);
            break;
          }
          const position = (await ctx.slave.positions()).find((p) => p.kind === 'position' && p.id === action.slavePositionId);
          if (!position || position.kind !== 'position') {
            cancelOutcome.set(action.slavePositionId, 'cancelled');
            skipped(action.masterPositionId, 'SLAVE_POSITION_ALREADY_CLOSED',
              `cancellation of master #${action.masterPositionId} not copied: the slave's pending order #${action.slavePositionId} is already gone`);
            break;
          }
          cancelOutcome.set(action.slavePositionId, 'filled');
          const replaced = actions.some((a) => a.type === 'open' && a.replacesPendingOrderId === action.slavePositionId);
          if (!replaced) {
            await close({
              type: 'close',
              clientOrderId: slaveOrderId(ctx.source.eventId, ctx.copierId, 'close'),
              masterPositionId: action.masterPositionId,
              symbol: action.symbol,
              slavePositionId: action.slavePositionId,
              volume: position.volume,
            });
          }
        }
        break;
      default: {
        const unhandled: never = action;
        throw new Error(`unhandled copy action ${JSON.stringify(unhandled)}`);
      }
    }
  }
  return events;
};
