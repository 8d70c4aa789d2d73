// Reads of the marketplace read model (projector.ts).
import type { Kysely } from 'kysely';
import { keptScoreFacts, type KeptScoreFacts } from '../../domain/analytics/metrics.js';
import type { ReadModels } from '../schema.js';
import { lockFacts, refreshScores } from './facts.js';

/** The facts of a provider or trader the read model has not reached yet: no history. */
export const NO_HISTORY = keptScoreFacts({ trades: [], balanceOperations: [], samples: [], from: null, to: null, zone: 'UTC', dataCollectorEnabled: false });

/**
 * The kept score facts of each of the features (signal providers, approved traders) given by id, NO_HISTORY
 * for one the model has not reached yet.
 */
export const keptScoresOf = async (db: Kysely<ReadModels>, featureIds: readonly string[]): Promise<Map<string, KeptScoreFacts>> => {
  const kept = new Map(featureIds.map((id) => [id, NO_HISTORY]));
  if (featureIds.length === 0) return kept;
  const rows = await db.selectFrom('marketplace_scores').select(['feature_id', 'facts']).where('feature_id', 'in', featureIds).execute();
  for (const row of rows) if (row.facts !== null) kept.set(row.feature_id, row.facts as KeptScoreFacts);
  return kept;
};

/**
 * The data collector's retention (app/dataCollectorRetention.ts) for the model's copy of the samples:
 * what it deletes from the data-collector read model it deletes here too, and the facts of the
 * providers and traders of the accounts that lost samples are computed again, so the score reads the
 * samples GET .../performanceMetrics reads; under lockFacts, so no projector batch overlaps it.
 */
export const pruneMarketplaceSamples = async (db: Kysely<ReadModels>, before: Date): Promise<number> =>
  db.transaction().execute(async (tx) => {
    await lockFacts(tx);
    const deleted = await tx.deleteFrom('marketplace_samples').where('time', '<', before).returning('account_id').execute();
    await refreshScores(tx, new Set(deleted.map((r) => r.account_id)));
    return deleted.length;
  });
