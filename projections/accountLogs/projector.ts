// The account logs (LogDTO): what happened on an account, in words, at three levels (spec:
// logTypeId 1 = Error, 2 = Warning, 3 = Info), each entry with the integer id of the event that made it
// (its global position in `$all`: unique, and the same after a rebuild) and whether the customer
// acknowledged it (domain/accountLog). Venue facts and connection changes go to the account
// they happened on; what the engine did for a copier, and every trade it did not copy with the
// reason, goes to the copier's slave account.
import { type Insertable, type Kysely, sql } from 'kysely';
import { describeAction } from '../../domain/copy/decision.js';
import { copyEventTypes, type CopyEvent, retryWindowInWords } from '../../domain/copy/events.js';
import { type ClosedTradeData, type PositionData, positionsEventTypes, type PositionsEvent } from '../../domain/positions/events.js';
import type { RecordedEvent } from '../../store/port.js';
import { type Projection, type RebuildFold, statementChunks, unnestArrays, unnestColumns } from '../projection.js';
import type { AccountLogsTable, ReadModels } from '../schema.js';
import { accountFeatureLogEventTypes, accountFeatureLogLineOf } from './accountFeatures.js';
import { type LogCategory, type LogLine, LogType, type LogTypeId } from './logLine.js';
import { protectionEventTypes, type ProtectionEvent } from '../../domain/protection/events.js';
import { protectionLogLine } from '../protections/logLines.js';
import type { AccountEvent } from '../../domain/account/events.js';
import { accountLogEventTypes, type AccountLogEvent } from '../../domain/accountLog/events.js';
import { customerLogEventTypes, customerLogLine } from '../customers/logLines.js';

const stops = (p: { stopLoss: number | null; takeProfit: number | null }): string =>
  `${p.stopLoss === null ? '' : `, SL ${p.stopLoss}`}${p.takeProfit === null ? '' : `, TP ${p.takeProfit}`}`;
const lots = (volume: number): string => `${volume} ${volume === 1 ? 'lot' : 'lots'}`;
const money = (amount: number): string => amount.toFixed(2);
const REASONS: Record<ClosedTradeData['reason'], string> = {
  manual: 'closed',
  stopLoss: 'stop loss hit',
  takeProfit: 'take profit hit',
  stopOut: 'stopped out',
};
const describePosition = (p: PositionData): string => `${p.orderType} ${lots(p.volume)} ${p.symbol} at ${p.openPrice}${stops(p)}`;
const net = (t: ClosedTradeData): number => t.profit + t.swap + t.commission;

const line = (accountId: string, logTypeId: LogTypeId, category: LogCategory, message: string, extra: Partial<LogLine> = {}): LogLine => ({
  accountId,
  logTypeId,
  category,
  message,
  code: null,
  copierId: null,
  positionId: null,
  ...extra,
});

type LoggedEvent = PositionsEvent | CopyEvent;
type Of<T extends LoggedEvent['type']> = Extract<LoggedEvent, { type: T }>;

const pendingOrderPlacedOrModified = (event: Of<'PendingOrderPlaced' | 'PendingOrderModified'>): LogLine => {
  const o = event.data.order;
  const verb = event.type === 'PendingOrderPlaced' ? 'placed' : 'modified';
  return line(
    event.data.accountId,
    LogType.Info,
    'TRADING',
    `Pending order #${o.orderId} ${verb}: ${o.orderType} ${lots(o.volume)} ${o.symbol} at ${o.openPrice}${stops(o)}${o.expiry ? `, expires ${o.expiry}` : ''}`,
    { positionId: o.orderId },
  );
};

const copyExecuted = (event: Of<'CopyExecuted'>): LogLine => {
  const { action, copierId, slaveAccountId, masterAccountId, note, result } = event.data;
  // A feature's own trade (a keep-alive trade) is no copy: its note says what it is.
  const outcome =
    result.type === 'opened'
      ? ` opened as #${result.slavePositionId} at ${result.price}`
      : result.type === 'closed'
        ? ` closed at ${result.closePrice}, result ${money(result.result)}`
        : ` ${result.type}`;
  return line(
    slaveAccountId,
    LogType.Info,
    'COPY',
    note ? `${note}${outcome}` : `Copied from master ${masterAccountId} (position #${action.masterPositionId}): ${describeAction(action)}`,
    {
      copierId,
      positionId:
        action.type === 'open' && event.data.result.type === 'opened'
          ? event.data.result.slavePositionId
          : 'slavePositionId' in action
            ? action.slavePositionId
            : null,
    },
  );
};

const copyFailed = (event: Of<'CopyFailed'>): LogLine => {
  const { action, copierId, slaveAccountId, code, message, retryUntil, note } = event.data;
  if (note)
    return line(slaveAccountId, LogType.Error, 'COPY', `${note} refused by the slave's broker (${describeAction(action)}): ${message}`, { copierId, code });
  return line(
    slaveAccountId,
    LogType.Error,
    'COPY',
    `Copy of master position #${action.masterPositionId} refused by the slave's broker (${describeAction(action)}): ${message}${retryUntil ? `; retrying every 30 seconds ${retryWindowInWords(retryUntil)}` : ''}`,
    { copierId, code },
  );
};

/** Per event type, the log line it becomes, or null. */
const LINES: { readonly [T in LoggedEvent['type']]: (event: Of<T>) => LogLine | null } = {
  PositionOpened: ({ data }) =>
    line(data.accountId, LogType.Info, 'TRADING', `Position #${data.position.positionId} opened: ${describePosition(data.position)}`, {
      positionId: data.position.positionId,
    }),
  PositionIncreased: ({ data }) =>
    line(
      data.accountId,
      LogType.Info,
      'TRADING',
      `Position #${data.position.positionId} increased by ${lots(data.volume)} at ${data.price}: now ${describePosition(data.position)}`,
      { positionId: data.position.positionId },
    ),
  PositionModified: ({ data }) =>
    line(
      data.accountId,
      LogType.Info,
      'TRADING',
      `Position #${data.position.positionId} modified: SL ${data.position.stopLoss ?? 'none'}, TP ${data.position.takeProfit ?? 'none'}`,
      { positionId: data.position.positionId },
    ),
  PositionPartiallyClosed: ({ data: { accountId, trade, position } }) =>
    line(
      accountId,
      LogType.Info,
      'TRADING',
      `Position #${trade.positionId} partially closed: ${lots(trade.volume)} at ${trade.closePrice}, result ${money(net(trade))}; ${lots(position.volume)} remain open`,
      { positionId: trade.positionId },
    ),
  PositionClosed: ({ data: { accountId, trade } }) =>
    line(
      accountId,
      trade.reason === 'stopOut' ? LogType.Warning : LogType.Info,
      'TRADING',
      `Position #${trade.positionId} ${REASONS[trade.reason]}: ${trade.orderType} ${lots(trade.volume)} ${trade.symbol} at ${trade.closePrice}, result ${money(net(trade))}`,
      { positionId: trade.positionId },
    ),
  PositionGoneWithoutTrade: ({ data }) =>
    line(
      data.accountId,
      LogType.Warning,
      'TRADING',
      `Position #${data.positionId} is gone at the venue without a closing trade in its history: ${data.orderType} ${lots(data.volume)} ${data.symbol} at ${data.openPrice}; its close and result are unknown`,
      { positionId: data.positionId },
    ),
  PendingOrderPlaced: pendingOrderPlacedOrModified,
  PendingOrderModified: pendingOrderPlacedOrModified,
  PendingOrderFilled: ({ data }) =>
    line(data.accountId, LogType.Info, 'TRADING', `Pending order #${data.order.orderId} filled at ${data.price}`, { positionId: data.order.orderId }),
  PendingOrderCancelled: ({ data }) => {
    const why = { manual: 'cancelled', expired: 'expired', notEnoughMoney: 'cancelled at its trigger: not enough free margin' }[data.reason];
    return line(data.accountId, data.reason === 'notEnoughMoney' ? LogType.Warning : LogType.Info, 'TRADING', `Pending order #${data.order.orderId} ${why}`, {
      positionId: data.order.orderId,
    });
  },
  BalanceChanged: ({ data }) => {
    const { amount, comment } = data.operation;
    return line(
      data.accountId,
      LogType.Info,
      'BALANCE',
      `${amount >= 0 ? 'Deposit' : 'Withdrawal'} of ${money(Math.abs(amount))}${comment ? ` (${comment})` : ''}`,
    );
  },
  VenueConnected: ({ data }) => line(data.accountId, LogType.Info, 'CONNECTION', `Connected to ${data.venue} as ${data.login}`),
  VenueConnectionFailed: ({ data }) =>
    line(data.accountId, LogType.Error, 'CONNECTION', `Connection to ${data.venue} as ${data.login} failed: ${data.message}`, { code: data.code }),
  VenueDisconnected: ({ data }) => line(data.accountId, LogType.Info, 'CONNECTION', `Disconnected (${data.reason})`),
  TradeRequested: () => null,
  TradeRequestRejected: ({ data }) => line(data.accountId, LogType.Error, 'TRADING', `Trading request rejected: ${data.message}`, { code: data.code }),
  CopyExecuted: copyExecuted,
  CopyFailed: copyFailed,
  CopyDeferred: ({ data: { copierId, slaveAccountId, masterPositionId, message, by } }) =>
    line(slaveAccountId, LogType.Info, 'COPY', message, { copierId, code: by, positionId: masterPositionId }),
  TradeSkipped: ({ data: { reason, message, copierId, slaveAccountId, masterPositionId } }) => {
    // What the copier is set to do (monitor-only, inactive, skipPendingOrders) is information, not a warning.
    const level = reason === 'MONITOR_ONLY' || reason === 'COPIER_INACTIVE' || reason === 'PENDING_ORDER_SKIPPED' ? LogType.Info : LogType.Warning;
    return line(slaveAccountId, level, 'COPY', message, { copierId, code: reason, positionId: masterPositionId });
  },
};

/** The log line an event becomes, or null. Exported for the specs. */
export const logLineOf = (event: LoggedEvent): LogLine | null =>
  Object.hasOwn(LINES, event.type) ? (LINES[event.type] as (event: LoggedEvent) => LogLine | null)(event) : null;

type LineMaker = (recorded: RecordedEvent) => LogLine | null;

/**
 * Per event type, the log line maker of the projectors that make lines (customers first, then account
 * features, protections, positions and copies): one lookup per event instead of a search of each list.
 */
const LINE_MAKERS: ReadonlyMap<string, LineMaker> = new Map<string, LineMaker>([
  ...Object.entries(LINES).map(([type, lineOf]): [string, LineMaker] => [type, lineOf as LineMaker]),
  ...protectionEventTypes.map((type): [string, LineMaker] => [type, (recorded) => protectionLogLine(recorded as unknown as ProtectionEvent)]),
  ...accountFeatureLogEventTypes.map((type): [string, LineMaker] => [
    type,
    (recorded) => accountFeatureLogLineOf(recorded as unknown as Parameters<typeof accountFeatureLogLineOf>[0]),
  ]),
  ...customerLogEventTypes.map((type): [string, LineMaker] => [
    type,
    (recorded) => customerLogLine(recorded as unknown as Parameters<typeof customerLogLine>[0]),
  ]),
]);

const logLineOfRecorded = (recorded: RecordedEvent): LogLine | null => LINE_MAKERS.get(recorded.type)?.(recorded) ?? null;

interface PendingLine {
  readonly recorded: RecordedEvent;
  readonly log: LogLine;
}

/** The projects of `accountIds`, from the read model's own map. */
const projectsOf = async (db: Kysely<ReadModels>, accountIds: readonly string[]): Promise<Map<string, string>> => {
  const found = new Map<string, string>();
  for (const chunk of statementChunks(accountIds)) {
    const rows = await db.selectFrom('account_log_accounts').select(['account_id', 'project_id']).where('account_id', 'in', chunk).execute();
    for (const row of rows) found.set(row.account_id, row.project_id);
  }
  return found;
};

/** What applyEvents knows beyond the table: a rebuild's fold keeps it from one batch to the next. */
interface Known {
  /** Account to project, of the accounts seen so far. */
  readonly projects: Map<string, string>;
  /** `projects` holds every account the table does (a rebuild's fold saw every AccountCreated): nothing to look up. */
  readonly complete: boolean;
  /** The table has no primary key now (a rebuild's fold): plain INSERTs, duplicates removed when the key is made. */
  readonly keyless: boolean;
}

/** One multi-row INSERT per thousand lines: a batch of events costs a round trip, not one per event. */
const insertLogRows = async (db: Kysely<ReadModels>, lines: readonly PendingLine[], { projects: known, complete, keyless }: Known): Promise<void> => {
  const unknown = complete ? [] : [...new Set(lines.map((l) => l.log.accountId).filter((id) => !known.has(id)))];
  if (unknown.length) for (const [account, project] of await projectsOf(db, unknown)) known.set(account, project);
  for (const chunk of statementChunks(lines)) {
    // Column by column (unnestArrays), without a row object per line.
    const columns: Record<Exclude<keyof Insertable<AccountLogsTable>, 'acknowledged'>, unknown[]> = {
      id: [],
      account_id: [],
      project_id: [],
      position_commit: [],
      position_prepare: [],
      time: [],
      log_type_id: [],
      category: [],
      message: [],
      code: [],
      copier_id: [],
      position_id: [],
    };
    for (const { recorded, log } of chunk) {
      columns.id.push(recorded.id);
      columns.account_id.push(log.accountId);
      columns.project_id.push(known.get(log.accountId) ?? null);
      columns.position_commit.push(recorded.position.commit);
      columns.position_prepare.push(recorded.position.prepare);
      columns.time.push(recorded.created);
      columns.log_type_id.push(log.logTypeId);
      columns.category.push(log.category);
      columns.message.push(log.message);
      columns.code.push(log.code);
      columns.copier_id.push(log.copierId);
      columns.position_id.push(log.positionId);
    }
    const insert = db.insertInto('account_logs').columns(unnestColumns(LOG_COLUMNS)).expression(unnestArrays(columns, LOG_COLUMNS));
    await (keyless ? insert : insert.onConflict((oc) => oc.column('id').doNothing())).execute();
  }
};

const LOG_COLUMNS: { readonly [K in keyof Insertable<AccountLogsTable>]?: string } = {
  id: 'uuid',
  account_id: 'uuid',
  project_id: 'uuid',
  position_commit: 'numeric',
  position_prepare: 'bigint',
  time: 'timestamptz',
  log_type_id: 'int',
  category: 'text',
  message: 'text',
  code: 'text',
  copier_id: 'uuid',
  position_id: 'text',
};

/** An acknowledgement: the entries it names (of its project only), or every entry of the project so far. */
const acknowledge = async (db: Kysely<ReadModels>, event: AccountLogEvent): Promise<void> => {
  let q = db.updateTable('account_logs').set({ acknowledged: true }).where('project_id', '=', event.data.projectId).where('acknowledged', '=', false);
  if (event.type === 'LogsAcknowledged') {
    if (event.data.logIds.length === 0) return;
    q = q.where(
      'position_prepare',
      'in',
      event.data.logIds.map((id) => String(id)),
    );
  }
  await q.execute();
};

/**
 * The events of a batch in order: log lines are gathered and written together; an account's creation
 * enters the account-to-project map; an acknowledgement first writes the lines before it, so it covers
 * exactly the entries that precede it in `$all` (a rebuild acknowledges the same ones).
 */
const applyEvents = async (
  db: Kysely<ReadModels>,
  events: readonly RecordedEvent[],
  known: Known = { projects: new Map(), complete: false, keyless: false },
): Promise<void> => {
  let pending: PendingLine[] = [];
  const flush = async (): Promise<void> => {
    if (pending.length) await insertLogRows(db, pending, known);
    pending = [];
  };
  for (const recorded of events) {
    if (recorded.type === 'AccountCreated') {
      const { accountId, projectId } = (recorded as unknown as Extract<AccountEvent, { type: 'AccountCreated' }>).data;
      // The first creation of an account wins, in the map as in the table (DO NOTHING).
      if (!known.complete || !known.projects.has(accountId)) known.projects.set(accountId, projectId);
      await db
        .insertInto('account_log_accounts')
        .values({ account_id: accountId, project_id: projectId })
        .onConflict((oc) => oc.column('account_id').doNothing())
        .execute();
      continue;
    }
    if ((accountLogEventTypes as readonly string[]).includes(recorded.type)) {
      await flush();
      await acknowledge(db, recorded as unknown as AccountLogEvent);
      continue;
    }
    const log = logLineOfRecorded(recorded);
    if (log) pending.push({ recorded, log });
  }
  await flush();
};

const PRIMARY_KEY = 'account_logs_pkey';

/**
 * The account logs for a rebuild (Projection.rebuildFold): the table's primary key (a random uuid, the
 * costliest part of each INSERT) is dropped while the history is written with plain INSERTs, and made
 * again in one pass at the end. ON CONFLICT DO NOTHING kept the first line of an id in `$all`; so
 * does finish, should two events of the history share an id. The account-to-project map is kept from
 * one batch to the next: nothing is looked up. Acknowledgements apply as they come (their index stays).
 */
export const accountLogsRebuildFold = (): RebuildFold => {
  const known: Known = { projects: new Map(), complete: true, keyless: true };
  let dropped = false;
  return {
    async apply(db, events) {
      if (!dropped) {
        await db.schema.alterTable('account_logs').dropConstraint(PRIMARY_KEY).execute();
        dropped = true;
      }
      await applyEvents(db, events, known);
    },
    async finish(db) {
      if (!dropped) return;
      await (db.isTransaction ? makeKey(db) : db.transaction().execute(makeKey));
    },
  };
};

/** The primary key made again; should two lines share an id, the later in `$all` goes first. */
const makeKey = async (db: Kysely<ReadModels>): Promise<void> => {
  const addKey = () => db.schema.alterTable('account_logs').addPrimaryKeyConstraint(PRIMARY_KEY, ['id']).execute();
  await sql`SAVEPOINT account_logs_key`.execute(db);
  try {
    await addKey();
    await sql`RELEASE SAVEPOINT account_logs_key`.execute(db);
  } catch (error) {
    if ((error as { code?: string }).code !== '23505') throw error;
    // ON CONFLICT DO NOTHING would have left the later line out.
    await sql`ROLLBACK TO SAVEPOINT account_logs_key`.execute(db);
    await db
      .deleteFrom('account_logs as later')
      .using('account_logs as first')
      .whereRef('later.id', '=', 'first.id')
      .where(
        sql<boolean>`(${sql.ref('later.position_commit')}, ${sql.ref('later.position_prepare')}) > (${sql.ref('first.position_commit')}, ${sql.ref('first.position_prepare')})`,
      )
      .execute();
    await addKey();
  }
};

export const accountLogsProjection: Projection = {
  name: 'account_logs',
  // 2: integer ids (the event's global position), the project of each entry, acknowledgements.
  version: 2,
  handles: [
    ...positionsEventTypes,
    ...copyEventTypes,
    ...accountFeatureLogEventTypes,
    ...protectionEventTypes,
    'AccountCreated',
    ...accountLogEventTypes,
    ...customerLogEventTypes,
  ],
  tables: ['account_logs', 'account_log_accounts'],
  async createTables(db, schema) {
    await sql`CREATE TABLE ${sql.id(schema, 'account_logs')} (
      id uuid PRIMARY KEY,
      account_id uuid NOT NULL,
      project_id uuid,
      position_commit numeric(20) NOT NULL,
      position_prepare bigint NOT NULL,
      time timestamptz NOT NULL,
      log_type_id int NOT NULL,
      category text NOT NULL,
      message text NOT NULL,
      code text,
      copier_id uuid,
      position_id text,
      acknowledged boolean NOT NULL DEFAULT false)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'account_logs')} (project_id, position_prepare)`.execute(db);
    await sql`CREATE TABLE ${sql.id(schema, 'account_log_accounts')} (
      account_id uuid PRIMARY KEY,
      project_id uuid NOT NULL)`.execute(db);
  },
  async createIndexes(db, schema) {
    await sql`CREATE INDEX ON ${sql.id(schema, 'account_logs')} (account_id, time DESC, position_commit DESC, position_prepare DESC)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'account_logs')} (project_id, time DESC, position_commit DESC, position_prepare DESC)`.execute(db);
  },
  async apply(db, recorded) {
    await applyEvents(db, [recorded]);
  },
  async applyBatch(db, events) {
    await applyEvents(db, events);
  },
  rebuildFold: accountLogsRebuildFold,
};
