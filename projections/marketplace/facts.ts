// The score facts the marketplace read model keeps per signal provider (KeptScoreFacts), computed from
// the model's own copy of its account's history, read in the order the history and data-collector
// queries read theirs (projections/history/queries.ts, projections/dataCollector/queries.ts): the same
// records in the same order give performanceMetrics' own numbers.
import { sql, type Kysely } from 'kysely';
import { keptScoreFacts, type KeptScoreFacts } from '../../domain/analytics/metrics.js';
import type { MetricsInput } from '../../domain/analytics/metricsTypes.js';
import { statementChunks } from '../projection.js';
import type { ReadModels } from '../schema.js';

const iso = (value: Date | string): string => new Date(value).toISOString();

/** The account's whole history as the score reads it (members it does not read are left empty). */
const historyOf = async (db: Kysely<ReadModels>, accountId: string): Promise<MetricsInput> => {
  const trades = await db.selectFrom('marketplace_trades').selectAll().where('account_id', '=', accountId).orderBy('close_time').orderBy('trade_id').execute();
  const operations = await db
    .selectFrom('marketplace_balance')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('time')
    .orderBy('operation_id')
    .execute();
  const samples = await db.selectFrom('marketplace_samples').selectAll().where('account_id', '=', accountId).orderBy('time').execute();
  return {
    trades: trades.map((r) => ({
      id: r.trade_id,
      positionId: '',
      symbol: r.symbol,
      side: 'Buy',
      volume: r.volume,
      openTime: iso(r.open_time),
      closeTime: iso(r.close_time),
      profit: r.profit,
      swap: r.swap,
      commission: r.commission,
    })),
    balanceOperations: operations.map((r) => ({ id: r.operation_id, time: iso(r.time), amount: r.amount })),
    samples: samples.map((r) => ({ time: iso(r.time), balance: 0, equity: r.equity, floating: 0 })),
    from: null,
    to: null,
    zone: 'UTC',
    dataCollectorEnabled: false,
  };
};

/**
 * Taken first by every transaction that writes the model (the projector's batch, the retention's prune),
 * held to its end: the facts are computed from what the history tables hold, so two writers must not
 * overlap. Without it a batch could read samples a concurrent prune was deleting, then write its facts
 * over the prune's, leaving the pruned samples in the facts until the account's next event (or a prune
 * could write facts without a batch's new samples). After the lock each statement reads afresh (READ
 * COMMITTED): everything the other writer committed.
 */
export const lockFacts = async (db: Kysely<ReadModels>): Promise<void> => {
  await sql`SELECT pg_advisory_xact_lock(hashtext('marketplace:facts'))`.execute(db);
};

/** Computes again the facts of every provider and trader on one of `accountIds` (under lockFacts). */
export const refreshScores = async (db: Kysely<ReadModels>, accountIds: ReadonlySet<string>): Promise<void> => {
  if (accountIds.size === 0) return;
  const scored = new Set<string>();
  // A rebuild's fold asks for every account of the history at once (marketplaceRebuildFold).
  for (const chunk of statementChunks([...accountIds])) {
    const providers = await db.selectFrom('marketplace_scores').select('account_id').where('account_id', 'in', chunk).execute();
    for (const p of providers) scored.add(p.account_id);
  }
  for (const accountId of scored) {
    const facts: KeptScoreFacts = keptScoreFacts(await historyOf(db, accountId));
    await db
      .updateTable('marketplace_scores')
      .set({ facts: JSON.stringify(facts) })
      .where('account_id', '=', accountId)
      .execute();
  }
};
