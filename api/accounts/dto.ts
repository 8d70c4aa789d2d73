import type { Selectable } from 'kysely';
import type { AccountsTable } from '../../projections/schema.js';

const iso = (value: Date | string): string => new Date(value).toISOString();

/** AccountDTO from the accounts read model. The password never leaves the service. */
export const toAccountDTO = (row: Selectable<AccountsTable>) => ({
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
  // Copiers arrive with the copier area; until then no account has any.
  hasMonitorOnlyCopiers: false,
  hasDisabledCopiers: false,
  nativeMode: row.native_mode,
  closeUnmanagedPositions: row.close_unmanaged_positions,
  dedicatedIp: row.dedicated_ip,
  myHomeIp: row.my_home_ip,
  proxy: (row.proxy ?? null) as { host: string; port: number; username?: string | null } | null,
});
