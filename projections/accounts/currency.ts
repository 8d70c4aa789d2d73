// The account currency the accounts read model keeps: what the account's venue reported on its last
// connection (VenueConnected.currency), so money figures can name it while the account has no session.
import type { Kysely } from 'kysely';
import type { ReadModels } from '../schema.js';

/** The currency of an account whose currency was never recorded: the simulated venue's default. */
export const UNRECORDED_CURRENCY = 'USD';

/** Each account's recorded currency; an account never connected since the currency was recorded is left out. */
export const recordedCurrencies = async (db: Kysely<ReadModels>, accountIds: readonly string[]): Promise<Map<string, string>> => {
  if (accountIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('accounts')
    .select(['id', 'currency'])
    .where('id', 'in', [...new Set(accountIds)])
    .where('currency', 'is not', null)
    .execute();
  return new Map(rows.map((row) => [row.id, row.currency!]));
};

/** The money currency of each account: its recorded one, else UNRECORDED_CURRENCY. */
export const moneyCurrencies = async (db: Kysely<ReadModels>, accountIds: readonly string[]): Promise<(id: string) => string> => {
  const recorded = await recordedCurrencies(db, accountIds);
  return (id) => recorded.get(id) ?? UNRECORDED_CURRENCY;
};
