// Types of the read models as REST queries see them: public views over the active generation of each
// projection (see runner.ts for why views).
import type { ColumnType, Generated } from 'kysely';
import type { CalendarTables } from './calendar/tables.js';
import type { EarningsTables } from './earnings/tables.js';
import type { AlertsTables } from './alerts/tables.js';
import type { MarketNewsTables } from './marketNews/tables.js';
import type { SignalTables } from './signals/tables.js';
import type { MarketplaceTables } from './marketplace/tables.js';
import type { CustomerTables } from './customers/tables.js';
import type { BillingTables } from './billing/tables.js';
import type { InvoicesTables } from './invoices/tables.js';
import type { PayoutsTables } from './payouts/tables.js';

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
  /** DedicatedIp (jsonb). */
  dedicated_ip: ColumnType<unknown, string | null, string | null>;
  /** MyHomeIp (jsonb), with the password's ciphertext. */
  my_home_ip: ColumnType<unknown, string | null, string | null>;
  proxy: ColumnType<unknown, string | null, string | null>;
  /** jsonb array of strings. */
  labels: ColumnType<string[], string, string>;
  skip_credential_check: boolean;
  ctrader_client_id: string | null;
  ctrader_client_secret_set: boolean;
  /** The account currency its venue reported on its last connection (VenueConnected); null before one. */
  currency: string | null;
  created: Timestamp;
  deleted: Timestamp | null;
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
  /** The API request that made the change (api_requests, projections/auditLogs/requests.ts), if one did. */
  request_id: string | null;
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
  /** null: a value the operator chose (BOOTSTRAP_API_KEY), none of which is shown. */
  key_prefix: string | null;
  expires_at: Timestamp | null;
  revoked_at: Timestamp | null;
  revoked_reason: string | null;
  replaced_by: string | null;
  access_policy: ColumnType<unknown, string | null, string | null>;
  rotated_at: Timestamp | null;
  created: Timestamp;
  updated: Timestamp;
  /** The integer id of the key (AuditLogDTO.apiKeyId): the global position of its ApiKeyIssued event. */
  numeric_id: ColumnType<string, string, string>;
}

export interface ProjectsTable {
  id: string;
  name: string;
  owner: string | null;
  settings: ColumnType<unknown, string, string>;
  dedicated: boolean;
  created: Timestamp;
  updated: Timestamp;
  deleted: ColumnType<Date | null, string | null | undefined, string | null>;
}

/** The messaging read model (projections/messaging): the message log and the chats seen. */
export interface MessagingLogsTable {
  id: string;
  project_id: string;
  account_id: string;
  connector_id: string;
  messaging_account_id: string;
  chat_id: string;
  forum_topic_id: string | null;
  message_id: string;
  kind: string;
  reply_to_message_id: string | null;
  text: string;
  posted_at: Timestamp;
  ai_tier: string;
  status: string;
  reason: string;
  signal: ColumnType<unknown, string | null, string | null>;
  outcomes: ColumnType<unknown, string, string>;
  position_ids: ColumnType<string[], string, string>;
  read_at: Timestamp;
  seq: Generated<string>;
}

export interface MessagingChatsTable {
  messaging_account_id: string;
  project_id: string;
  chat_id: string;
  forum_topic_id: string;
  chat_title: string;
  topic_title: string | null;
  chat_type: string;
  seen: Timestamp;
}

/** The charting data read model (projections/chartingData). */
export interface ChartingDataTable {
  id: string;
  account_id: string;
  project_id: string;
  feature_id: string;
  received: Timestamp;
  format: string;
  message: string;
  alert: ColumnType<unknown, string | null, string | null>;
  status: string;
  attempts: Generated<number>;
  outcomes: ColumnType<unknown, string | undefined, unknown>;
  remaining: ColumnType<unknown, string | undefined, string>;
  retry_until: ColumnType<Date | null, Date | string | null, Date | string | null>;
  next_attempt_at: ColumnType<Date | null, Date | string | null, Date | string | null>;
  updated: Timestamp;
}

export interface DashboardsTable {
  id: string;
  project_id: string;
  position: number;
  name: string;
  widgets: ColumnType<unknown, string, string>;
  duplicate_of: string | null;
  created: Timestamp;
  updated: Timestamp;
}

export interface TemplatesTable {
  id: string;
  project_id: string;
  name: string;
  description: string | null;
  revision: number;
  source_account_id: string | null;
  payload: ColumnType<unknown, string, string>;
  created: Timestamp;
  updated: Timestamp;
}

export interface TemplateRevisionsTable {
  template_id: string;
  project_id: string;
  revision: number;
  name: string;
  description: string | null;
  source_account_id: string | null;
  payload: ColumnType<unknown, string, string>;
  created: Timestamp;
}

export interface TemplateLinksTable {
  account_id: string;
  template_id: string;
  project_id: string;
  applied_revision: number;
  applied_at: Timestamp;
}

export interface CopiersTable {
  id: string;
  project_id: string;
  from_account_id: string;
  to_account_id: string;
  active: boolean;
  monitor_only: boolean;
  settings: ColumnType<unknown, string, string>;
  symbol_mappings: ColumnType<unknown, string | undefined, string | undefined>;
  created: Timestamp;
  updated: Timestamp;
  /** A strategy copier's strategy, with the strategy's key, name and activity as they are now (copier_strategies). */
  from_strategy_id: ColumnType<string | null, string | null | undefined, string | null>;
  to_strategy_id: ColumnType<string | null, string | null | undefined, string | null>;
  strategy_key: ColumnType<number | null, number | null | undefined, number | null>;
  strategy_name: ColumnType<string | null, string | null | undefined, string | null>;
  strategy_active: ColumnType<boolean, boolean | undefined, boolean>;
  /** A signal follower's copier: the FeatureSignalProviderDTO it follows (app/signals.ts); null for every other copier. */
  signal_provider_id: ColumnType<string | null, string | null | undefined, string | null>;
}

/** The copiers read model's own copy of every strategy, so a copier row carries its strategy's key. */
export interface CopierStrategiesTable {
  strategy_id: string;
  name: string;
  key: number;
  active: boolean;
}

/** A strategy (reference StrategyDTO). */
export interface StrategiesTable {
  id: string;
  project_id: string;
  name: string;
  key: number;
  active: boolean;
  created: Timestamp;
  updated: Timestamp;
}

export interface PositionsTable {
  account_id: string;
  id: string;
  kind: 'position' | 'order';
  symbol: string;
  order_type: string;
  volume: number;
  open_price: number;
  open_time: Timestamp;
  stop_loss: number | null;
  take_profit: number | null;
  expiry: Timestamp | null;
  comment: string | null;
  magic_number: ColumnType<string | null, number | null, number | null>;
  client_order_id: string | null;
  updated: Timestamp;
}

export interface VenueActivityTable {
  account_id: string;
  last_change_at: Timestamp;
  connected: boolean;
}

export interface CopiesTable {
  copier_id: string;
  master_position_id: string;
  /** forcePositionLotSize: which of the orders copying the master position this is; 0 for an unsplit copy. */
  part: ColumnType<number, number | undefined, number>;
  master_account_id: string;
  slave_account_id: string;
  slave_position_id: string;
  kind: 'position' | 'pendingOrder';
  symbol: string;
  order_type: string;
  volume: number;
  client_order_id: string;
  status: 'open' | 'closed';
  opened_at: Timestamp;
  closed_at: Timestamp | null;
  /** COPIER (the engine closed it), SLAVE_VENUE (its own stop, a manual close, a cancel) or a feature type. */
  closed_by: string | null;
  /** Net result of the closed copy (profit + swap + commission), when known. */
  result: number | null;
  /** The price the copy closed at, when known. */
  close_price: number | null;
  /**
   * Its partial closes at the slave's venue, oldest first (JSON array of { volume, result }: the volume
   * closed and its net result); `volume` is then what is left, and `result` the net result of the last close.
   */
  partials: ColumnType<unknown, string | undefined, string | undefined>;
}

export interface CopierMartingaleTable {
  copier_id: string;
  consecutive_losses: number;
}

export interface SlaveClosuresTable {
  slave_account_id: string;
  slave_position_id: string;
  closed_at: Timestamp;
  result: number | null;
  close_price: number | null;
}

/** Partial closes of a slave position with no live copy yet (its CopyExecuted may still come). */
export interface SlavePartialsTable {
  slave_account_id: string;
  slave_position_id: string;
  /** The volume left after the latest part. */
  volume: number;
  /** PartialClose[] oldest first (jsonb). */
  partials: unknown;
  /** When the latest part was closed. */
  at: Timestamp;
}

export interface CopyDeferralsTable {
  id: string;
  copier_id: string;
  master_account_id: string;
  due_at: Timestamp;
  master_event: ColumnType<unknown, string, string>;
  deferred_by: ColumnType<unknown, string, string>;
  master_event_at: Timestamp | null;
}

export interface CopyRetriesTable {
  client_order_id: string;
  copier_id: string;
  master_account_id: string;
  slave_account_id: string;
  action: ColumnType<unknown, string, string>;
  source: ColumnType<unknown, string, string>;
  retry_until: Timestamp;
}

export interface FeaturesTable {
  id: string;
  project_id: string;
  scope_kind: string;
  account_id: string | null;
  copier_id: string | null;
  type: string;
  setting: ColumnType<unknown, string, string>;
  created: Timestamp;
  updated: Timestamp;
}

export interface FeatureResetsTable {
  feature_id: string;
  key: string;
  at: Timestamp;
}

export interface AccountLogsTable {
  id: string;
  account_id: string;
  /** The account's project; null only for an account whose AccountCreated the read model never saw. */
  project_id: string | null;
  position_commit: ColumnType<string, string, string>;
  /** The event's global position: unique, stable across rebuilds, and the entry's id on the wire (LogDTO.id). */
  position_prepare: ColumnType<string, string, string>;
  time: Timestamp;
  log_type_id: number;
  category: string;
  message: string;
  code: string | null;
  copier_id: string | null;
  position_id: string | null;
  acknowledged: ColumnType<boolean, boolean | undefined, boolean>;
}

/** The account logs' own map of account to project (from AccountCreated): log lines name only the account. */
export interface AccountLogAccountsTable {
  account_id: string;
  project_id: string;
}

export interface ClosedTradesTable {
  account_id: string;
  trade_id: string;
  position_id: string;
  symbol: string;
  side: string;
  volume: number;
  open_price: number;
  open_time: Timestamp;
  close_price: number;
  close_time: Timestamp;
  profit: number;
  swap: number;
  commission: number;
  reason: string;
  /** Null: none, or a closed volume recorded before they were kept. */
  stop_loss: number | null;
  take_profit: number | null;
  comment: string | null;
  magic_number: ColumnType<string | null, number | null, number | null>;
  client_order_id: string | null;
}

export interface BalanceOperationsTable {
  account_id: string;
  operation_id: string;
  time: Timestamp;
  amount: number;
  comment: string | null;
}

export interface DataCollectorSamplesTable {
  account_id: string;
  time: Timestamp;
  balance: number;
  equity: number;
  floating_pnl: number;
  margin: number;
  /** What the feature recorded when the sample was taken (recordBalance, recordEquity, recordFloatingPnL). */
  record_balance: ColumnType<boolean, boolean | undefined, boolean>;
  record_equity: ColumnType<boolean, boolean | undefined, boolean>;
  record_floating_pnl: ColumnType<boolean, boolean | undefined, boolean>;
}

/** Master opens held for approval (FeatureApprovalDTO), their decision and what came of them. */
export interface ApprovalsTable {
  /** The id of the CopyDeferred event that holds the open back. */
  id: string;
  copier_id: string;
  master_account_id: string;
  slave_account_id: string;
  master_position_id: string;
  symbol: string;
  order_type: string;
  volume: number;
  open_price: number;
  stop_loss: number | null;
  take_profit: number | null;
  requested_at: Timestamp;
  expires_at: Timestamp;
  /** approved or rejected; null while nobody decided. */
  decision: string | null;
  decided_at: Timestamp | null;
  /** The lots an approval placed the copy with instead of the copier's sizing (ApprovalDTO.volume); null: the copier's sizing. */
  decided_volume: number | null;
  /** What the engine did when it decided the open again: COPIED, FAILED, DEFERRED or a skip reason; null while waiting. */
  outcome: string | null;
  resolved_at: Timestamp | null;
}

/** One window of a FeatureMaintenanceWindowDTO, as its events tell. */
export interface MaintenanceWindowsTable {
  feature_id: string;
  window_key: string;
  /** null for a project's window. */
  account_id: string | null;
  project_id: string;
  starts_at: Timestamp;
  ends_at: Timestamp;
  affected_account_ids: ColumnType<unknown, string, string>;
  copier_states: ColumnType<unknown, string, string>;
  copiers_switched: boolean;
  closed_for: ColumnType<unknown, string, string>;
  entry_completed: boolean;
  exited: boolean;
  entered_at: Timestamp;
  exited_at: Timestamp | null;
}

/** A risk limit (RiskLimitDTO): its settings as stored. */
/** A project symbol mapping (reference SymbolMappingDTO); ids are per project. */
export interface SymbolMappingsTable {
  project_id: string;
  id: number;
  symbol_from: string;
  symbol_to: string;
  broker_from: string;
  broker_to: string;
  priority: number;
  created: Timestamp;
  updated: Timestamp;
}

export interface RiskLimitsTable {
  id: string;
  project_id: string;
  account_id: string;
  /** The copier the limit is scoped to (RiskLimitDTO.copierId); null: the whole account. */
  copier_id: string | null;
  settings: ColumnType<unknown, string, string>;
  active: boolean;
  created: Timestamp;
  updated: Timestamp;
}

/** A reference the protection rules of an account measure from now: a period's start, a reset, an overall target's first look. */
export interface ProtectionReferencesTable {
  account_id: string;
  anchor: string;
  kind: string;
  rule_id: string | null;
  family: string | null;
  start: Timestamp;
  balance: number;
  equity: number;
  observed_at: Timestamp;
}

/** A protection trigger in force on an account: a risk limit hit, a profit target locked. */
export interface AccountProtectionsTable {
  account_id: string;
  trigger_id: string;
  rule_kind: string;
  rule_id: string;
  rule_type: string;
  level: string;
  anchor: string;
  symbol: string | null;
  until: Timestamp | null;
  action: string;
  measured: number;
  threshold: number;
  threshold_member: string;
  currency: string;
  message: string;
  at: Timestamp;
  positions_closed_at: Timestamp | null;
}

/** A close decided while a profit target locked the account, not finished yet. */
export interface ProtectionLockedClosesTable {
  account_id: string;
  trigger_id: string;
  position_id: string;
}

export interface ProjectionRegistryTable {
  name: string;
  version: number;
  generation: number;
  building_generation: number | null;
  updated: Generated<Date>;
}

export interface ReadModels
  extends
    CalendarTables,
    EarningsTables,
    AlertsTables,
    SignalTables,
    MarketplaceTables,
    CustomerTables,
    MarketNewsTables,
    BillingTables,
    InvoicesTables,
    PayoutsTables {
  accounts: AccountsTable;
  audit_logs: AuditLogsTable;
  api_keys: ApiKeysTable;
  projects: ProjectsTable;
  dashboards: DashboardsTable;
  charting_data: ChartingDataTable;
  messaging_logs: MessagingLogsTable;
  messaging_chats: MessagingChatsTable;
  templates: TemplatesTable;
  template_revisions: TemplateRevisionsTable;
  template_links: TemplateLinksTable;
  copiers: CopiersTable;
  copier_strategies: CopierStrategiesTable;
  strategies: StrategiesTable;
  positions: PositionsTable;
  venue_activity: VenueActivityTable;
  copies: CopiesTable;
  copier_martingale: CopierMartingaleTable;
  copy_retries: CopyRetriesTable;
  copy_deferrals: CopyDeferralsTable;
  slave_closures: SlaveClosuresTable;
  slave_partials: SlavePartialsTable;
  account_logs: AccountLogsTable;
  account_log_accounts: AccountLogAccountsTable;
  features: FeaturesTable;
  closed_trades: ClosedTradesTable;
  balance_operations: BalanceOperationsTable;
  data_collector_samples: DataCollectorSamplesTable;
  feature_resets: FeatureResetsTable;
  approvals: ApprovalsTable;
  maintenance_windows: MaintenanceWindowsTable;
  risk_limits: RiskLimitsTable;
  symbol_mappings: SymbolMappingsTable;
  account_protections: AccountProtectionsTable;
  protection_references: ProtectionReferencesTable;
  protection_locked_closes: ProtectionLockedClosesTable;
  projection_registry: ProjectionRegistryTable;
}
