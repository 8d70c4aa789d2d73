// Queries of the payouts read model.
import type { Kysely } from 'kysely';
import type { ReadModels } from '../schema.js';

/** The payout methods of a brand's customers: Wise e-mail addresses by customer id. */
export const payoutMethodsOfBrand = async (db: Kysely<ReadModels>, brandFeatureId: string): Promise<Map<number, string[]>> =>
  new Map(
    (await db.selectFrom('payout_methods').select(['customer_id', 'wise_emails']).where('brand_feature_id', '=', brandFeatureId).execute()).map((r) => [
      r.customer_id,
      r.wise_emails,
    ]),
  );
