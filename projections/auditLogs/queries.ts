// Queries of GET /accounts/{accountId}/auditLogs and GET /projects/{projectId}/auditLogs (newest first):
// the change rows, each with the record of the API request that made it (requests.ts) and the key's
// integer id and name.
import type { Kysely } from 'kysely';
import type { ReadModels } from '../schema.js';
import { requestsDb } from './requests.js';

export interface AuditLogFilter {
  readonly accountId?: string;
  readonly startDate?: string;
  readonly endDate?: string;
  readonly limit: number;
  readonly offset: number;
}

export const listAuditLogs = (db: Kysely<ReadModels>, projectId: string, filter: AuditLogFilter) => {
  let q = requestsDb(db)
    .selectFrom('audit_logs as l')
    .leftJoin('accounts as a', 'a.id', 'l.account_id')
    .innerJoin('projects as p', 'p.id', 'l.project_id')
    .leftJoin('api_keys as k', 'k.id', 'l.api_key_id')
    .leftJoin('api_requests as r', 'r.request_id', 'l.request_id')
    .select([
      'l.id',
      'l.project_id',
      'l.account_id',
      'l.action',
      'l.changes',
      'l.api_key_id',
      'l.client_ip',
      'l.method',
      'l.path',
      'l.correlation_id',
      'l.created',
      'a.alias as account_alias',
      'p.name as project_name',
      'k.numeric_id as api_key_number',
      'k.name as api_key_alias',
      'r.request_id',
      'r.endpoint',
      'r.query_string',
      'r.status_code',
      'r.duration_ms',
      'r.ip_address',
      'r.user_agent',
      'r.server_host',
      'r.request_headers',
      'r.request_body',
      'r.request_body_size',
      'r.response_body',
      'r.response_body_size',
      'r.error_message',
      'r.received_at',
    ])
    .where('l.project_id', '=', projectId);
  if (filter.accountId) q = q.where('l.account_id', '=', filter.accountId);
  if (filter.startDate) q = q.where('l.created', '>=', new Date(filter.startDate));
  if (filter.endDate) q = q.where('l.created', '<=', new Date(filter.endDate));
  return q.orderBy('l.position_commit', 'desc').orderBy('l.position_prepare', 'desc').limit(filter.limit).offset(filter.offset).execute();
};
