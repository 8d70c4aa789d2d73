// The audit log: one row per change made through the API (or by the system), with who, from where and
// when, taken from the event metadata. Secrets never reach it: passwords, webhook secrets and key hashes
// are masked or left out.
import { type Insertable, type Kysely, sql } from 'kysely';
import { accountEventTypes, type AccountEvent } from '../../domain/account/events.js';
import { accountLogEventTypes, type AccountLogEvent } from '../../domain/accountLog/events.js';
import { apiKeyEventTypes, type ApiKeyEvent } from '../../domain/apiKey/events.js';
import { copierEventTypes, type CopierEvent } from '../../domain/copier/events.js';
import { dashboardEventTypes, type DashboardEvent } from '../../domain/dashboard/events.js';
import type { DashboardLayout } from '../../domain/dashboard/layout.js';
import { featureEventTypes, type FeatureEvent } from '../../domain/feature/events.js';
import type { PositionsEvent } from '../../domain/positions/events.js';
import { projectEventTypes, type ProjectEvent } from '../../domain/project/events.js';
import type { ProtectionEvent } from '../../domain/protection/events.js';
import { riskLimitEventTypes, type RiskLimitEvent } from '../../domain/riskLimit/events.js';
import { strategyEventTypes, type StrategyEvent } from '../../domain/strategy/events.js';
import { symbolMappingEventTypes, type SymbolMappingEvent } from '../../domain/symbolMapping/events.js';
import { templateEventTypes, type TemplateEvent } from '../../domain/template/events.js';
import { maskMyHomeIpPassword } from '../../domain/accountFeatures/myHomeIp.js';
import { maskWebhookSecrets } from '../../domain/webhook/secrets.js';
import { maskChartingWebhookId } from '../../domain/chartingWebhook/feature.js';
import { maskBotToken } from '../../domain/messaging/feature.js';
import type { RecordedEvent } from '../../store/port.js';
import { insertFirstOfKey, type Projection, statementChunks } from '../projection.js';
import type { AuditLogsTable, ReadModels } from '../schema.js';

const MASK = '***';

const masked = (settings: object): Record<string, unknown> => {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(settings)) {
    if (key === 'passwordCiphertext') out.loginAccountPassword = MASK;
    else if (key === 'ctraderClientSecretCiphertext') out.ctraderClientSecret = value === null ? null : MASK;
    else if (key === 'myHomeIp' && value) {
      const { passwordCiphertext: _secret, ...visible } = value as { passwordCiphertext: unknown };
      out.myHomeIp = { ...visible, password: MASK };
    } else out[key] = value;
  }
  return out;
};

const statusNames: Record<string, number> = { AccountStarted: 2, AccountStopped: 3, AccountDeleted: 4 };

interface Described {
  readonly projectId: string | null;
  readonly accountId: string | null;
  readonly changes: unknown;
  /** A change to an existing key: without a project in the request context, it comes from the key's ApiKeyIssued row. */
  readonly apiKeyId?: string;
}

type Audited =
  | AccountEvent
  | ProjectEvent
  | ApiKeyEvent
  | CopierEvent
  | FeatureEvent
  | RiskLimitEvent
  | SymbolMappingEvent
  | StrategyEvent
  | DashboardEvent
  | TemplateEvent
  | AccountLogEvent
  | Extract<ProtectionEvent, { type: 'ProtectionReset' }>
  | Extract<PositionsEvent, { type: 'TradeRequested' }>;
type Of<T extends Audited['type']> = Extract<Audited, { type: T }>;
/** What an event of one type puts in the log; `contextProject` is the project of the request that made it, if any. */
type Describer<T extends Audited['type']> = (event: Of<T>, contextProject: string | null) => Described;

const accountStatusChanged = (event: Of<'AccountStarted' | 'AccountStopped' | 'AccountDeleted'>, contextProject: string | null): Described => ({
  projectId: contextProject,
  accountId: event.data.accountId,
  changes: { accountStatusId: { from: event.data.from, to: statusNames[event.type] } },
});

const copierNamed = (event: Of<'CopierResyncRequested' | 'CopierDeleted'>, contextProject: string | null): Described => ({
  projectId: contextProject,
  accountId: event.data.toAccountId,
  changes: { copierId: event.data.copierId },
});

const featureChanged = (event: Of<'FeatureAdded' | 'FeatureUpdated' | 'FeatureRemoved' | 'FeatureStateReset'>, contextProject: string | null): Described => {
  const { scope, at: _at, featureId } = event.data;
  // A webhook's secret and a home proxy's password are sealed in the event; the log shows the mask
  // their answers show (domain/webhook/secrets.ts, domain/accountFeatures/myHomeIp.ts).
  const changes =
    event.type === 'FeatureAdded' || event.type === 'FeatureUpdated'
      ? { featureId, scope, ...maskBotToken(maskChartingWebhookId(maskMyHomeIpPassword(maskWebhookSecrets(event.data.setting)))) }
      : event.type === 'FeatureStateReset'
        ? { featureId, scope, key: event.data.key }
        : { featureId, scope };
  return { projectId: contextProject, accountId: scope.kind === 'project' ? null : scope.accountId, changes };
};

const apiKeyChanged = (
  event: Of<'ApiKeyRenamed' | 'ApiKeyExpiryChanged' | 'ApiKeyRevoked' | 'ApiKeyAccessPolicySet' | 'ApiKeyAccessPolicyRemoved'>,
  contextProject: string | null,
): Described => {
  const { at: _at, ...visible } = event.data;
  return { projectId: contextProject, accountId: null, changes: visible, apiKeyId: event.data.apiKeyId };
};

/**
 * A dashboard in the log: its name and its widgets without their free-form configuration (up to 16 KB
 * each, 256 KB a dashboard: the event and the request record keep it whole).
 */
const dashboardSummary = (layout: DashboardLayout) => ({
  name: layout.name,
  widgets: layout.widgets.map(({ id, type, title, gridItem }) => ({ id, type, title, gridItem })),
});

const templateRevisionChanges = (data: Of<'TemplateCreated' | 'TemplateUpdated'>['data']) => ({
  templateId: data.templateId,
  revision: data.revision,
  name: data.name,
  description: data.description,
  sourceAccountId: data.sourceAccountId,
});

/** Per event type, what it puts in the log. */
const DESCRIBERS: { readonly [T in Audited['type']]: Describer<T> } = {
  AccountCreated: ({ data }) => ({ projectId: data.projectId, accountId: data.accountId, changes: masked(data.settings) }),
  AccountUpdated: ({ data }, contextProject) => ({ projectId: contextProject, accountId: data.accountId, changes: masked(data.changes) }),
  AccountStarted: accountStatusChanged,
  AccountStopped: accountStatusChanged,
  AccountDeleted: accountStatusChanged,
  AccountReconnectRequested: ({ data }, contextProject) => ({ projectId: contextProject, accountId: data.accountId, changes: {} }),
  CopierCreated: ({ data }) => {
    const { copierId, fromAccountId, settings, fromStrategyId, toStrategyId } = data;
    const strategies = { ...(fromStrategyId ? { fromStrategyId } : {}), ...(toStrategyId ? { toStrategyId } : {}) };
    return { projectId: data.projectId, accountId: data.toAccountId, changes: { copierId, fromAccountId, ...strategies, ...settings } };
  },
  CopierUpdated: ({ data }, contextProject) => ({
    projectId: contextProject,
    accountId: data.toAccountId,
    changes: { copierId: data.copierId, ...data.changes },
  }),
  CopierSymbolMappingsSet: ({ data }, contextProject) => ({
    projectId: contextProject,
    accountId: data.toAccountId,
    changes: { copierId: data.copierId, symbolMappings: data.mappings },
  }),
  CopierResyncRequested: copierNamed,
  CopierDeleted: copierNamed,
  FeatureAdded: featureChanged,
  FeatureUpdated: featureChanged,
  FeatureRemoved: featureChanged,
  FeatureStateReset: featureChanged,
  RiskLimitCreated: ({ data }) => ({ projectId: data.projectId, accountId: data.accountId, changes: { riskLimitId: data.riskLimitId, ...data.settings } }),
  RiskLimitUpdated: ({ data }, contextProject) => ({
    projectId: contextProject,
    accountId: data.accountId,
    changes: { riskLimitId: data.riskLimitId, ...data.settings },
  }),
  RiskLimitDeleted: ({ data }, contextProject) => ({ projectId: contextProject, accountId: data.accountId, changes: { riskLimitId: data.riskLimitId } }),
  // A reset of a risk limit or profit target: through the API, or by the target's own rules (no project in the context).
  ProtectionReset: ({ data }, contextProject) => ({
    projectId: contextProject,
    accountId: data.accountId,
    changes: { ruleId: data.ruleId, ruleKind: data.ruleKind, reason: data.reason },
  }),
  // Trading through the API: who asked for which order, close or change.
  TradeRequested: ({ data }, contextProject) => ({
    projectId: contextProject,
    accountId: data.accountId,
    changes: { requestId: data.requestId, ...data.request },
  }),
  // Acknowledged log entries (LogDTO ids), or all of the project's so far.
  LogsAcknowledged: ({ data }) => ({ projectId: data.projectId, accountId: null, changes: { logIds: data.logIds } }),
  AllLogsAcknowledged: ({ data }) => ({ projectId: data.projectId, accountId: null, changes: { allLogs: true } }),
  ProjectCreated: ({ data }) => ({ projectId: data.projectId, accountId: null, changes: { name: data.name } }),
  ProjectUpdated: ({ data }) => ({ projectId: data.projectId, accountId: null, changes: data.settings }),
  // The accounts it stopped and deleted and the keys it revoked follow as entries of their own.
  ProjectDeleted: ({ data }) => ({ projectId: data.projectId, accountId: null, changes: { deleted: true } }),
  SymbolMappingCreated: ({ data }) => ({ projectId: data.projectId, accountId: null, changes: { symbolMappingId: data.symbolMappingId, ...data.mapping } }),
  SymbolMappingUpdated: ({ data }) => ({ projectId: data.projectId, accountId: null, changes: { symbolMappingId: data.symbolMappingId, ...data.mapping } }),
  SymbolMappingDeleted: ({ data }) => ({ projectId: data.projectId, accountId: null, changes: { symbolMappingId: data.symbolMappingId } }),
  // Strategies are the project's: every change is an entry of the project log.
  StrategyCreated: ({ data }) => ({ projectId: data.projectId, accountId: null, changes: { strategyId: data.strategyId, ...data.settings } }),
  StrategyUpdated: ({ data }) => ({ projectId: data.projectId, accountId: null, changes: { strategyId: data.strategyId, ...data.changes } }),
  StrategyDeleted: ({ data }) => ({ projectId: data.projectId, accountId: null, changes: { strategyId: data.strategyId, deleted: true } }),
  // Dashboards are the project's: every change is an entry of the project log.
  DashboardCreated: ({ data }) => ({
    projectId: data.projectId,
    accountId: null,
    changes: { dashboardId: data.dashboardId, ...dashboardSummary(data.layout), duplicateOf: data.duplicateOf },
  }),
  DashboardChanged: ({ data }) => ({
    projectId: data.projectId,
    accountId: null,
    changes: { dashboardId: data.dashboardId, ...dashboardSummary(data.layout) },
  }),
  DashboardDeleted: ({ data }) => ({ projectId: data.projectId, accountId: null, changes: { dashboardId: data.dashboardId } }),
  DashboardsReordered: ({ data }) => ({ projectId: data.projectId, accountId: null, changes: { dashboardIds: data.order } }),
  DashboardsReplaced: ({ data }) => ({
    projectId: data.projectId,
    accountId: null,
    changes: { dashboards: data.dashboards.map((d) => ({ dashboardId: d.dashboardId, ...dashboardSummary(d.layout) })) },
  }),
  // Templates: a revision's name and source (its payload is in GET .../revisions/{revision}); an apply's
  // copier, feature, risk limit and account entries precede its TemplateApplied under one correlation id.
  TemplateCreated: ({ data }) => ({ projectId: data.projectId, accountId: null, changes: templateRevisionChanges(data) }),
  TemplateUpdated: ({ data }) => ({ projectId: data.projectId, accountId: null, changes: templateRevisionChanges(data) }),
  TemplateApplied: ({ data }) => ({ projectId: data.projectId, accountId: data.accountId, changes: { templateId: data.templateId, revision: data.revision } }),
  TemplateUnlinked: ({ data }) => ({ projectId: data.projectId, accountId: data.accountId, changes: { templateId: data.templateId, reason: data.reason } }),
  TemplateDeleted: ({ data }) => ({ projectId: data.projectId, accountId: null, changes: { templateId: data.templateId, deleted: true } }),
  // Keys are the project's business: their entries are in the project log, even for account-level keys.
  ApiKeyIssued: ({ data }) => {
    const { keyHash: _hash, ...visible } = data;
    return { projectId: data.projectId, accountId: null, changes: visible };
  },
  ApiKeyRotated: ({ data }, contextProject) => {
    const { keyHash: _hash, at: _at, ...visible } = data;
    return { projectId: contextProject, accountId: null, changes: visible, apiKeyId: data.apiKeyId };
  },
  ApiKeyTypeChanged: ({ data }, contextProject) => ({
    projectId: contextProject,
    accountId: null,
    changes: { apiKeyId: data.apiKeyId, keyType: { from: data.from, to: data.to } },
    apiKeyId: data.apiKeyId,
  }),
  ApiKeyRenamed: apiKeyChanged,
  ApiKeyExpiryChanged: apiKeyChanged,
  ApiKeyRevoked: apiKeyChanged,
  ApiKeyAccessPolicySet: apiKeyChanged,
  ApiKeyAccessPolicyRemoved: apiKeyChanged,
};

const describe = (recorded: RecordedEvent): Described => {
  const event = recorded as unknown as Audited;
  const contextProject = typeof recorded.metadata.projectId === 'string' ? recorded.metadata.projectId : null;
  return (DESCRIBERS[event.type] as Describer<Audited['type']>)(event, contextProject);
};

/** The columns of a row, as it is written (insertFirstOfKey's arrays). */
const AUDIT_TYPES: { readonly [K in keyof Insertable<AuditLogsTable>]?: string } = {
  id: 'uuid',
  position_commit: 'numeric',
  position_prepare: 'bigint',
  project_id: 'uuid',
  account_id: 'uuid',
  action: 'text',
  changes: 'jsonb',
  api_key_id: 'uuid',
  client_ip: 'text',
  method: 'text',
  path: 'text',
  correlation_id: 'text',
  request_id: 'uuid',
  created: 'timestamptz',
};

const text = (v: unknown): string | null => (typeof v === 'string' ? v : null);

const rowOf = (recorded: RecordedEvent, projectId: string, { accountId, changes }: Described): Insertable<AuditLogsTable> => {
  const m = recorded.metadata;
  return {
    id: recorded.id,
    position_commit: recorded.position.commit.toString(),
    position_prepare: recorded.position.prepare.toString(),
    project_id: projectId,
    account_id: accountId,
    action: recorded.type,
    changes: JSON.stringify(changes),
    api_key_id: text(m.apiKeyId),
    client_ip: text(m.clientIp),
    method: text(m.method),
    path: text(m.path),
    correlation_id: text(m.correlationId),
    request_id: text(m.requestId),
    // When the request was received (the command's clock), not when the row was written.
    created: typeof m.receivedAt === 'string' && !Number.isNaN(Date.parse(m.receivedAt)) ? m.receivedAt : recorded.created,
  };
};

/**
 * The events of a batch in order, with the effect of one statement each: an entry without a project
 * in its request takes the project of its key's ApiKeyIssued row, else of its account's earlier rows
 * (else it is left out). Those rows are looked up in two queries for the whole batch, and the rows the
 * batch itself writes are found in memory; every row is written in multi-row INSERTs.
 */
const applyEvents = async (db: Kysely<ReadModels>, events: readonly RecordedEvent[]): Promise<void> => {
  const described = events.map(describe);
  const keys = new Set<string>();
  const accounts = new Set<string>();
  for (const d of described) {
    if (d.projectId) continue;
    if (d.apiKeyId) keys.add(d.apiKeyId);
    if (d.accountId) accounts.add(d.accountId);
  }
  /** The project of each key's ApiKeyIssued row, and of each account's rows: in the table, then as the batch writes them. */
  const keyProjects = new Map<string, string>();
  const accountProjects = new Map<string, string>();
  for (const chunk of statementChunks([...keys])) {
    const rows = await db
      .selectFrom('audit_logs')
      .select([sql<string>`changes->>'apiKeyId'`.as('api_key_id'), 'project_id'])
      .where('action', '=', 'ApiKeyIssued')
      .where(sql<string>`changes->>'apiKeyId'`, 'in', chunk)
      .execute();
    for (const row of rows) if (!keyProjects.has(row.api_key_id)) keyProjects.set(row.api_key_id, row.project_id);
  }
  for (const chunk of statementChunks([...accounts])) {
    const rows = await db.selectFrom('audit_logs').distinctOn('account_id').select(['account_id', 'project_id']).where('account_id', 'in', chunk).execute();
    for (const row of rows) accountProjects.set(row.account_id!, row.project_id);
  }
  const rows: Insertable<AuditLogsTable>[] = [];
  events.forEach((recorded, i) => {
    const d = described[i]!;
    let { projectId } = d;
    if (!projectId && d.apiKeyId) projectId = keyProjects.get(d.apiKeyId) ?? null;
    if (!projectId && d.accountId) projectId = accountProjects.get(d.accountId) ?? null;
    if (!projectId) return;
    rows.push(rowOf(recorded, projectId, d));
    if (recorded.type === 'ApiKeyIssued') {
      const issued = (d.changes as { apiKeyId?: unknown }).apiKeyId;
      if (typeof issued === 'string' && !keyProjects.has(issued)) keyProjects.set(issued, projectId);
    }
    if (d.accountId && !accountProjects.has(d.accountId)) accountProjects.set(d.accountId, projectId);
  });
  await insertFirstOfKey(db, 'audit_logs', rows, ['id'], AUDIT_TYPES);
};

export const auditLogsProjection: Projection = {
  name: 'audit_logs',
  // 7: webhook secrets masked; a start rebuilds the log, so rows written before hold no ciphertext either.
  // 8: project updates and project symbol mappings.
  // 9: log acknowledgements.
  // 10: the request id that finds the request's record (requests.ts).
  // 11: dashboard changes.
  // 12: account templates.
  // 13: strategies, and a strategy copier's strategy.
  version: 13,
  handles: [
    ...accountEventTypes,
    ...copierEventTypes,
    ...projectEventTypes,
    ...apiKeyEventTypes,
    ...featureEventTypes,
    ...riskLimitEventTypes,
    ...symbolMappingEventTypes,
    ...strategyEventTypes,
    ...dashboardEventTypes,
    ...templateEventTypes,
    ...accountLogEventTypes,
    'ProtectionReset',
    'TradeRequested',
  ],
  tables: ['audit_logs'],
  async createTables(db, schema) {
    await sql`CREATE TABLE ${sql.id(schema, 'audit_logs')} (
      id uuid PRIMARY KEY,
      position_commit numeric(20) NOT NULL,
      position_prepare bigint NOT NULL,
      project_id uuid NOT NULL,
      account_id uuid,
      action text NOT NULL,
      changes jsonb NOT NULL,
      api_key_id uuid,
      client_ip text,
      method text,
      path text,
      correlation_id text,
      request_id uuid,
      created timestamptz NOT NULL)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'audit_logs')} (project_id, created)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'audit_logs')} (account_id, created)`.execute(db);
  },
  async apply(db, recorded) {
    await applyEvents(db, [recorded]);
  },
  async applyBatch(db, events) {
    await applyEvents(db, events);
  },
};
