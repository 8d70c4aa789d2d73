// Accounts with what every account answer embeds (AccountDTO: the copier flags, and accountInformation's
// state): one statement, whatever the number of accounts, over the read models of accounts, copiers,
// positions, approvals, copies, account logs and templates. GET /accounts/{accountId} and the list of 1,000 each
// make one round trip for it (issue 16: the five queries one after the other cost half the throughput).
import { type Compilable, type Kysely, type SelectQueryBuilder, sql } from 'kysely';
import type { Selectable } from 'kysely';
import { AccountStatus } from '../../domain/account/enums.js';
import { APPROVAL } from '../../domain/copy/features/approval.js';
import { type AccountFilter, accountsQuery } from './queries.js';
import type { AccountsTable, ReadModels } from '../schema.js';
import { poolOf } from '../database.js';
import { keysWithLastUseAmongSql } from '../apiKeys/queries.js';

/** A pending approval as accountInformation.pendingApprovals shows it (read model columns). */
export interface PendingApprovalState {
  readonly id: string;
  readonly copier_id: string;
  readonly master_account_id: string;
  readonly master_position_id: string;
  readonly symbol: string;
  readonly volume: number;
  /** When it stops waiting (ISO text): the account's answer changes then without any write (api/accounts/answers.ts). */
  readonly expires_at: string;
}

/** What the read models know of an account's state beside its row. */
export interface AccountStateColumns {
  /** Its copiers as the slave: some active, some monitor-only, some deactivated. */
  readonly has_active_copiers: boolean;
  readonly has_monitor_only_copiers: boolean;
  readonly has_disabled_copiers: boolean;
  /** The last known book (the positions read model follows the venue). */
  readonly open_positions_count: number;
  readonly pending_orders_count: number;
  /** Another live account of the project has the same login (platform, server case-insensitive, login). */
  readonly duplicated: boolean;
  /** Approvals still waiting for a decision, oldest first. */
  readonly pending_approvals: readonly PendingApprovalState[];
  /** A copy open without its master position, or closed by the slave's venue while the master's is open. */
  readonly position_mismatch: boolean;
  /** The code of the last connection log line; null when there is none, or the account has a live session (not read). */
  readonly last_connection_code: string | null;
  /** The template the account follows (templates read model), or null. */
  readonly applied_template: AppliedTemplateState | null;
}

/** An account's template link with what its markers show (AccountDTO accountTemplate1, appliedTemplateRevision, appliedTemplateMeta). */
export interface AppliedTemplateState {
  readonly template_id: string;
  readonly applied_revision: number;
  /** JSON text of a timestamptz. */
  readonly applied_at: string;
  readonly template_name: string;
  readonly template_revision: number;
  /** Copiers of the template whose master no longer exists (deleted, or not in the project): active ones, inactive ones. */
  readonly gone_active: number;
  readonly gone_inactive: number;
}

export type AccountWithState = Selectable<AccountsTable> & AccountStateColumns;

type AccountsSelection = SelectQueryBuilder<ReadModels, 'accounts', Selectable<AccountsTable>>;

/**
 * A query of at most one row read in the same round trip (the caller's API key, api/auth.ts): its row
 * as JSON in the first account's `alongside` column (null in the others, undefined when no account is
 * selected, then the caller reads it itself).
 */
export type Alongside = Compilable;

/** The text of readModelsStamp: the same in the query builder's statements and in readStamps' prepared one. */
const STAMP_SQL = `(SELECT coalesce(string_agg(c.name || '=' || coalesce(c.position, ''), ',' ORDER BY c.name), '')
    FROM processor_checkpoints c WHERE c.name LIKE 'projection:%')
  || '|' || (SELECT coalesce(string_agg(r.name || '=' || r.generation, ',' ORDER BY r.name), '') FROM projection_registry r)`;

/**
 * What the read models are as of the statement that reads this: each read model's checkpoint and
 * generation. Rows of a read model change only in the runner's transactions that move its checkpoint
 * forward (projections/runner.ts), or in a rebuild's switch to a new generation, so while this text is
 * the same, so is every row of every read model (and with it every answer made from them). Coarse: any
 * event applied anywhere changes it (the runner also moves idle read models' checkpoints).
 */
export const readModelsStamp = sql<string>`${sql.raw(STAMP_SQL)}`;

/**
 * In one round trip, for several API keys at once (api/accounts/answers.ts gathers the checks of concurrent
 * requests): the stamp, and each key's row as every admission reads it (projections/apiKeys/queries.ts),
 * as JSON, by id. A named prepared statement where the pool is known (projections/database.ts poolOf):
 * parsed and planned once per connection; a rebuild's switch of the views makes PostgreSQL plan it again.
 */
let stampsSql: string | undefined;
const stampsSqlOf = (db: Kysely<ReadModels>): string =>
  (stampsSql ??= `SELECT ${STAMP_SQL} AS stamp,
  (SELECT coalesce(json_agg(to_json(x)), '[]'::json) FROM (${keysWithLastUseAmongSql(db)}) x) AS keys`);

export const readStamps = async (db: Kysely<ReadModels>, apiKeyIds: readonly string[]): Promise<{ stamp: string; keys: Map<string, unknown> }> => {
  const pool = poolOf(db);
  const ids = [...apiKeyIds];
  const text = stampsSqlOf(db);
  const rows = pool
    ? (await pool.query<{ stamp: string; keys: { id: string }[] }>({ name: 'read_models_stamp_with_keys', text, values: [ids] })).rows
    : (await sql<{ stamp: string; keys: { id: string }[] }>`${sql.raw(text.split('$1')[0]!)}${ids}${sql.raw(text.split('$1')[1]!)}`.execute(db)).rows;
  const { stamp, keys } = rows[0]!;
  return { stamp, keys: new Map(keys.map((k) => [k.id, k])) };
};

/**
 * The accounts `accounts` selects (in its order), each with its state. `connected`: the accounts with a
 * live session, whose last connection log is not read (a session means the last attempt succeeded).
 * Every part is looked up per account through an index, so the list of 1,000 costs 1,000 probes of each
 * kind in one statement and one account a handful.
 */
export const withState = async (
  db: Kysely<ReadModels>,
  projectId: string,
  accounts: AccountsSelection,
  now: Date,
  connected: readonly string[],
  alongside?: Alongside,
  stamped = false,
): Promise<(AccountWithState & { readonly alongside?: unknown; readonly stamp?: string })[]> => {
  const alongsideColumn = alongside
    ? sql`, CASE WHEN row_number() OVER (ORDER BY acc.created, acc.id) = 1 THEN (SELECT to_json(x) FROM (${alongside}) x) END AS alongside`
    : sql``;
  const stampColumn = stamped ? sql`, CASE WHEN row_number() OVER (ORDER BY acc.created, acc.id) = 1 THEN ${readModelsStamp} END AS stamp` : sql``;
  const result = await sql<AccountWithState & { readonly alongside?: unknown; readonly stamp?: string }>`
    WITH acc AS (${accounts}),
    logins AS (
      SELECT account_type_id, lower(login_server) AS server, login_account_number, count(*)::int AS n
      FROM accounts
      WHERE project_id = ${projectId} AND account_status_id <> ${AccountStatus.Deleted}
        AND login_account_number IN (SELECT login_account_number FROM acc)
      GROUP BY 1, 2, 3)
    SELECT acc.*,
      coalesce(f.active, false) AS has_active_copiers,
      coalesce(f.monitor_only, false) AS has_monitor_only_copiers,
      coalesce(f.disabled, false) AS has_disabled_copiers,
      b.positions AS open_positions_count,
      b.orders AS pending_orders_count,
      coalesce(l.n, 0) >= CASE WHEN acc.account_status_id = ${AccountStatus.Deleted} THEN 1 ELSE 2 END AS duplicated,
      (SELECT coalesce(json_agg(json_build_object(
                'id', ap.id, 'copier_id', ap.copier_id, 'master_account_id', ap.master_account_id,
                'master_position_id', ap.master_position_id, 'symbol', ap.symbol, 'volume', ap.volume, 'expires_at', ap.expires_at)
              ORDER BY ap.requested_at, ap.id), '[]')
         FROM approvals ap
        WHERE ap.slave_account_id = acc.id AND ap.decision IS NULL AND ap.outcome IS NULL AND ap.expires_at > ${now}
          AND EXISTS (SELECT 1 FROM positions p WHERE p.account_id = ap.master_account_id AND p.id = ap.master_position_id)
          AND EXISTS (SELECT 1 FROM features fe WHERE fe.type = ${APPROVAL}
                        AND ((fe.scope_kind = 'account' AND fe.account_id = ap.slave_account_id) OR (fe.scope_kind = 'copier' AND fe.copier_id = ap.copier_id)))
      ) AS pending_approvals,
      (EXISTS (SELECT 1 FROM copies c
                WHERE c.slave_account_id = acc.id AND c.status = 'open' AND c.master_position_id NOT LIKE 'feature:%'
                  AND NOT EXISTS (SELECT 1 FROM positions p WHERE p.account_id = c.master_account_id AND p.id = c.master_position_id))
       OR EXISTS (SELECT 1 FROM copies c
                WHERE c.slave_account_id = acc.id AND c.status = 'closed' AND c.closed_by = 'SLAVE_VENUE'
                  AND EXISTS (SELECT 1 FROM positions p WHERE p.account_id = c.master_account_id AND p.id = c.master_position_id))
      ) AS position_mismatch,
      CASE WHEN acc.id = ANY(${[...connected]}::uuid[]) THEN NULL ELSE
        (SELECT lg.code FROM account_logs lg WHERE lg.account_id = acc.id AND lg.category = 'CONNECTION'
          ORDER BY lg.time DESC, lg.position_commit DESC LIMIT 1)
      END AS last_connection_code,
      (SELECT json_build_object(
                'template_id', tl.template_id, 'applied_revision', tl.applied_revision, 'applied_at', tl.applied_at,
                'template_name', t.name, 'template_revision', t.revision,
                'gone_active', count(*) FILTER (WHERE gone.active), 'gone_inactive', count(*) FILTER (WHERE gone.active IS FALSE))
         FROM template_links tl
         JOIN templates t ON t.id = tl.template_id AND t.project_id = ${projectId}
         LEFT JOIN LATERAL (
           SELECT coalesce((c->'settings'->>'active')::boolean, false) AS active FROM jsonb_array_elements(t.payload->'copiers') c
            WHERE NOT EXISTS (SELECT 1 FROM accounts m WHERE m.project_id = t.project_id AND m.id = (c->>'fromAccountId')::uuid
                                AND m.account_status_id <> ${AccountStatus.Deleted})) gone ON true
        WHERE tl.account_id = acc.id
        GROUP BY tl.template_id, tl.applied_revision, tl.applied_at, t.name, t.revision
      ) AS applied_template
      ${alongsideColumn}
      ${stampColumn}
    FROM acc
    LEFT JOIN LATERAL (
      SELECT bool_or(c.active) AS active, bool_or(c.monitor_only) AS monitor_only, bool_or(NOT c.active) AS disabled
      FROM copiers c WHERE c.project_id = ${projectId} AND c.to_account_id = acc.id) f ON true
    LEFT JOIN LATERAL (
      SELECT count(*) FILTER (WHERE p.kind = 'position')::int AS positions, count(*) FILTER (WHERE p.kind <> 'position')::int AS orders
      FROM positions p WHERE p.account_id = acc.id) b ON true
    LEFT JOIN logins l
      ON l.account_type_id = acc.account_type_id AND l.server = lower(acc.login_server) AND l.login_account_number = acc.login_account_number
    ORDER BY acc.created, acc.id`.execute(db);
  return result.rows;
};

/** The project's accounts the filter selects (GET /accounts), each with its state. */
export const listAccountsWithState = (
  db: Kysely<ReadModels>,
  projectId: string,
  filter: AccountFilter,
  now: Date,
  connected: readonly string[],
  alongside?: Alongside,
  stamped = false,
) => withState(db, projectId, accountsQuery(db, projectId, filter), now, connected, alongside, stamped);

/** The project's accounts among `ids` (deleted ones too), each with its state. */
export const accountsAmongWithState = (
  db: Kysely<ReadModels>,
  projectId: string,
  ids: readonly string[],
  now: Date,
  connected: readonly string[],
  alongside?: Alongside,
  stamped = false,
) =>
  ids.length === 0
    ? Promise.resolve([])
    : withState(
        db,
        projectId,
        db
          .selectFrom('accounts')
          .selectAll()
          .where('project_id', '=', projectId)
          .where(sql<boolean>`id = ANY(${[...ids]}::uuid[])`),
        now,
        connected,
        alongside,
        stamped,
      );
