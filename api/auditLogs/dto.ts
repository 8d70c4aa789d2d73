// AuditLogDTO from the audit_logs read model.
import type { listAuditLogs } from '../../projections/auditLogs/queries.js';

type AuditLogRow = Awaited<ReturnType<typeof listAuditLogs>>[number];

export const toAuditLogDTO = (row: AuditLogRow) => ({
  id: row.id,
  created: new Date(row.created).toISOString(),
  action: row.action,
  changes: row.changes,
  accountId: row.account_id,
  accountAlias: row.account_alias ?? null,
  projectId: row.project_id,
  projectName: row.project_name,
  apiKeyId: row.api_key_id,
  clientIp: row.client_ip,
  method: row.method,
  path: row.path,
  correlationId: row.correlation_id,
});
