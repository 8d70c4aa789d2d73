// AuditLogDTO from the audit_logs read model, the request record that made the change, and the key.
// Members the reference types as non-null strings or numbers are left out when there is nothing to say
// (a change the system made has no request; a project entry has no account), never null.
import type { listAuditLogs } from '../../projections/auditLogs/queries.js';

type AuditLogRow = Awaited<ReturnType<typeof listAuditLogs>>[number];

const iso = (value: Date | string): string => new Date(value).toISOString();
const some = <K extends string, V>(key: K, value: V | null | undefined): Partial<Record<K, V>> =>
  value === null || value === undefined ? {} : ({ [key]: value } as Record<K, V>);

export const toAuditLogDTO = (row: AuditLogRow) => ({
  id: row.id,
  created: iso(row.created),
  // When the request that made the change was received (the command's clock), as created.
  timestamp: iso(row.created),
  action: row.action,
  changes: row.changes,
  ...some('accountId', row.account_id),
  ...some('accountAlias', row.account_alias),
  projectId: row.project_id,
  projectName: row.project_name,
  ...some('apiKeyId', row.api_key_number === null ? null : Number(row.api_key_number)),
  ...some('apiKeyAlias', row.api_key_alias),
  apiKeyUuid: row.api_key_id,
  clientIp: row.client_ip,
  ...some('method', row.method),
  path: row.path,
  correlationId: row.correlation_id,
  ...(row.request_id === null
    ? {}
    : {
        requestId: row.request_id,
        endpoint: row.endpoint!,
        ...some('queryString', row.query_string),
        statusCode: row.status_code!,
        success: row.status_code! >= 200 && row.status_code! < 300,
        durationMs: Number(row.duration_ms),
        ...some('ipAddress', row.ip_address),
        ...some('userAgent', row.user_agent),
        serverHost: row.server_host!,
        requestHeaders: row.request_headers!,
        ...some('requestBody', row.request_body),
        requestBodySize: Number(row.request_body_size),
        ...some('responseBody', row.response_body),
        responseBodySize: Number(row.response_body_size),
        ...some('errorMessage', row.error_message),
      }),
});
