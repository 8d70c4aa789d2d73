// AccountDTO and AsyncAccountCreationResponseDTO from the read models, and an account's settings from
// AccountCreateDTO and AccountUpdateDTO.
import type { Static } from '@sinclair/typebox';
import type { Kysely, Selectable } from 'kysely';
import type { AccountSettings } from '../../domain/account/events.js';
import type { AsyncRequestRow } from '../../app/accounts/asyncCreation.js';
import type { Services } from '../../app/services.js';
import { copierFlags } from '../../projections/copiers/queries.js';
import { findAccount } from '../../projections/accounts/queries.js';
import type { AccountsTable, ReadModels } from '../../projections/schema.js';
import type { AccountCreateDTO } from './schemas.js';

export type CreateBody = Static<typeof AccountCreateDTO>;
export type UpdateBody = Partial<Record<string, unknown>> & Partial<CreateBody>;

const iso = (value: Date | string): string => new Date(value).toISOString();
const isoOrNull = (value: Date | string | null): string | null => (value ? iso(value) : null);

/** AccountDTO from the accounts read model. The password never leaves the service. */
export const toAccountDTO = (row: Selectable<AccountsTable>, flags = { monitorOnly: false, disabled: false }) => ({
  id: row.id,
  created: iso(row.created),
  loginServer: row.login_server,
  loginAccountNumber: row.login_account_number,
  alias: row.alias,
  accountTypeId: row.account_type_id,
  regionId: row.region_id,
  accountStatusId: row.account_status_id,
  propFirm: row.prop_firm,
  tradingDisabled: row.trading_disabled,
  hasMonitorOnlyCopiers: flags.monitorOnly,
  hasDisabledCopiers: flags.disabled,
  nativeMode: row.native_mode,
  closeUnmanagedPositions: row.close_unmanaged_positions,
  dedicatedIp: row.dedicated_ip,
  myHomeIp: row.my_home_ip,
  proxy: (row.proxy ?? null) as { host: string; port: number; username?: string | null } | null,
});

/** AccountDTOs with the copier flags of each account (its own copiers, as the slave). */
export const toAccountDTOs = async (db: Kysely<ReadModels>, projectId: string, rows: readonly Selectable<AccountsTable>[]) => {
  const flags = await copierFlags(
    db,
    projectId,
    rows.map((r) => r.id),
  );
  return rows.map((r) => toAccountDTO(r, flags.get(r.id)));
};

/** AsyncAccountCreationResponseDTO: the account only once COMPLETED (as it is now), the error only when FAILED. */
export const toAsyncCreationDTO = async (db: Kysely<ReadModels>, row: AsyncRequestRow) => {
  let account: unknown;
  if (row.status === 'COMPLETED') {
    const found = await findAccount(db, row.project_id, row.account_id);
    if (found) account = (await toAccountDTOs(db, row.project_id, [found]))[0];
  }
  return {
    requestId: row.request_id,
    status: row.status,
    ...(account ? { account } : {}),
    ...(row.status === 'FAILED' && row.error ? { error: row.error } : {}),
    created: isoOrNull(row.created)!,
    startedAt: isoOrNull(row.started_at),
    completedAt: isoOrNull(row.completed_at),
  };
};

/** The settings of a new account (AccountCreateDTO); the password only as ciphertext from here on. */
export const fromAccountCreateDTO = (services: Services, body: CreateBody): AccountSettings => ({
  loginServer: body.loginServer,
  loginAccountNumber: body.loginAccountNumber,
  passwordCiphertext: services.cipher.encrypt(body.loginAccountPassword),
  alias: body.alias ?? null,
  accountTypeId: body.accountTypeId,
  regionId: body.regionId,
  propFirm: body.propFirm ?? false,
  tradingDisabled: body.tradingDisabled ?? false,
  nativeMode: body.nativeMode ?? false,
  closeUnmanagedPositions: body.closeUnmanagedPositions ?? false,
  dedicatedIp: body.dedicatedIp ?? null,
  myHomeIp: body.myHomeIp ?? null,
  proxy: body.proxy ? { username: null, ...body.proxy } : null,
});

const UPDATABLE = [
  'loginServer',
  'loginAccountNumber',
  'alias',
  'accountTypeId',
  'regionId',
  'propFirm',
  'tradingDisabled',
  'nativeMode',
  'closeUnmanagedPositions',
  'dedicatedIp',
  'myHomeIp',
] as const;

/** The changes an AccountUpdateDTO asks for: the members it sends; a new password only as ciphertext. */
export const fromAccountUpdateDTO = (services: Services, body: UpdateBody): Partial<AccountSettings> => {
  const changes: Record<string, unknown> = {};
  for (const key of UPDATABLE) if (body[key] !== undefined) changes[key] = body[key];
  if (body.proxy !== undefined) changes.proxy = body.proxy === null ? null : { username: null, ...body.proxy };
  if (body.loginAccountPassword !== undefined) {
    changes.passwordCiphertext = services.cipher.encrypt(body.loginAccountPassword);
  }
  return changes as Partial<AccountSettings>;
};
