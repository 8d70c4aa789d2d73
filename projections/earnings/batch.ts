// The earnings read model's batch (Projection.applyBatch): the same rows as its `apply` on each event in
// turn, in a few statements per batch. Nearly every event it handles is a copy or a close of some
// account (most of a history), and `apply` asked PostgreSQL one question for each (is this copier a
// follower? does a follower own this position?), which most answer "no": on the rebuild benchmark's
// 1,000,000 events that was most of the rebuild's time. Here a batch reads what it needs in two
// statements (the followers among its copiers, the follower positions among its closes), folds the
// batch in memory in order, and writes the new positions and trades in one statement each. Feature
// events (rare: a provider's or follower's feature added, changed, removed) go through `apply` as they
// come, in order; what the fold reads is only what `apply` of FeatureAdded (followers) and of the copies
// (positions) write, so it keeps both in memory as it goes.
import { type Kysely, sql } from 'kysely';
import type { CopyEvent } from '../../domain/copy/events.js';
import type { FeatureEvent } from '../../domain/feature/events.js';
import type { PositionsEvent } from '../../domain/positions/events.js';
import { exact } from '../../domain/shared/decimal.js';
import type { RecordedEvent } from '../../store/port.js';
import { statementChunks, unnestColumns, unnestRows } from '../projection.js';
import type { ReadModels } from '../schema.js';

export const SIGNAL_FOLLOWER_FEATURE = 'FeatureSignalFollowerDTO';

type Earned = FeatureEvent | CopyEvent | PositionsEvent;

const POSITION_TYPES = { follower_id: 'uuid', account_id: 'uuid', position_id: 'text', rate: 'text' } as const;
const TRADE_TYPES = { follower_id: 'uuid', account_id: 'uuid', trade_id: 'text', close_time: 'timestamptz', result: 'text', rate: 'text' } as const;

interface PositionRow {
  follower_id: string;
  account_id: string;
  position_id: string;
  rate: string | null;
}
interface TradeRow {
  follower_id: string;
  account_id: string;
  trade_id: string;
  close_time: string;
  result: string;
  rate: string | null;
}

/** The rate a copy's opening recorded (CopyExecuted.slaveToMasterRate), as decimal text; null: none (the same currency). */
export const rateOf = (event: Extract<CopyEvent, { type: 'CopyExecuted' }>): string | null => {
  const rate = event.data.slaveToMasterRate;
  return typeof rate === 'number' && Number.isFinite(rate) && rate > 0 ? exact(rate).toFixed() : null;
};

interface Owner {
  readonly followerId: string;
  readonly rate: string | null;
}

/** The follower a FeatureAdded adds (as `apply` inserts it), if any. */
export const followerAdded = (event: Earned): string | null => {
  if (event.type !== 'FeatureAdded') return null;
  const { featureId, scope, setting } = event.data;
  return scope.kind === 'account' && setting.type === SIGNAL_FOLLOWER_FEATURE && typeof setting.signalProviderId === 'string' ? featureId : null;
};

const positionKey = (accountId: string, positionId: string): string => `${accountId}\u0000${positionId}`;

export const earningsApplyBatch =
  (apply: (db: Kysely<ReadModels>, event: RecordedEvent) => Promise<void>) =>
  async (db: Kysely<ReadModels>, recorded: readonly RecordedEvent[]): Promise<void> => {
    const events = recorded as unknown as readonly Earned[];
    const copiers = new Set<string>();
    const closedAccounts = new Set<string>();
    const closedPositions = new Set<string>();
    for (const event of events) {
      if (event.type === 'CopyExecuted' && event.data.result.type === 'opened') copiers.add(event.data.copierId);
      else if (event.type === 'PositionClosed' || event.type === 'PositionPartiallyClosed') {
        closedAccounts.add(event.data.accountId);
        closedPositions.add(event.data.trade.positionId);
      }
    }
    // What the batch reads, as the tables are before it.
    const followers = new Set<string>();
    if (copiers.size > 0) {
      const rows = await db
        .selectFrom('earnings_followers')
        .select('id')
        .where(sql<boolean>`id = any(${[...copiers]}::uuid[])`)
        .execute();
      for (const row of rows) followers.add(row.id);
    }
    /** Followers owning each position (account, position id), in the order `apply`'s select would not promise either. */
    const owners = new Map<string, Owner[]>();
    const own = (accountId: string, positionId: string, owner: Owner): boolean => {
      const key = positionKey(accountId, positionId);
      const list = owners.get(key) ?? [];
      if (list.some((o) => o.followerId === owner.followerId)) return false;
      list.push(owner);
      owners.set(key, list);
      return true;
    };
    if (closedAccounts.size > 0) {
      const rows = await db
        .selectFrom('earnings_positions')
        .select(['follower_id', 'account_id', 'position_id', 'rate'])
        .where(sql<boolean>`account_id = any(${[...closedAccounts]}::uuid[])`)
        .where(sql<boolean>`position_id = any(${[...closedPositions]}::text[])`)
        .execute();
      for (const row of rows) own(row.account_id, row.position_id, { followerId: row.follower_id, rate: row.rate });
    }
    const positions: PositionRow[] = [];
    const trades: TradeRow[] = [];
    const tradeKeys = new Set<string>();
    const flush = async (): Promise<void> => {
      // Before a feature event's own statements: `apply` would have written these first.
      for (const chunk of statementChunks(positions.splice(0))) {
        await db
          .insertInto('earnings_positions')
          .columns(unnestColumns(POSITION_TYPES))
          .expression(unnestRows(chunk, POSITION_TYPES))
          .onConflict((oc) => oc.doNothing())
          .execute();
      }
      for (const chunk of statementChunks(trades.splice(0))) {
        await db
          .insertInto('earnings_trades')
          .columns(unnestColumns(TRADE_TYPES))
          .expression(unnestRows(chunk, TRADE_TYPES))
          .onConflict((oc) => oc.doNothing())
          .execute();
      }
    };
    for (const event of events) {
      switch (event.type) {
        case 'CopyExecuted': {
          const { copierId, slaveAccountId, result } = event.data;
          if (result.type !== 'opened' || !followers.has(copierId)) break;
          const rate = rateOf(event);
          if (own(slaveAccountId, result.slavePositionId, { followerId: copierId, rate })) {
            positions.push({ follower_id: copierId, account_id: slaveAccountId, position_id: result.slavePositionId, rate });
          }
          break;
        }
        case 'PositionClosed':
        case 'PositionPartiallyClosed': {
          const { accountId, trade } = event.data;
          const followersOf = owners.get(positionKey(accountId, trade.positionId));
          if (!followersOf || followersOf.length === 0) break;
          const result = exact(trade.profit).plus(exact(trade.swap)).plus(exact(trade.commission)).toFixed();
          for (const { followerId, rate } of followersOf) {
            // ON CONFLICT DO NOTHING: the first close of a trade is the one kept.
            const key = `${positionKey(accountId, trade.tradeId)}\u0000${followerId}`;
            if (tradeKeys.has(key)) continue;
            tradeKeys.add(key);
            trades.push({ follower_id: followerId, account_id: accountId, trade_id: trade.tradeId, close_time: trade.closeTime, result, rate });
          }
          break;
        }
        default: {
          await flush();
          await apply(db, event as unknown as RecordedEvent);
          const follower = followerAdded(event);
          if (follower) followers.add(follower);
        }
      }
    }
    await flush();
  };
