// What each event does to the copies read model, said once: a list of changes, one function per event
// type. The per-event projector (projector.ts) writes each change with its own statements; the batch
// (batch.ts) folds them in memory and writes the result. Neither decides what an event means, so the
// two cannot drift apart on it (test/projections/batches.int.spec.ts checks they end alike).
import type { Insertable } from 'kysely';
import { type CopyEvent, DEFERRAL_SOURCE } from '../../domain/copy/events.js';
import { isStandaloneTrade } from '../../domain/copy/features/rules.js';
import { initialMartingaleState, nextMartingaleState } from '../../domain/copy/martingale.js';
import type { PositionsEvent } from '../../domain/positions/events.js';
import type { RecordedEvent } from '../../store/port.js';
import type { CopiesTable, ReadModels, SlaveClosuresTable, SlavePartialsTable } from '../schema.js';
import { type PartialClose, partialsOf } from './queries.js';

export type CopyRow = Insertable<CopiesTable>;
export type ClosureRow = Insertable<SlaveClosuresTable>;
export type PartialsRow = Insertable<SlavePartialsTable>;
export type RetryRow = Insertable<ReadModels['copy_retries']>;
export type DeferralRow = Insertable<ReadModels['copy_deferrals']>;

/** Which live (open) copies a change is about: by copier and master position, or by slave position. */
export interface Where {
  readonly copierId?: string;
  readonly masterPositionId?: string;
  readonly slaveAccountId?: string;
  readonly slavePositionId?: string;
  readonly kind?: CopiesTable['kind'];
}

/** Live copies ended: closed rows fold their result into their copier's martingale state. */
export interface Ending {
  readonly where: Where;
  readonly at: string;
  readonly by: string;
  readonly result: number | null;
  readonly closePrice: number | null;
  /**
   * The slave's venue may have reported the close first (the copy is closed by SLAVE_VENUE): then it was
   * this close all the same, and the closed row takes `by`.
   */
  readonly alsoAfterVenue: boolean;
}

export type CopiesChange =
  /** The outcome of a deferral ends it, whatever it was. */
  | { readonly type: 'deferralEnded'; readonly id: string }
  /** Kept if a row of that id is there already (ON CONFLICT DO NOTHING). */
  | { readonly type: 'deferralRecorded'; readonly row: DeferralRow }
  | { readonly type: 'retryEnded'; readonly clientOrderId: string }
  /** Kept if a row of that client order id is there already. */
  | { readonly type: 'retryRecorded'; readonly row: RetryRow }
  | { readonly type: 'retriesExpired'; readonly copierId: string; readonly masterPositionId: string }
  /**
   * The copy is recorded (replacing any row of its copier and master position) and the retry of its
   * open ends; a close its slave's venue reported first ends it at once (slave_closures).
   */
  | { readonly type: 'copyOpened'; readonly row: CopyRow }
  | { readonly type: 'copiesChanged'; readonly where: Where; readonly set: { readonly volume: number } | { readonly kind: 'position' } }
  /**
   * The slave's venue closed part of the live copies: `volume` is left, `part` is appended to their
   * partial closes. No live copy yet (its CopyExecuted may still come): kept in slave_partials (a day,
   * until the account's next such part after that), and joined to the copy when it is recorded.
   */
  | {
      readonly type: 'copiesPartiallyClosed';
      readonly where: Where & { readonly slaveAccountId: string; readonly slavePositionId: string };
      readonly volume: number;
      readonly part: PartialClose;
      readonly at: string;
    }
  | { readonly type: 'copiesEnded'; readonly ending: Ending };

type Executed = Extract<CopyEvent, { type: 'CopyExecuted' }>['data'];

const ending = (where: Where, at: string, by: string, result: number | null, closePrice: number | null = null, alsoAfterVenue = false): CopiesChange => ({
  type: 'copiesEnded',
  ending: { where, at, by, result, closePrice, alsoAfterVenue },
});

const copyRowOf = (
  data: Executed,
  action: Extract<Executed['action'], { type: 'open' }>,
  result: Extract<Executed['result'], { type: 'opened' }>,
): CopyRow => ({
  copier_id: data.copierId,
  master_position_id: action.masterPositionId,
  part: action.part ?? 0,
  master_account_id: data.masterAccountId,
  slave_account_id: data.slaveAccountId,
  slave_position_id: result.slavePositionId,
  kind: result.kind,
  symbol: action.symbol,
  order_type: action.orderType,
  volume: result.volume,
  client_order_id: action.clientOrderId,
  status: 'open',
  opened_at: data.at,
  closed_at: null,
  closed_by: null,
  result: null,
  close_price: null,
  partials: '[]',
});

const executed = (data: Executed): CopiesChange[] => {
  const { action, result, copierId, at } = data;
  if (action.type === 'open') {
    // Only opens are retried (CopyFailed): any other action has no retry to end.
    return result.type === 'opened'
      ? [{ type: 'copyOpened', row: copyRowOf(data, action, result) }]
      : [{ type: 'retryEnded', clientOrderId: action.clientOrderId }];
  }
  if (action.type === 'partialClose' && result.type === 'closed') {
    const where = { copierId, masterPositionId: action.masterPositionId, slavePositionId: action.slavePositionId };
    return [{ type: 'copiesChanged', where, set: { volume: action.remainingVolume } }];
  }
  if (action.type === 'close' && result.type === 'closed') {
    const where = { copierId, masterPositionId: action.masterPositionId, slavePositionId: action.slavePositionId };
    return [ending(where, at, data.by ?? 'COPIER', result.result, result.closePrice, true)];
  }
  if (action.type === 'cancel') {
    return [ending({ copierId, masterPositionId: action.masterPositionId, slavePositionId: action.slavePositionId }, at, 'COPIER', null)];
  }
  return [];
};

const failed = (data: Extract<CopyEvent, { type: 'CopyFailed' }>['data']): CopiesChange[] => {
  const { action, retryUntil, copierId, masterAccountId, slaveAccountId, source } = data;
  if (retryUntil === null || action.type !== 'open') return [];
  const row: RetryRow = {
    client_order_id: action.clientOrderId,
    copier_id: copierId,
    master_account_id: masterAccountId,
    slave_account_id: slaveAccountId,
    action: JSON.stringify(action),
    source: JSON.stringify(source),
    retry_until: retryUntil,
  };
  return [{ type: 'retryRecorded', row }];
};

const deferred = (id: string, d: Extract<CopyEvent, { type: 'CopyDeferred' }>['data']): CopiesChange[] => {
  const row: DeferralRow = {
    id,
    copier_id: d.copierId,
    master_account_id: d.masterAccountId,
    due_at: d.until,
    master_event: JSON.stringify(d.masterEvent),
    deferred_by: JSON.stringify(d.deferredBy),
    master_event_at: d.masterEventAt,
  };
  return [{ type: 'deferralRecorded', row }];
};

const skipped = (data: Extract<CopyEvent, { type: 'TradeSkipped' }>['data']): CopiesChange[] =>
  data.reason === 'OPEN_RETRY_EXPIRED' ? [{ type: 'retriesExpired', copierId: data.copierId, masterPositionId: data.masterPositionId }] : [];

/** What the slave's venue reports about a position the read model may hold as a live copy. */
const venueFact = (event: PositionsEvent): CopiesChange[] => {
  switch (event.type) {
    case 'PositionClosed': {
      const { trade, accountId } = event.data;
      const where = { slaveAccountId: accountId, slavePositionId: trade.positionId, kind: 'position' } as const;
      return [ending(where, trade.closeTime, 'SLAVE_VENUE', trade.profit + trade.swap + trade.commission, trade.closePrice)];
    }
    case 'PositionPartiallyClosed': {
      // The venue's report, not the engine's request: a copy's own take profit or a close by hand is a partial close too.
      const { accountId, position, trade } = event.data;
      const where = { slaveAccountId: accountId, slavePositionId: position.positionId, kind: 'position' } as const;
      const part = { volume: trade.volume, result: trade.profit + trade.swap + trade.commission };
      return [{ type: 'copiesPartiallyClosed', where, volume: position.volume, part, at: trade.closeTime }];
    }
    case 'PendingOrderFilled': {
      const where = { slaveAccountId: event.data.accountId, slavePositionId: event.data.order.orderId, kind: 'pendingOrder' } as const;
      return [{ type: 'copiesChanged', where, set: { kind: 'position' } }];
    }
    case 'PendingOrderCancelled': {
      const where = { slaveAccountId: event.data.accountId, slavePositionId: event.data.order.orderId, kind: 'pendingOrder' } as const;
      return [ending(where, event.data.at, 'SLAVE_VENUE', null)];
    }
    default:
      return [];
  }
};

/** The changes an event makes, in the order they are made. */
export const changesOf = (recorded: RecordedEvent): CopiesChange[] => {
  const event = recorded as unknown as CopyEvent | PositionsEvent;
  switch (event.type) {
    case 'CopyExecuted':
    case 'CopyFailed':
    case 'TradeSkipped':
    case 'CopyDeferred': {
      const own =
        event.type === 'CopyExecuted'
          ? executed(event.data)
          : event.type === 'CopyFailed'
            ? failed(event.data)
            : event.type === 'TradeSkipped'
              ? skipped(event.data)
              : deferred(recorded.id, event.data);
      const { source } = event.data;
      return source.type === DEFERRAL_SOURCE ? [{ type: 'deferralEnded', id: source.eventId }, ...own] : own;
    }
    default:
      return venueFact(event);
  }
};

/** Partial closes the slave's venue reported before the copy was recorded are the copy's: its volume left and its parts. */
export const withEarlierPartials = (copy: CopyRow, buffered: Pick<PartialsRow, 'volume' | 'partials'>): CopyRow => ({
  ...copy,
  volume: buffered.volume,
  partials: JSON.stringify([...partialsOf(copy), ...partialsOf(buffered)]),
});

/** A close the slave's venue reported before the copy was recorded ends the copy just recorded. */
export const endingOfEarlierClosure = (copy: CopyRow, closure: ClosureRow): Ending => ({
  where: { copierId: copy.copier_id, masterPositionId: copy.master_position_id, slavePositionId: copy.slave_position_id },
  at: new Date(closure.closed_at).toISOString(),
  by: 'SLAVE_VENUE',
  result: closure.result ?? null,
  closePrice: closure.close_price ?? null,
  alsoAfterVenue: false,
});

/** What nextMartingaleState does to any count for this result: one more, back to the start, or nothing. */
export const martingaleStep = (result: number): 'up' | 'reset' | 'none' => {
  const probe = { consecutiveLosses: 1 };
  const next = nextMartingaleState(probe, result).consecutiveLosses;
  return next === 2 ? 'up' : next === probe.consecutiveLosses ? 'none' : 'reset';
};

/** The count a copier's martingale starts from (or resets to) with this result. */
export const firstMartingaleCount = (result: number): number => nextMartingaleState(initialMartingaleState, result).consecutiveLosses;

/**
 * A feature's own trade (a keep-alive trade) is no copy: it is no step of a martingale. A copy split
 * into several orders (forcePositionLotSize) is one step: its first part's.
 */
export const isMartingaleStep = (row: Pick<CopyRow, 'kind' | 'master_position_id' | 'part'>): boolean =>
  row.kind === 'position' && !isStandaloneTrade(row.master_position_id) && (row.part ?? 0) === 0;
