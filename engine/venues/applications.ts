// The platform application (OAuth client) an account at a real venue connects under, when its brand has
// one: the white label of the account's project (a brand's own project) or of the brand whose customer
// owns the project names an id and secret for the account's type (OAUTH_PAIRS: ctraderClientId and
// ctraderClientSecret for cTrader's type 4). Without one the venue's configured application is used
// (CTRADER_CLIENT_ID / CTRADER_CLIENT_SECRET). The secret is stored sealed with the credentials key.
import type { Kysely } from 'kysely';
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

/** The brand's application for accounts of `accountTypeId` in `projectId`; null: none (the venue's own is used). */
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
  const clientId = setting?.[pair.clientId];
  const sealed = setting?.[pair.clientSecret];
  if (typeof clientId !== 'string' || clientId.trim() === '' || typeof sealed !== 'string' || sealed === '') return null;
  return { clientId: clientId.trim(), clientSecret: unseal(sealed) };
};
