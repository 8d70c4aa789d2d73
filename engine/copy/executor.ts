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
import { type CopyEvent, type CopySkipReason, type CopySource, type ExecutionResult, RETRY_WHILE_MASTER_HOLDS } from '../../domain/copy/events.js';
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
  /**
   * CopierDTO openRetry and openRetryTimeoutInMinutes: a refused open is resent every 30 seconds for
   * so many minutes (0: while the master holds the position); null: not resent.
   */
  readonly openRetry: { readonly timeoutInMinutes: number } | null;
  readonly masterEventAt: string | null;
  readonly now: () => Date;
  /** The master event decided, kept with a deferral so it can be decided again. */
  readonly masterEvent?: MasterEvent;
  /** Feature types that already held this event back. */
  readonly deferredBy?: readonly string[];
  /** Told once a request has gone to the slave's venue (early placement lets the next copier start then, handlers.ts). */
  readonly sent?: () => void;
  /** Recorded on CopyExecuted when the slave's and master's currencies differ (see its doc). */
  readonly slaveToMasterRate?: number | null;
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
  return type === 'buy' || type === 'sell'
    ? Object.assign(base, { orderType: type })
    : Object.assign(base, { orderType: type, openPrice: action.openPrice ?? 0 });
};

const isCode = (error: unknown, ...codes: string[]): error is VenueError => error instanceof VenueError && codes.includes(error.code);

/**
 * One copier's actions for one cause, executed at the slave in order. Each outcome becomes one event:
 * executed, skipped (with a reason a user can read), deferred or failed (with a retry window for opens).
 */
class ActionRun {
  readonly events: CopyEvent[] = [];
  /** Pending orders of the slave cancelled in this run, and whether they had filled instead. */
  private readonly cancelOutcome = new Map<string, 'cancelled' | 'filled' | 'failed'>();

  constructor(
    private readonly actions: readonly CopyAction[],
    private readonly ctx: ExecutionContext,
  ) {}

  async run(): Promise<CopyEvent[]> {
    for (const action of this.actions) {
      switch (action.type) {
        case 'skip':
          this.events.push({
            type: 'TradeSkipped',
            data: this.base({ masterPositionId: action.masterPositionId, reason: action.reason, message: action.message, wouldHave: action.wouldHave }),
          });
          break;
        case 'defer':
          this.defer(action);
          break;
        case 'open':
          await this.open(action);
          break;
        case 'modify':
          await this.modify(action);
          break;
        case 'partialClose':
          await this.atPosition(action, async () =>
            closedResult(await this.send(this.ctx.slave.closePosition(action.slavePositionId, action.volume, action.clientOrderId))),
          );
          break;
        case 'close':
          await this.close(action);
          break;
        case 'cancel':
          await this.cancel(action);
          break;
        default: {
          const unhandled: never = action;
          throw new Error(`unhandled copy action ${JSON.stringify(unhandled)}`);
        }
      }
    }
    return this.events;
  }

  /** A request under way at the slave's venue (the venue took it when it was called): says so, then answers it. */
  private send<T>(request: Promise<T>): Promise<T> {
    this.ctx.sent?.();
    return request;
  }

  /**
   * What every event of the run carries, then `rest`'s members: added to a new literal rather than
   * spread into one (domain/copy/decisionContext.ts, orderOf).
   */
  private base<T extends object>(rest: T) {
    const { ctx } = this;
    const base = {
      copierId: ctx.copierId,
      masterAccountId: ctx.masterAccountId,
      slaveAccountId: ctx.slaveAccountId,
      source: ctx.source,
      at: ctx.now().toISOString(),
    };
    return Object.assign(base, rest);
  }

  private executed(action: TradeAction, result: ExecutionResult): void {
    const rate = this.ctx.slaveToMasterRate;
    const data = this.base(
      rate ? { action, result, masterEventAt: this.ctx.masterEventAt, slaveToMasterRate: rate } : { action, result, masterEventAt: this.ctx.masterEventAt },
    );
    this.events.push({ type: 'CopyExecuted', data: data satisfies Data<'CopyExecuted'> });
  }

  private skipped(masterPositionId: string, reason: CopySkipReason, message: string): void {
    this.events.push({ type: 'TradeSkipped', data: this.base({ masterPositionId, reason, message, wouldHave: [] }) });
  }

  /** A refusal of the venue is recorded (an open may be retried until retryUntil); anything else is thrown. */
  private failed(action: TradeAction, error: unknown): void {
    if (!(error instanceof VenueError)) throw error;
    const retry = action.type === 'open' ? this.ctx.openRetry : null;
    const retryUntil =
      retry === null
        ? null
        : retry.timeoutInMinutes === 0
          ? RETRY_WHILE_MASTER_HOLDS
          : new Date(this.ctx.now().getTime() + retry.timeoutInMinutes * RETRY_MS_PER_MINUTE).toISOString();
    this.events.push({ type: 'CopyFailed', data: this.base({ action, code: error.code, message: error.message, retryUntil }) });
  }

  private alreadyClosed(action: TradeAction & { slavePositionId: string }): void {
    this.skipped(
      action.masterPositionId,
      'SLAVE_POSITION_ALREADY_CLOSED',
      `${action.type} of master #${action.masterPositionId} not copied: slave position #${action.slavePositionId} is already closed at the slave's broker`,
    );
  }

  /** Runs a request on an existing slave position: a position gone already is a skip, not a failure. */
  private async atPosition(action: TradeAction & { slavePositionId: string }, request: () => Promise<ExecutionResult>): Promise<void> {
    try {
      this.executed(action, await request());
    } catch (error) {
      if (isCode(error, '[POSITION_NOT_FOUND]')) this.alreadyClosed(action);
      else this.failed(action, error);
    }
  }

  private defer(action: Extract<CopyAction, { type: 'defer' }>): void {
    const { ctx } = this;
    if (!ctx.masterEvent) throw new Error('a deferral needs the master event');
    this.events.push({
      type: 'CopyDeferred',
      data: this.base({
        masterPositionId: action.masterPositionId,
        until: action.until,
        by: action.by,
        message: action.message,
        masterEvent: ctx.masterEvent,
        deferredBy: [...(ctx.deferredBy ?? []), action.by],
        masterEventAt: ctx.masterEventAt,
      }),
    });
  }

  private async open(action: Extract<CopyAction, { type: 'open' }>): Promise<void> {
    if (action.replacesPendingOrderId !== null) {
      const outcome = this.cancelOutcome.get(action.replacesPendingOrderId);
      if (outcome === 'filled') {
        this.skipped(
          action.masterPositionId,
          'SLAVE_ORDER_ALREADY_FILLED',
          `fill of master #${action.masterPositionId} needs no market open: the slave's pending order #${action.replacesPendingOrderId} filled too`,
        );
        return;
      }
      if (outcome !== 'cancelled') return;
    }
    try {
      const placed = await this.send(this.ctx.slave.placeOrder(openRequest(action), action.clientOrderId));
      this.executed(
        action,
        placed.status === 'filled'
          ? {
              type: 'opened',
              slavePositionId: placed.positionId ?? placed.orderId,
              kind: 'position',
              price: placed.price,
              volume: placed.volume,
              time: placed.time,
            }
          : { type: 'opened', slavePositionId: placed.orderId, kind: 'pendingOrder', price: placed.openPrice, volume: placed.volume, time: placed.time },
      );
    } catch (error) {
      this.failed(action, error);
    }
  }

  private modify(action: Extract<CopyAction, { type: 'modify' }>): Promise<void> {
    return this.atPosition(action, async () => {
      const changes =
        action.openPrice === null
          ? { stopLoss: action.stopLoss, takeProfit: action.takeProfit }
          : { stopLoss: action.stopLoss, takeProfit: action.takeProfit, openPrice: action.openPrice };
      await this.send(this.ctx.slave.modifyPosition(action.slavePositionId, changes, action.clientOrderId));
      return { type: 'modified', time: this.ctx.now().toISOString() };
    });
  }

  private close(action: CloseAction): Promise<void> {
    // Hedging: the position is the copy's alone. Netting: it may hold other copies too; close this one's volume.
    const volume = this.ctx.slaveMarginMode === 'netting' ? action.volume : undefined;
    return this.atPosition(action, async () =>
      closedResult(await this.send(this.ctx.slave.closePosition(action.slavePositionId, volume, action.clientOrderId))),
    );
  }

  /**
   * Cancels a slave's pending order. One the venue no longer knows either went away (a skip) or filled
   * meanwhile: the position it became is closed, unless an open of this run replaces the order.
   */
  private async cancel(action: Extract<CopyAction, { type: 'cancel' }>): Promise<void> {
    const { ctx } = this;
    try {
      await this.send(ctx.slave.cancelOrder(action.slavePositionId, action.clientOrderId));
      this.cancelOutcome.set(action.slavePositionId, 'cancelled');
      this.executed(action, { type: 'cancelled', time: ctx.now().toISOString() });
      return;
    } catch (error) {
      if (!isCode(error, '[ORDER_NOT_FOUND]')) {
        this.cancelOutcome.set(action.slavePositionId, 'failed');
        this.failed(action, error);
        return;
      }
    }
    const position = (await ctx.slave.positions()).find((p) => p.kind === 'position' && p.id === action.slavePositionId);
    if (!position || position.kind !== 'position') {
      this.cancelOutcome.set(action.slavePositionId, 'cancelled');
      this.skipped(
        action.masterPositionId,
        'SLAVE_POSITION_ALREADY_CLOSED',
        `cancellation of master #${action.masterPositionId} not copied: the slave's pending order #${action.slavePositionId} is already gone`,
      );
      return;
    }
    this.cancelOutcome.set(action.slavePositionId, 'filled');
    const replaced = this.actions.some((a) => a.type === 'open' && a.replacesPendingOrderId === action.slavePositionId);
    if (!replaced) {
      await this.close({
        type: 'close',
        clientOrderId: slaveOrderId(ctx.source.eventId, ctx.copierId, 'close', action.part ?? 0),
        masterPositionId: action.masterPositionId,
        symbol: action.symbol,
        ...(action.part === undefined ? {} : { part: action.part }),
        slavePositionId: action.slavePositionId,
        volume: position.volume,
      });
    }
  }
}

export const executeActions = (actions: readonly CopyAction[], ctx: ExecutionContext): Promise<CopyEvent[]> => new ActionRun(actions, ctx).run();
