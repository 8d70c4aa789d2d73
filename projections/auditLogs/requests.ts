// The request view of the audit log (the reference's AuditLogDTO members endpoint, statusCode, success,
// durationMs, bodies and headers...): one row per API request that may change something, written by
// the HTTP layer (api/auditLogs/requestRecorder.ts) off the request path. It is a record, not a read
// model: it is not rebuilt from events (a request is no event); the audit log joins it to the change
// rows by the request id that every event's metadata carries. Secrets are masked before they get here.
import type { Kysely } from 'kysely';
import type { ReadModels } from '../schema.js';
import { statementChunks } from '../projection.js';

export interface ApiRequestRow {
  request_id: string;
  project_id: string;
  account_id: string | null;
  api_key_id: string | null;
  method: string;
  endpoint: string;
  query_string: string | null;
  status_code: number;
  duration_ms: number;
  ip_address: string | null;
  user_agent: string | null;
  server_host: string;
  request_headers: string;
  request_body: string | null;
  request_body_size: number;
  response_body: string | null;
  response_body_size: number;
  error_message: string | null;
  received_at: Date;
}

export type RequestTables = { api_requests: ApiRequestRow };

export const requestsDb = (db: Kysely<ReadModels>) => db.withTables<RequestTables>();

/** Writes recorded requests, one statement per thousand; a request recorded twice is kept once. */
export const insertApiRequests = async (db: Kysely<ReadModels>, rows: readonly ApiRequestRow[]): Promise<void> => {
  for (const chunk of statementChunks(rows)) {
    await requestsDb(db)
      .insertInto('api_requests')
      .values(chunk)
      .onConflict((oc) => oc.column('request_id').doNothing())
      .execute();
  }
};

/**
 * Deletes the request records received before `before`, in batches of `batch` (short statements: the
 * recorder's inserts never wait long); answers how many went. The changes they made stay in the audit
 * log, without their request members.
 */
export const pruneApiRequests = async (db: Kysely<ReadModels>, before: Date, batch = 5000): Promise<number> => {
  let total = 0;
  for (;;) {
    const rdb = requestsDb(db);
    const result = await rdb
      .deleteFrom('api_requests')
      .where('request_id', 'in', rdb.selectFrom('api_requests').select('request_id').where('received_at', '<', before).limit(batch))
      .executeTakeFirst();
    const deleted = Number(result.numDeletedRows);
    total += deleted;
    if (deleted < batch) return total;
  }
};
