// The platform application (OAuth client) an account at a real venue connects under. First match wins:
//   1. the account's own: its ctraderClientId and ctraderClientSecret (AccountDTO), both set;
//   2. its brand's: the white label of the account's project (a brand's own project) or of the brand
//      whose customer owns the project names an id and secret for the account's type (OAUTH_PAIRS:
//      ctraderClientId and ctraderClientSecret for cTrader's type 4);
//   3. none here: the venue's configured application (CTRADER_CLIENT_ID / CTRADER_CLIENT_SECRET), and
//      without that the account is refused at connect (engine/venues/ctrader/adapter.ts).
// Only the cTrader adapter reads it. Secrets are stored sealed with the credentials key.
import type { Kysely } from 'kysely';
import type { AccountSettings } from '../../domain/account/events.js';
import { OAUTH_PAIRS } from '../../domain/whiteLabel/feature.js';
import { brandFeatureOfProject } from '../../projections/customers/queries.js';
import type { ReadModels } from '../../projections/schema.js';
import type { VenueApplication } from './port.js';

/** The setting of a white label whose project is not deleted. */
const settingOf = async (db: Kysely<ReadModels>, featureId: string): Promise<Record<string, unknown> | undefined> => {
  const row = await db
    .selectFrom('features')
    .innerJoin('projects', 'projects.id', 'features.project_id')
    .select('features.setting')
    .where('features.id', '=', featureId)
    .where('projects.deleted', 'is', null)
    .executeTakeFirst();
  return row ? (row.setting as Record<string, unknown>) : undefined;
};

/** A pair as stored: an id that is not blank and a sealed secret; null otherwise. */
const pairOf = (clientId: unknown, sealed: unknown, unseal: (ciphertext: string) => string): VenueApplication | null =>
  typeof clientId !== 'string' || clientId.trim() === '' || typeof sealed !== 'string' || sealed === ''
    ? null
    : { clientId: clientId.trim(), clientSecret: unseal(sealed) };

/** The brand's application for accounts of `accountTypeId` in `projectId`; null: none. */
export const brandApplication = async (
  db: Kysely<ReadModels>,
  unseal: (ciphertext: string) => string,
  projectId: string,
  accountTypeId: number,
): Promise<VenueApplication | null> => {
  const pair = OAUTH_PAIRS.find((p) => p.accountTypeId === accountTypeId);
  if (!pair) return null;
  const featureId = await brandFeatureOfProject(db, projectId);
  const setting = featureId === undefined ? undefined : await settingOf(db, featureId);
  return pairOf(setting?.[pair.clientId], setting?.[pair.clientSecret], unseal);
};

/** The application an account connects under: its own, else its brand's (see the top); null: the venue's configured one. */
export const venueApplication = async (
  db: Kysely<ReadModels>,
  unseal: (ciphertext: string) => string,
  projectId: string,
  settings: Pick<AccountSettings, 'accountTypeId' | 'ctraderClientId' | 'ctraderClientSecretCiphertext'>,
): Promise<VenueApplication | null> =>
  pairOf(settings.ctraderClientId, settings.ctraderClientSecretCiphertext, unseal) ?? (await brandApplication(db, unseal, projectId, settings.accountTypeId));
