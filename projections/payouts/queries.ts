// Queries of the payouts read model.
import type { Kysely } from 'kysely';
import type { ReadModels } from '../schema.js';

/** The customer's payout method (Wise e-mail addresses; empty: none recorded). */
export const payoutMethodOf = async (db: Kysely<ReadModels>, customerId: number): Promise<string[]> =>
  (await db.selectFrom('payout_methods').select('wise_emails').where('customer_id', '=', customerId).executeTakeFirst())?.wise_emails ?? [];

/** The payout methods of a brand's customers: Wise e-mail addresses by customer id. */
export const payoutMethodsOfBrand = async (db: Kysely<ReadModels>, brandFeatureId: string): Promise<Map<number, string[]>> =>
  new Map(
    (await db.selectFrom('payout_methods').select(['customer_id', 'wise_emails']).where('brand_feature_id', '=', brandFeatureId).execute()).map((r) => [
      r.customer_id,
      r.wise_emails,
    ]),
  );
