// Queries of GET /accounts/{accountId}/auditLogs and GET /projects/{projectId}/auditLogs (newest first):
// the change rows, each with the record of the API request that made it (requests.ts) and the key's
// integer id and name; and the recorded requests that made no change (refused with 4xx or 5xx, or a
// no-op), one row each, so a person auditing who tried what sees the refused writes too.
import { type Kysely, sql } from 'kysely';
import type { ReadModels } from '../schema.js';
import { requestsDb } from './requests.js';

export interface AuditLogFilter {
  readonly accountId?: string;
  readonly startDate?: string;
  readonly endDate?: string;
  readonly limit: number;
  readonly offset: number;
}

/** The action of a request that changed nothing: refused (status 400 or above), or accepted without a change. */
export const REQUEST_REFUSED = 'ApiRequestRefused';
export const REQUEST_WITHOUT_CHANGE = 'ApiRequestWithoutChange';

const REQUEST_COLUMNS = [
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
] as const;

export const listAuditLogs = (db: Kysely<ReadModels>, projectId: string, filter: AuditLogFilter) => {
  const rdb = requestsDb(db);
  let changes = rdb
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
      'l.position_commit',
      'l.position_prepare',
      'a.alias as account_alias',
      'p.name as project_name',
      'k.numeric_id as api_key_number',
      'k.name as api_key_alias',
      ...REQUEST_COLUMNS,
    ])
    .where('l.project_id', '=', projectId);
  // The requests no change row names: they changed nothing.
  let refused = rdb
    .selectFrom('api_requests as r')
    .leftJoin('accounts as a', 'a.id', 'r.account_id')
    .innerJoin('projects as p', 'p.id', 'r.project_id')
    .leftJoin('api_keys as k', 'k.id', 'r.api_key_id')
    .select([
      'r.request_id as id',
      'r.project_id',
      'r.account_id',
      sql<string>`CASE WHEN r.status_code >= 400 THEN ${REQUEST_REFUSED} ELSE ${REQUEST_WITHOUT_CHANGE} END`.as('action'),
      sql<unknown>`NULL::jsonb`.as('changes'),
      'r.api_key_id',
      'r.ip_address as client_ip',
      'r.method',
      sql<string | null>`regexp_replace(r.endpoint, '^/rest/api/v1', '')`.as('path'),
      sql<string | null>`NULL::text`.as('correlation_id'),
      'r.received_at as created',
      sql<string>`NULL::numeric`.as('position_commit'),
      sql<string>`NULL::bigint`.as('position_prepare'),
      'a.alias as account_alias',
      'p.name as project_name',
      'k.numeric_id as api_key_number',
      'k.name as api_key_alias',
      ...REQUEST_COLUMNS,
    ])
    .where('r.project_id', '=', projectId)
    .where(({ not, exists, selectFrom }) => not(exists(selectFrom('audit_logs as c').select('c.id').whereRef('c.request_id', '=', 'r.request_id'))));
  if (filter.accountId) {
    changes = changes.where('l.account_id', '=', filter.accountId);
    refused = refused.where('r.account_id', '=', filter.accountId);
  }
  if (filter.startDate) {
    changes = changes.where('l.created', '>=', new Date(filter.startDate));
    refused = refused.where('r.received_at', '>=', new Date(filter.startDate));
  }
  if (filter.endDate) {
    changes = changes.where('l.created', '<=', new Date(filter.endDate));
    refused = refused.where('r.received_at', '<=', new Date(filter.endDate));
  }
  // Newest first by time; the changes of one moment in the order of their events.
  return rdb
    .selectFrom(changes.unionAll(refused).as('u'))
    .selectAll()
    .orderBy('u.created', 'desc')
    .orderBy('u.position_commit', (ob) => ob.desc().nullsFirst())
    .orderBy('u.position_prepare', (ob) => ob.desc().nullsFirst())
    .limit(filter.limit)
    .offset(filter.offset)
    .execute();
};
