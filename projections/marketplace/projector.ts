// The marketplace read model: the score facts of every signal provider's account over its whole history
// (domain/analytics/metrics.ts KeptScoreFacts), so GET /marketplace ranks providers without reading and
// folding each one's history per request. A provider may be created long after its account's first
// trades, so the model keeps its own copy of every account's closed volumes, balance operations and
// samples (what the score reads of them), from the same events as the history and data-collector read
// models and with their rules (the first of a key wins), and computes a provider's facts again when its
// account's history moves or when it is created.
import { sql, type Kysely } from 'kysely';
import type { SampleEvent } from '../../domain/analytics/dataCollector.js';
import { featureEventTypes, type FeatureEvent } from '../../domain/feature/events.js';
import type { PositionsEvent } from '../../domain/positions/events.js';
import { signalEventOf } from '../../domain/signal/events.js';
import type { RecordedEvent } from '../../store/port.js';
import { insertFirstOfKey, type Projection } from '../projection.js';
import type { ReadModels } from '../schema.js';
import { refreshScores } from './facts.js';

const applyEvents = async (db: Kysely<ReadModels>, events: readonly RecordedEvent[]): Promise<void> => {
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
  await insertFirstOfKey(db, 'marketplace_trades', trades, ['account_id', 'trade_id']);
  await insertFirstOfKey(db, 'marketplace_balance', operations, ['account_id', 'operation_id']);
  await insertFirstOfKey(db, 'marketplace_samples', samples, ['account_id', 'time']);
  for (const recorded of events) {
    if (!featureEventTypes.includes(recorded.type as FeatureEvent['type'])) continue;
    const signal = signalEventOf(recorded as unknown as FeatureEvent);
    if (signal?.kind === 'ProviderCreated') {
      await db
        .insertInto('marketplace_scores')
        .values({ provider_id: signal.providerId, account_id: signal.accountId, facts: JSON.stringify(null) })
        .onConflict((oc) => oc.column('provider_id').doNothing())
        .execute();
      moved.add(signal.accountId);
    } else if (signal?.kind === 'Removed') {
      await db.deleteFrom('marketplace_scores').where('provider_id', '=', signal.featureId).execute();
    }
  }
  await refreshScores(db, moved);
};

export const marketplaceProjection: Projection = {
  name: 'marketplace',
  // 2: the facts keep every minute with a close (closeMinutes) instead of each UTC half-day's first and last.
  version: 2,
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
      provider_id uuid PRIMARY KEY,
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
};
