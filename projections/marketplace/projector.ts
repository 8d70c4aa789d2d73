// The marketplace read model: the score facts of every signal provider's and approved trader's account
// over its whole history (domain/analytics/metrics.ts KeptScoreFacts), so GET /marketplace and the
// investor program's trader list rank them without reading and folding each one's history per request.
// A provider or trader (a feature: its row is keyed by the feature's id) may be created long after its
// account's first trades, so the model keeps its own copy of every account's closed volumes, balance
// operations and samples (what the score reads of them), from the same events as the history and
// data-collector read models and with their rules (the first of a key wins), and computes a feature's
// facts again when its account's history moves or when it is created.
import { sql, type Kysely } from 'kysely';
import type { SampleEvent } from '../../domain/analytics/dataCollector.js';
import { featureEventTypes, type FeatureEvent } from '../../domain/feature/events.js';
import type { PositionsEvent } from '../../domain/positions/events.js';
import { TRADER_FEATURE } from '../../domain/investor/features.js';
import { SIGNAL_PROVIDER } from '../../domain/signal/provider.js';
import type { RecordedEvent } from '../../store/port.js';
import { type FirstOfKeyWriter, insertFirstOfKey, keylessFirstOfKey, type Projection, type RebuildFold } from '../projection.js';
import type { ReadModels } from '../schema.js';
import { lockFacts, refreshScores } from './facts.js';

/** The features scored over their account's whole history: a signal provider and an approved trader (FeatureTraderDTO). */
const SCORED: ReadonlySet<string> = new Set([SIGNAL_PROVIDER, TRADER_FEATURE]);

/** A scored feature attached to an account, or any feature removed (a removal of another kind deletes nothing). */
const scoredFeatureOf = (event: FeatureEvent): { kind: 'Added' | 'Removed'; featureId: string; accountId: string } | null => {
  const { featureId, scope } = event.data;
  if (scope.kind !== 'account') return null;
  if (event.type === 'FeatureAdded' && SCORED.has(event.data.setting.type)) return { kind: 'Added', featureId, accountId: scope.accountId };
  return event.type === 'FeatureRemoved' ? { kind: 'Removed', featureId, accountId: scope.accountId } : null;
};

/** The columns of the history tables, as their rows are written (insertFirstOfKey's arrays). */
const TRADE_TYPES = {
  account_id: 'uuid',
  trade_id: 'text',
  symbol: 'text',
  volume: 'float8',
  open_time: 'timestamptz',
  close_time: 'timestamptz',
  profit: 'float8',
  swap: 'float8',
  commission: 'float8',
} as const;
const BALANCE_TYPES = { account_id: 'uuid', operation_id: 'text', time: 'timestamptz', amount: 'float8' } as const;
const SAMPLE_TYPES = { account_id: 'uuid', time: 'timestamptz', equity: 'float8' } as const;

/**
 * Writes a batch's closed volumes, balance operations, samples (`insert`: the first of a key wins) and
 * scored features; returns the accounts whose facts it moved (to compute again).
 */
const writeEvents = async (db: Kysely<ReadModels>, events: readonly RecordedEvent[], insert: FirstOfKeyWriter = insertFirstOfKey): Promise<Set<string>> => {
  const trades = [];
  const operations = [];
  const samples = [];
  const moved = new Set<string>();
  for (const recorded of events) {
    if (recorded.type === 'AccountSampled') {
      const { data } = recorded as unknown as SampleEvent;
      samples.push({ account_id: data.accountId, time: data.at, equity: data.equity });
      moved.add(data.accountId);
      continue;
    }
    const event = recorded as unknown as PositionsEvent;
    if (event.type === 'PositionPartiallyClosed' || event.type === 'PositionClosed') {
      const t = event.data.trade;
      trades.push({
        account_id: event.data.accountId,
        trade_id: t.tradeId,
        symbol: t.symbol,
        volume: t.volume,
        open_time: t.openTime,
        close_time: t.closeTime,
        profit: t.profit,
        swap: t.swap,
        commission: t.commission,
      });
      moved.add(event.data.accountId);
    } else if (event.type === 'BalanceChanged') {
      const o = event.data.operation;
      operations.push({ account_id: event.data.accountId, operation_id: o.operationId, time: o.time, amount: o.amount });
      moved.add(event.data.accountId);
    }
  }
  await insert(db, 'marketplace_trades', trades, ['account_id', 'trade_id'], TRADE_TYPES);
  await insert(db, 'marketplace_balance', operations, ['account_id', 'operation_id'], BALANCE_TYPES);
  // Keyed by a time: written with its key (keylessFirstOfKey keeps text and uuid keys only).
  await insertFirstOfKey(db, 'marketplace_samples', samples, ['account_id', 'time'], SAMPLE_TYPES);
  for (const recorded of events) {
    if (!featureEventTypes.includes(recorded.type as FeatureEvent['type'])) continue;
    const scored = scoredFeatureOf(recorded as unknown as FeatureEvent);
    if (scored?.kind === 'Added') {
      await db
        .insertInto('marketplace_scores')
        .values({ feature_id: scored.featureId, account_id: scored.accountId, facts: JSON.stringify(null) })
        .onConflict((oc) => oc.column('feature_id').doNothing())
        .execute();
      moved.add(scored.accountId);
    } else if (scored?.kind === 'Removed') {
      await db.deleteFrom('marketplace_scores').where('feature_id', '=', scored.featureId).execute();
    }
  }
  return moved;
};

const applyEvents = async (db: Kysely<ReadModels>, events: readonly RecordedEvent[]): Promise<void> => {
  await lockFacts(db);
  await refreshScores(db, await writeEvents(db, events));
};

/**
 * The marketplace for a rebuild (Projection.rebuildFold): the batches write the history tables and the
 * scored features as applyBatch does, but the facts are computed once, by finish, for every account a
 * batch moved. A feature's facts are those of its account's whole history as the tables hold it after
 * the last batch that moved the account, which is the whole history the rebuild writes. Nobody else
 * writes the building generation: no lockFacts while the history is applied. The closed volumes and
 * balance operations are written without their primary keys, made once before the facts are
 * computed (keylessFirstOfKey).
 */
export const marketplaceRebuildFold = (): RebuildFold => {
  const moved = new Set<string>();
  const keyless = keylessFirstOfKey();
  return {
    async apply(db, events) {
      for (const accountId of await writeEvents(db, events, keyless.insert)) moved.add(accountId);
    },
    async finish(db) {
      await keyless.finish(db);
      await lockFacts(db);
      await refreshScores(db, moved);
      moved.clear();
    },
  };
};

export const marketplaceProjection: Projection = {
  name: 'marketplace',
  // 2: the facts keep every minute with a close (closeMinutes) instead of each UTC half-day's first and last.
  // 3: approved traders (FeatureTraderDTO) are scored too, keyed by feature_id.
  version: 3,
  handles: ['PositionPartiallyClosed', 'PositionClosed', 'BalanceChanged', 'AccountSampled', ...featureEventTypes],
  tables: ['marketplace_trades', 'marketplace_balance', 'marketplace_samples', 'marketplace_scores'],
  async createTables(db, schema) {
    await sql`CREATE TABLE ${sql.id(schema, 'marketplace_trades')} (
      account_id uuid NOT NULL,
      trade_id text NOT NULL,
      symbol text NOT NULL,
      volume double precision NOT NULL,
      open_time timestamptz NOT NULL,
      close_time timestamptz NOT NULL,
      profit double precision NOT NULL,
      swap double precision NOT NULL,
      commission double precision NOT NULL,
      PRIMARY KEY (account_id, trade_id))`.execute(db);
    await sql`CREATE TABLE ${sql.id(schema, 'marketplace_balance')} (
      account_id uuid NOT NULL,
      operation_id text NOT NULL,
      time timestamptz NOT NULL,
      amount double precision NOT NULL,
      PRIMARY KEY (account_id, operation_id))`.execute(db);
    await sql`CREATE TABLE ${sql.id(schema, 'marketplace_samples')} (
      account_id uuid NOT NULL,
      time timestamptz NOT NULL,
      equity double precision NOT NULL,
      PRIMARY KEY (account_id, time))`.execute(db);
    await sql`CREATE TABLE ${sql.id(schema, 'marketplace_scores')} (
      feature_id uuid PRIMARY KEY,
      account_id uuid NOT NULL,
      facts jsonb NOT NULL)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'marketplace_scores')} (account_id)`.execute(db);
  },
  async apply(db, recorded) {
    await applyEvents(db, [recorded]);
  },
  async applyBatch(db, events) {
    await applyEvents(db, events);
  },
  rebuildFold: marketplaceRebuildFold,
};
