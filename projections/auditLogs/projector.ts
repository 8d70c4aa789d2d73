// The audit log: one row per change made through the API (or by the system), with who, from where and
// when, taken from the event metadata. Secrets never reach it: passwords, webhook secrets and key hashes
// are masked or left out.
import { sql } from 'kysely';
import { accountEventTypes, type AccountEvent } from '../../domain/account/events.js';
import { apiKeyEventTypes, type ApiKeyEvent } from '../../domain/apiKey/events.js';
import { copierEventTypes, type CopierEvent } from '../../domain/copier/events.js';
import { featureEventTypes, type FeatureEvent } from '../../domain/feature/events.js';
import type { PositionsEvent } from '../../domain/positions/events.js';
import { projectEventTypes, type ProjectEvent } from '../../domain/project/events.js';
import type { ProtectionEvent } from '../../domain/protection/events.js';
import { riskLimitEventTypes, type RiskLimitEvent } from '../../domain/riskLimit/events.js';
import { maskWebhookSecrets } from '../../domain/webhook/secrets.js';
import type { RecordedEvent } from '../../store/port.js';
import type { Projection } from '../projection.js';

const MASK = '***';

const masked = (settings: object): Record<string, unknown> => {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(settings)) {
    if (key === 'passwordCiphertext') out.loginAccountPassword = MASK;
    else out[key] = value;
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

const describe = (recorded: RecordedEvent): Described => {
  const event = recorded as unknown as
    | AccountEvent
    | ProjectEvent
    | ApiKeyEvent
    | CopierEvent
    | FeatureEvent
    | RiskLimitEvent
    | Extract<ProtectionEvent, { type: 'ProtectionReset' }>
    | Extract<PositionsEvent, { type: 'TradeRequested' }>;
  const contextProject = typeof recorded.metadata.projectId === 'string' ? recorded.metadata.projectId : null;
  switch (event.type) {
    case 'AccountCreated':
      return { projectId: event.data.projectId, accountId: event.data.accountId, changes: masked(event.data.settings) };
    case 'AccountUpdated':
      return { projectId: contextProject, accountId: event.data.accountId, changes: masked(event.data.changes) };
    case 'AccountStarted':
    case 'AccountStopped':
    case 'AccountDeleted':
      return {
        projectId: contextProject,
        accountId: event.data.accountId,
        changes: { accountStatusId: { from: event.data.from, to: statusNames[event.type] } },
      };
    case 'AccountReconnectRequested':
      return { projectId: contextProject, accountId: event.data.accountId, changes: {} };
    case 'CopierCreated': {
      const { copierId, fromAccountId, settings } = event.data;
      return { projectId: event.data.projectId, accountId: event.data.toAccountId, changes: { copierId, fromAccountId, ...settings } };
    }
    case 'CopierUpdated':
      return { projectId: contextProject, accountId: event.data.toAccountId, changes: { copierId: event.data.copierId, ...event.data.changes } };
    case 'CopierSymbolMappingsSet':
      return { projectId: contextProject, accountId: event.data.toAccountId, changes: { copierId: event.data.copierId, symbolMappings: event.data.mappings } };
    case 'CopierResyncRequested':
    case 'CopierDeleted':
      return { projectId: contextProject, accountId: event.data.toAccountId, changes: { copierId: event.data.copierId } };
    case 'FeatureAdded':
    case 'FeatureUpdated':
    case 'FeatureRemoved':
    case 'FeatureStateReset': {
      const { scope, at: _at, featureId } = event.data;
      // A webhook's secret is sealed in the event; the log shows the mask its answers show (secrets.ts).
      const changes =
        event.type === 'FeatureAdded' || event.type === 'FeatureUpdated'
          ? { featureId, scope, ...maskWebhookSecrets(event.data.setting) }
          : event.type === 'FeatureStateReset'
            ? { featureId, scope, key: event.data.key }
            : { featureId, scope };
      return { projectId: contextProject, accountId: scope.kind === 'project' ? null : scope.accountId, changes };
    }
    case 'RiskLimitCreated':
      return { projectId: event.data.projectId, accountId: event.data.accountId, changes: { riskLimitId: event.data.riskLimitId, ...event.data.settings } };
    case 'RiskLimitUpdated':
      return { projectId: contextProject, accountId: event.data.accountId, changes: { riskLimitId: event.data.riskLimitId, ...event.data.settings } };
    case 'RiskLimitDeleted':
      return { projectId: contextProject, accountId: event.data.accountId, changes: { riskLimitId: event.data.riskLimitId } };
    case 'ProtectionReset':
      // A reset of a risk limit or profit target: through the API, or by the target's own rules (no project in the context).
      return {
        projectId: contextProject,
        accountId: event.data.accountId,
        changes: { ruleId: event.data.ruleId, ruleKind: event.data.ruleKind, reason: event.data.reason },
      };
    case 'TradeRequested':
      // Trading through the API: who asked for which order, close or change.
      return { projectId: contextProject, accountId: event.data.accountId, changes: { requestId: event.data.requestId, ...event.data.request } };
    case 'ProjectCreated':
      return { projectId: event.data.projectId, accountId: null, changes: { name: event.data.name } };
    case 'ApiKeyIssued': {
      // Keys are the project's business: their entries are in the project log, even for account-level keys.
      const { keyHash: _hash, ...visible } = event.data;
      return { projectId: event.data.projectId, accountId: null, changes: visible };
    }
    case 'ApiKeyRotated': {
      const { keyHash: _hash, at: _at, ...visible } = event.data;
      return { projectId: contextProject, accountId: null, changes: visible, apiKeyId: event.data.apiKeyId };
    }
    case 'ApiKeyTypeChanged':
      return {
        projectId: contextProject,
        accountId: null,
        changes: { apiKeyId: event.data.apiKeyId, keyType: { from: event.data.from, to: event.data.to } },
        apiKeyId: event.data.apiKeyId,
      };
    case 'ApiKeyRenamed':
    case 'ApiKeyExpiryChanged':
    case 'ApiKeyRevoked':
    case 'ApiKeyAccessPolicySet':
    case 'ApiKeyAccessPolicyRemoved': {
      const { at: _at, ...visible } = event.data;
      return { projectId: contextProject, accountId: null, changes: visible, apiKeyId: event.data.apiKeyId };
    }
  }
};

export const auditLogsProjection: Projection = {
  name: 'audit_logs',
  // 7: webhook secrets masked; a start rebuilds the log, so rows written before hold no ciphertext either.
  version: 7,
  handles: [
    ...accountEventTypes,
    ...copierEventTypes,
    ...projectEventTypes,
    ...apiKeyEventTypes,
    ...featureEventTypes,
    ...riskLimitEventTypes,
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
      created timestamptz NOT NULL)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'audit_logs')} (project_id, created)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'audit_logs')} (account_id, created)`.execute(db);
  },
  async apply(db, recorded) {
    const described = describe(recorded);
    const { accountId, changes } = described;
    let { projectId } = described;
    if (!projectId && described.apiKeyId) {
      const issued = await db
        .selectFrom('audit_logs')
        .select('project_id')
        .where('action', '=', 'ApiKeyIssued')
        .where(sql<string>`changes->>'apiKeyId'`, '=', described.apiKeyId)
        .limit(1)
        .executeTakeFirst();
      projectId = issued?.project_id ?? null;
    }
    if (!projectId && accountId) {
      // A system-initiated account change: the project comes from the account's earlier rows.
      const first = await db.selectFrom('audit_logs').select('project_id').where('account_id', '=', accountId).limit(1).executeTakeFirst();
      projectId = first?.project_id ?? null;
    }
    if (!projectId) return;
    const m = recorded.metadata;
    const text = (v: unknown): string | null => (typeof v === 'string' ? v : null);
    await db
      .insertInto('audit_logs')
      .values({
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
        // When the request was received (the command's clock), not when the row was written.
        created: typeof m.receivedAt === 'string' && !Number.isNaN(Date.parse(m.receivedAt)) ? m.receivedAt : recorded.created,
      })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
  },
};
