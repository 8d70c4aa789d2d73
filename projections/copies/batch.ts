// The copies read model, a batch at a time: the rows a batch can touch are read in three queries, the
// events are folded in memory with exactly the effect the per-event statements of projector.ts have
// (test/projections/batches.int.spec.ts compares the two on a generated history), and what changed is
// written back in a few multi-row statements. A rebuild spends its time here: one event used to cost
// one to three round trips.
import { type Insertable, type Kysely, sql } from 'kysely';
import { type CopyEvent, DEFERRAL_SOURCE } from '../../domain/copy/events.js';
import { isStandaloneTrade } from '../../domain/copy/features/rules.js';
import { initialMartingaleState, nextMartingaleState } from '../../domain/copy/martingale.js';
import type { PositionsEvent } from '../../domain/positions/events.js';
import type { RecordedEvent } from '../../store/port.js';
import { statementChunks } from '../projection.js';
import type { CopiesTable, ReadModels, SlaveClosuresTable } from '../schema.js';

type CopyRow = Insertable<CopiesTable>;
type ClosureRow = Insertable<SlaveClosuresTable>;
type RetryRow = Insertable<ReadModels['copy_retries']>;
type DeferralRow = Insertable<ReadModels['copy_deferrals']>;
type Where = { copierId?: string; masterPositionId?: string; slaveAccountId?: string; slavePositionId?: string; kind?: CopiesTable['kind'] };

const DAY_MS = 86_400_000;

/** What nextMartingaleState does to any count for this result: one more, back to the start, or nothing. */
export const martingaleStep = (result: number): 'up' | 'reset' | 'none' => {
  const probe = { consecutiveLosses: 1 };
  const next = nextMartingaleState(probe, result).consecutiveLosses;
  return next === 2 ? 'up' : next === probe.consecutiveLosses ? 'none' : 'reset';
};
const copyKey = (copierId: string, masterPositionId: string) => `${copierId}/${masterPositionId}`;
const slaveKey = (slaveAccountId: string, slavePositionId: string) => `${slaveAccountId}/${slavePositionId}`;
const time = (value: unknown): number => (value instanceof Date ? value.getTime() : Date.parse(String(value)));
const iso = (value: unknown): string => new Date(time(value)).toISOString();

const SLAVE_EVENTS = new Set(['PositionClosed', 'PositionPartiallyClosed', 'PendingOrderFilled', 'PendingOrderCancelled']);

/** The slave account and position a venue event is about, if the copies read model cares. */
const venueSlavePosition = (event: PositionsEvent): [string, string] | null => {
  switch (event.type) {
    case 'PositionClosed':
      return [event.data.accountId, event.data.trade.positionId];
    case 'PositionPartiallyClosed':
      return [event.data.accountId, event.data.position.positionId];
    case 'PendingOrderFilled':
    case 'PendingOrderCancelled':
      return [event.data.accountId, event.data.order.orderId];
    default:
      return null;
  }
};

export const applyCopiesBatch = async (db: Kysely<ReadModels>, events: readonly RecordedEvent[]): Promise<void> => {
  const typed = events.map((e) => ({ recorded: e, event: e as unknown as CopyEvent | PositionsEvent }));

  // What the batch can read: copies by copier and master position, or by slave position; the closures
  // of those slave positions; the martingale counts of every copier involved.
  const copyKeys = new Map<string, [string, string]>();
  const slaveKeys = new Map<string, [string, string]>();
  for (const { event } of typed) {
    if (event.type === 'CopyExecuted') {
      const { copierId, action, result, slaveAccountId } = event.data;
      copyKeys.set(copyKey(copierId, action.masterPositionId), [copierId, action.masterPositionId]);
      if (result.type === 'opened') slaveKeys.set(slaveKey(slaveAccountId, result.slavePositionId), [slaveAccountId, result.slavePositionId]);
    } else if (SLAVE_EVENTS.has(event.type)) {
      const [account, position] = venueSlavePosition(event as PositionsEvent)!;
      slaveKeys.set(slaveKey(account, position), [account, position]);
    }
  }
  const copies = new Map<string, CopyRow>();
  const bySlave = new Map<string, Set<string>>();
  const index = (row: CopyRow): void => {
    const key = slaveKey(row.slave_account_id, row.slave_position_id);
    const set = bySlave.get(key) ?? new Set<string>();
    set.add(copyKey(row.copier_id, row.master_position_id));
    bySlave.set(key, set);
  };
  const closures = new Map<string, ClosureRow>();
  if (copyKeys.size > 0 || slaveKeys.size > 0) {
    const lookups: (readonly ['c' | 's', string, string])[] = [
      ...[...copyKeys.values()].map((k) => ['c', k[0], k[1]] as const),
      ...[...slaveKeys.values()].map((k) => ['s', k[0], k[1]] as const),
    ];
    for (const chunk of statementChunks(lookups)) {
      const byCopy = chunk.filter((k) => k[0] === 'c');
      const bySlaveKey = chunk.filter((k) => k[0] === 's');
      const rows = await db
        .selectFrom('copies')
        .selectAll()
        .where(({ eb, or, refTuple, tuple }) =>
          or([
            ...(byCopy.length
              ? [
                  eb(
                    refTuple('copier_id', 'master_position_id'),
                    'in',
                    byCopy.map((k) => tuple(k[1], k[2])),
                  ),
                ]
              : []),
            ...(bySlaveKey.length
              ? [
                  eb(
                    refTuple('slave_account_id', 'slave_position_id'),
                    'in',
                    bySlaveKey.map((k) => tuple(k[1], k[2])),
                  ),
                ]
              : []),
          ]),
        )
        .execute();
      for (const row of rows) {
        copies.set(copyKey(row.copier_id, row.master_position_id), row);
        index(row);
      }
    }
    for (const chunk of statementChunks([...slaveKeys.values()])) {
      const rows = await db
        .selectFrom('slave_closures')
        .selectAll()
        .where(({ eb, refTuple, tuple }) =>
          eb(
            refTuple('slave_account_id', 'slave_position_id'),
            'in',
            chunk.map((k) => tuple(k[0], k[1])),
          ),
        )
        .execute();
      for (const row of rows) closures.set(slaveKey(row.slave_account_id, row.slave_position_id), row);
    }
  }
  const copierIds = new Set<string>([...copies.values()].map((r) => r.copier_id));
  for (const { event } of typed) if (event.type === 'CopyExecuted') copierIds.add(event.data.copierId);
  const martingale = new Map<string, number>();
  for (const chunk of statementChunks([...copierIds])) {
    const rows = await db.selectFrom('copier_martingale').selectAll().where('copier_id', 'in', chunk).execute();
    for (const row of rows) martingale.set(row.copier_id, row.consecutive_losses);
  }

  // What the batch writes.
  const changedCopies = new Set<string>();
  const changedMartingale = new Set<string>();
  const deletedClosures = new Map<string, [string, string]>();
  const insertedClosures = new Set<string>();
  /** Per account, the latest cutoff of a cleanup of its closures (rows the batch did not read go by it). */
  const cleanups = new Map<string, number>();
  /** copy_retries and copy_deferrals: deletes in order, then the rows present at the end. */
  const retryDeletes: ({ kind: 'id'; id: string } | { kind: 'masterPosition'; copierId: string; masterPositionId: string })[] = [];
  const retries = new Map<string, RetryRow | null>();
  const deferralDeletes: string[] = [];
  const deferrals = new Map<string, DeferralRow | null>();

  const matches = (row: CopyRow, where: Where): boolean =>
    row.status === 'open' &&
    (!where.copierId || row.copier_id === where.copierId) &&
    (!where.masterPositionId || row.master_position_id === where.masterPositionId) &&
    (!where.slaveAccountId || row.slave_account_id === where.slaveAccountId) &&
    (!where.slavePositionId || row.slave_position_id === where.slavePositionId) &&
    (!where.kind || row.kind === where.kind);
  const candidates = (where: Where): string[] => {
    if (where.copierId && where.masterPositionId)
      return copies.has(copyKey(where.copierId, where.masterPositionId)) ? [copyKey(where.copierId, where.masterPositionId)] : [];
    return [...(bySlave.get(slaveKey(where.slaveAccountId!, where.slavePositionId!)) ?? [])];
  };
  const update = (key: string, changes: Partial<CopyRow>): void => {
    copies.set(key, { ...copies.get(key)!, ...changes });
    changedCopies.add(key);
  };
  const ended = (where: Where, at: string, by: string, result: number | null, closePrice: number | null = null, alsoAfterVenue = false): void => {
    const closed: CopyRow[] = [];
    const afterVenue: string[] = [];
    for (const key of candidates(where)) {
      const row = copies.get(key)!;
      if (matches(row, where)) closed.push(row);
      else if (
        alsoAfterVenue &&
        row.copier_id === where.copierId &&
        row.master_position_id === where.masterPositionId &&
        row.slave_position_id === where.slavePositionId &&
        row.status === 'closed' &&
        row.closed_by === 'SLAVE_VENUE'
      )
        afterVenue.push(key);
    }
    for (const key of afterVenue) update(key, { closed_by: by });
    for (const row of closed)
      update(copyKey(row.copier_id, row.master_position_id), { status: 'closed', closed_at: at, closed_by: by, result, close_price: closePrice });
    if (closed.length === 0 && where.slaveAccountId && where.slavePositionId) {
      const key = slaveKey(where.slaveAccountId, where.slavePositionId);
      if (!closures.has(key)) {
        closures.set(key, { slave_account_id: where.slaveAccountId, slave_position_id: where.slavePositionId, closed_at: at, result, close_price: closePrice });
        // A delete of the key earlier in the batch still runs: deletes are written before inserts.
        insertedClosures.add(key);
      }
      const cutoff = time(at) - DAY_MS;
      for (const [k, row] of closures) {
        if (row.slave_account_id === where.slaveAccountId && time(row.closed_at) < cutoff) {
          closures.delete(k);
          insertedClosures.delete(k);
          deletedClosures.set(k, [row.slave_account_id, row.slave_position_id]);
        }
      }
      cleanups.set(where.slaveAccountId, Math.max(cleanups.get(where.slaveAccountId) ?? -Infinity, cutoff));
    }
    if (result === null) return;
    const step = martingaleStep(result);
    if (step === 'none') return;
    for (const row of closed) {
      // A feature's own trade (a keep-alive trade) is no copy: it is no step of a martingale.
      if (row.kind !== 'position' || isStandaloneTrade(row.master_position_id)) continue;
      const first = nextMartingaleState(initialMartingaleState, result).consecutiveLosses;
      const current = martingale.get(row.copier_id);
      martingale.set(row.copier_id, current !== undefined && step === 'up' ? current + 1 : first);
      changedMartingale.add(row.copier_id);
    }
  };

  for (const { recorded, event } of typed) {
    if (
      (event.type === 'CopyExecuted' || event.type === 'CopyFailed' || event.type === 'TradeSkipped' || event.type === 'CopyDeferred') &&
      event.data.source.type === DEFERRAL_SOURCE
    ) {
      deferralDeletes.push(event.data.source.eventId);
      deferrals.set(event.data.source.eventId, null);
    }
    switch (event.type) {
      case 'CopyDeferred': {
        const d = event.data;
        if (!deferrals.get(recorded.id)) {
          // ON CONFLICT DO NOTHING: a row already in the table stays (the write below keeps that rule).
          deferrals.set(recorded.id, {
            id: recorded.id,
            copier_id: d.copierId,
            master_account_id: d.masterAccountId,
            due_at: d.until,
            master_event: JSON.stringify(d.masterEvent),
            deferred_by: JSON.stringify(d.deferredBy),
            master_event_at: d.masterEventAt,
          });
        }
        break;
      }
      case 'CopyExecuted': {
        const { action, result, copierId, masterAccountId, slaveAccountId, at } = event.data;
        if (action.type === 'open') {
          retryDeletes.push({ kind: 'id', id: action.clientOrderId });
          retries.set(action.clientOrderId, null);
        }
        if (action.type === 'open' && result.type === 'opened') {
          const key = copyKey(copierId, action.masterPositionId);
          const row: CopyRow = {
            copier_id: copierId,
            master_position_id: action.masterPositionId,
            master_account_id: masterAccountId,
            slave_account_id: slaveAccountId,
            slave_position_id: result.slavePositionId,
            kind: result.kind,
            symbol: action.symbol,
            order_type: action.orderType,
            volume: result.volume,
            client_order_id: action.clientOrderId,
            status: 'open',
            opened_at: at,
            closed_at: null,
            closed_by: null,
            result: null,
            close_price: null,
          };
          const before = copies.get(key);
          if (before) bySlave.get(slaveKey(before.slave_account_id, before.slave_position_id))?.delete(key);
          copies.set(key, row);
          changedCopies.add(key);
          index(row);
          const closureKey = slaveKey(slaveAccountId, result.slavePositionId);
          const gone = closures.get(closureKey);
          if (gone) {
            closures.delete(closureKey);
            insertedClosures.delete(closureKey);
            deletedClosures.set(closureKey, [slaveAccountId, result.slavePositionId]);
            ended({ copierId, masterPositionId: action.masterPositionId }, iso(gone.closed_at), 'SLAVE_VENUE', gone.result ?? null, gone.close_price ?? null);
          }
        } else if (action.type === 'partialClose' && result.type === 'closed') {
          const key = copyKey(copierId, action.masterPositionId);
          const row = copies.get(key);
          if (row && row.status === 'open') update(key, { volume: action.remainingVolume });
        } else if (action.type === 'close' && result.type === 'closed') {
          ended(
            { copierId, masterPositionId: action.masterPositionId, slavePositionId: action.slavePositionId },
            at,
            event.data.by ?? 'COPIER',
            result.result,
            result.closePrice,
            true,
          );
        } else if (action.type === 'cancel') {
          ended({ copierId, masterPositionId: action.masterPositionId, slavePositionId: action.slavePositionId }, at, 'COPIER', null);
        }
        break;
      }
      case 'CopyFailed': {
        const { action, retryUntil, copierId, masterAccountId, slaveAccountId, source } = event.data;
        if (retryUntil === null || action.type !== 'open') break;
        if (!retries.get(action.clientOrderId)) {
          retries.set(action.clientOrderId, {
            client_order_id: action.clientOrderId,
            copier_id: copierId,
            master_account_id: masterAccountId,
            slave_account_id: slaveAccountId,
            action: JSON.stringify(action),
            source: JSON.stringify(source),
            retry_until: retryUntil,
          });
        }
        break;
      }
      case 'TradeSkipped':
        if (event.data.reason === 'OPEN_RETRY_EXPIRED') {
          const { copierId, masterPositionId } = event.data;
          retryDeletes.push({ kind: 'masterPosition', copierId, masterPositionId });
          for (const [id, row] of retries) {
            if (row && row.copier_id === copierId && (JSON.parse(String(row.action)) as { masterPositionId: string }).masterPositionId === masterPositionId) {
              retries.set(id, null);
            }
          }
        }
        break;
      case 'PositionClosed': {
        const { trade } = event.data;
        ended(
          { slaveAccountId: event.data.accountId, slavePositionId: trade.positionId, kind: 'position' },
          trade.closeTime,
          'SLAVE_VENUE',
          trade.profit + trade.swap + trade.commission,
          trade.closePrice,
        );
        break;
      }
      case 'PositionPartiallyClosed':
        for (const key of candidates({ slaveAccountId: event.data.accountId, slavePositionId: event.data.position.positionId })) {
          const row = copies.get(key)!;
          if (row.status === 'open' && row.kind === 'position') update(key, { volume: event.data.position.volume });
        }
        break;
      case 'PendingOrderFilled':
        for (const key of candidates({ slaveAccountId: event.data.accountId, slavePositionId: event.data.order.orderId })) {
          const row = copies.get(key)!;
          if (row.status === 'open' && row.kind === 'pendingOrder') update(key, { kind: 'position' });
        }
        break;
      case 'PendingOrderCancelled':
        ended({ slaveAccountId: event.data.accountId, slavePositionId: event.data.order.orderId, kind: 'pendingOrder' }, event.data.at, 'SLAVE_VENUE', null);
        break;
      default:
        break;
    }
  }

  // Deletes first (in the batch's order they may only remove what was there before), then the rows as
  // the batch leaves them.
  for (const chunk of statementChunks([...cleanups])) {
    await db
      .deleteFrom('slave_closures')
      .where(({ eb, or, and }) => or(chunk.map(([accountId, cutoff]) => and([eb('slave_account_id', '=', accountId), eb('closed_at', '<', new Date(cutoff))]))))
      .execute();
  }
  for (const chunk of statementChunks([...deletedClosures.values()])) {
    await db
      .deleteFrom('slave_closures')
      .where(({ eb, refTuple, tuple }) =>
        eb(
          refTuple('slave_account_id', 'slave_position_id'),
          'in',
          chunk.map((k) => tuple(k[0], k[1])),
        ),
      )
      .execute();
  }
  for (const chunk of statementChunks([...insertedClosures].map((k) => closures.get(k)!))) {
    await db
      .insertInto('slave_closures')
      .values(chunk)
      .onConflict((oc) => oc.columns(['slave_account_id', 'slave_position_id']).doNothing())
      .execute();
  }
  for (const op of retryDeletes) {
    if (op.kind === 'id') continue;
    await db
      .deleteFrom('copy_retries')
      .where('copier_id', '=', op.copierId)
      .where(sql<string>`action->>'masterPositionId'`, '=', op.masterPositionId)
      .execute();
  }
  const retryIds = retryDeletes.flatMap((op) => (op.kind === 'id' ? [op.id] : []));
  for (const chunk of statementChunks(retryIds)) await db.deleteFrom('copy_retries').where('client_order_id', 'in', chunk).execute();
  for (const chunk of statementChunks([...retries.values()].filter((r): r is RetryRow => r !== null))) {
    await db
      .insertInto('copy_retries')
      .values(chunk)
      .onConflict((oc) => oc.column('client_order_id').doNothing())
      .execute();
  }
  for (const chunk of statementChunks(deferralDeletes)) await db.deleteFrom('copy_deferrals').where('id', 'in', chunk).execute();
  for (const chunk of statementChunks([...deferrals.values()].filter((r): r is DeferralRow => r !== null))) {
    await db
      .insertInto('copy_deferrals')
      .values(chunk)
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
  }
  const COPY_COLUMNS = [
    'master_account_id',
    'slave_account_id',
    'slave_position_id',
    'kind',
    'symbol',
    'order_type',
    'volume',
    'client_order_id',
    'status',
    'opened_at',
    'closed_at',
    'closed_by',
    'result',
    'close_price',
  ] as const;
  for (const chunk of statementChunks([...changedCopies].map((k) => copies.get(k)!))) {
    await db
      .insertInto('copies')
      .values(chunk)
      .onConflict((oc) =>
        oc.columns(['copier_id', 'master_position_id']).doUpdateSet((eb) => Object.fromEntries(COPY_COLUMNS.map((c) => [c, eb.ref(`excluded.${c}`)]))),
      )
      .execute();
  }
  for (const chunk of statementChunks([...changedMartingale].map((id) => ({ copier_id: id, consecutive_losses: martingale.get(id)! })))) {
    await db
      .insertInto('copier_martingale')
      .values(chunk)
      .onConflict((oc) => oc.column('copier_id').doUpdateSet((eb) => ({ consecutive_losses: eb.ref('excluded.consecutive_losses') })))
      .execute();
  }
};
