// ProjectDTO from the projects read model, and a project's settings from a request.
import type { Static } from '@sinclair/typebox';
import { currencyTypes } from '../../domain/account/enums.js';
import type { ProjectSettings } from '../../domain/project/settings.js';
import type { ProjectRow } from '../../projections/projects/queries.js';
import { enumObject } from '../shared/enumObjects.js';
import type { ProjectWriteDTO } from './schemas.js';

const currencyName = (id: number): string => currencyTypes.find((c) => c.id === id)?.name ?? String(id);

/**
 * `balance`: the sum of the project's transactions (app/invoices.ts projectBalance), decimal text;
 * `blocked`: its customer is blocked (projections/customers projectBlocked).
 */
export const toProjectDTO = (row: ProjectRow, balance = '0', blocked = false) => {
  const { currencyTypeId, billingRegion, ...settings } = row.settings;
  return {
    id: row.id,
    ...settings,
    billingRegion,
    currencyType: enumObject(currencyTypeId, currencyName(currencyTypeId)),
    dedicated: row.dedicated,
    balance: Number(balance),
    blocked,
    ...(row.owner ? { owner: { email: row.owner, permissionType: 'READ_WRITE' as const } } : {}),
    created: new Date(row.created).toISOString(),
  };
};

/** The settings a PUT sends: country and region in upper case; a region of '' is none. */
export const fromProjectDTO = (body: Static<typeof ProjectWriteDTO>): ProjectSettings => ({
  name: body.name,
  billingName: body.billingName,
  billingCompanyName: body.billingCompanyName,
  billingStreet: body.billingStreet,
  billingPostcode: body.billingPostcode,
  billingCity: body.billingCity,
  billingCountry: body.billingCountry,
  billingCountryIsoAlpha2: body.billingCountryIsoAlpha2.trim().toUpperCase(),
  billingRegion: body.billingRegion ? body.billingRegion.trim().toUpperCase() : null,
  billingIdentification: body.billingIdentification,
  currencyTypeId: body.currencyType.id,
});

export const toTraderDTO = (row: { feature_id: string; created: Date | string; account_id: string; alias: string | null }) => ({
  id: row.account_id,
  accountId: row.account_id,
  alias: row.alias,
  featureId: row.feature_id,
  since: new Date(row.created).toISOString(),
});
