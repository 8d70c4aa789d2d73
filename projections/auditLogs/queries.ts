// Queries of GET /accounts/{accountId}/auditLogs and GET /projects/{projectId}/auditLogs (newest first).
import type { Kysely } from 'kysely';
import type { ReadModels } from '../schema.js';

export interface AuditLogFilter {
  readonly accountId?: string;
  readonly startDate?: string;
  readonly endDate?: string;
  readonly limit: number;
  readonly offset: number;
}

export const listAuditLogs = (db: Kysely<ReadModels>, projectId: string, filter: AuditLogFilter) => {
  let q = db
    .selectFrom('audit_logs as l')
    .leftJoin('accounts as a', 'a.id', 'l.account_id')
    .innerJoin('projects as p', 'p.id', 'l.project_id')
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
    ])
    .where('l.project_id', '=', projectId);
  if (filter.accountId) q = q.where('l.account_id', '=', filter.accountId);
  if (filter.startDate) q = q.where('l.created', '>=', new Date(filter.startDate));
  if (filter.endDate) q = q.where('l.created', '<=', new Date(filter.endDate));
  return q.orderBy('l.position_commit', 'desc').orderBy('l.position_prepare', 'desc').limit(filter.limit).offset(filter.offset).execute();
};
