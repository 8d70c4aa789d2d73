import type { Kysely, Selectable } from 'kysely';
import { copierFlags } from '../../projections/copiers/queries.js';
import type { AccountsTable, ReadModels } from '../../projections/schema.js';

const iso = (value: Date | string): string => new Date(value).toISOString();

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
