// Types of the read models as REST queries see them: public views over the active generation of each
// projection (see runner.ts for why views).
import type { ColumnType, Generated } from 'kysely';

type Timestamp = ColumnType<Date, Date | string, Date | string>;

export interface AccountsTable {
  id: string;
  project_id: string;
  alias: string | null;
  login_server: string;
  login_account_number: string;
  account_type_id: number;
  region_id: number;
  account_status_id: number;
  prop_firm: boolean;
  trading_disabled: boolean;
  native_mode: boolean;
  close_unmanaged_positions: boolean;
  dedicated_ip: string | null;
  my_home_ip: string | null;
  proxy: ColumnType<unknown, string | null, string | null>;
  created: Timestamp;
  updated: Timestamp;
  last_reconnect_at: Timestamp | null;
  revision: ColumnType<string, number | string, number | string>;
}

export interface AuditLogsTable {
  id: string;
  position_commit: ColumnType<string, string, string>;
  position_prepare: ColumnType<string, string, string>;
  project_id: string;
  account_id: string | null;
  action: string;
  changes: ColumnType<unknown, string, string>;
  api_key_id: string | null;
  client_ip: string | null;
  method: string | null;
  path: string | null;
  correlation_id: string | null;
  created: Timestamp;
}

export interface ApiKeysTable {
  id: string;
  project_id: string;
  account_id: string | null;
  level: string;
  key_type: string;
  name: string;
  key_hash: string;
  key_prefix: string;
  expires_at: Timestamp | null;
  revoked_at: Timestamp | null;
  created: Timestamp;
}

export interface ProjectsTable {
  id: string;
  name: string;
  owner: string | null;
  created: Timestamp;
}

export interface CopiersTable {
  id: string;
  project_id: string;
  from_account_id: string;
  to_account_id: string;
  active: boolean;
  monitor_only: boolean;
  settings: ColumnType<unknown, string, string>;
  created: Timestamp;
  updated: Timestamp;
}

export interface ProjectionRegistryTable {
  name: string;
  version: number;
  generation: number;
  checkpoint: string | null;
  building_generation: number | null;
  updated: Generated<Date>;
}

export interface ReadModels {
  accounts: AccountsTable;
  audit_logs: AuditLogsTable;
  api_keys: ApiKeysTable;
  projects: ProjectsTable;
  copiers: CopiersTable;
  projection_registry: ProjectionRegistryTable;
}
