// Reads of the marketplace read model (projector.ts).
import type { Kysely } from 'kysely';
import type { KeptScoreFacts } from '../../domain/analytics/metrics.js';
import type { ReadModels } from '../schema.js';
import { refreshScores } from './facts.js';

/** The kept score facts of each of the providers that has them (a provider the model has not reached yet has none). */
export const keptScoresOf = async (db: Kysely<ReadModels>, providerIds: readonly string[]): Promise<Map<string, KeptScoreFacts>> => {
  if (providerIds.length === 0) return new Map();
  const rows = await db.selectFrom('marketplace_scores').select(['provider_id', 'facts']).where('provider_id', 'in', providerIds).execute();
  return new Map(rows.filter((r) => r.facts !== null).map((r) => [r.provider_id, r.facts as KeptScoreFacts]));
};

/**
 * The data collector's retention (app/dataCollectorRetention.ts) for the model's copy of the samples:
 * what it deletes from the data-collector read model it deletes here too, and the facts of the
 * providers of the accounts that lost samples are computed again, so the score reads the samples
 * GET .../performanceMetrics reads.
 */
export const pruneMarketplaceSamples = async (db: Kysely<ReadModels>, before: Date): Promise<number> =>
  db.transaction().execute(async (tx) => {
    const deleted = await tx.deleteFrom('marketplace_samples').where('time', '<', before).returning('account_id').execute();
    await refreshScores(tx, new Set(deleted.map((r) => r.account_id)));
    return deleted.length;
  });
