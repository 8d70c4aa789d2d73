// The account logs (LogDTO): what happened on an account, in words, at three levels (spec:
// logTypeId 1 = Error, 2 = Warning, 3 = Info). Venue facts and connection changes go to the account
// they happened on; what the engine did for a copier, and every trade it did not copy with the
// reason, goes to the copier's slave account.
import { type Insertable, type Kysely, sql } from 'kysely';
import { describeAction } from '../../domain/copy/decision.js';
import { copyEventTypes, type CopyEvent } from '../../domain/copy/events.js';
import { type ClosedTradeData, type PositionData, positionsEventTypes, type PositionsEvent } from '../../domain/positions/events.js';
import type { RecordedEvent } from '../../store/port.js';
import { type Projection, statementChunks } from '../projection.js';
import type { AccountLogsTable, ReadModels } from '../schema.js';
import { accountFeatureLogEventTypes, accountFeatureLogLineOf } from './accountFeatures.js';
import { type LogCategory, type LogLine, LogType, type LogTypeId } from './logLine.js';
import { protectionEventTypes, type ProtectionEvent } from '../../domain/protection/events.js';
import { protectionLogLine } from '../protections/logLines.js';

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
    `Copy of master position #${action.masterPositionId} refused by the slave's broker (${describeAction(action)}): ${message}${retryUntil ? `; retrying every 30 seconds until ${retryUntil}` : ''}`,
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
    const level = reason === 'MONITOR_ONLY' || reason === 'COPIER_INACTIVE' ? LogType.Info : LogType.Warning;
    return line(slaveAccountId, level, 'COPY', message, { copierId, code: reason, positionId: masterPositionId });
  },
};

/** The log line an event becomes, or null. Exported for the specs. */
export const logLineOf = (event: LoggedEvent): LogLine | null =>
  Object.hasOwn(LINES, event.type) ? (LINES[event.type] as (event: LoggedEvent) => LogLine | null)(event) : null;

const logLineOfRecorded = (recorded: RecordedEvent): LogLine | null =>
  accountFeatureLogEventTypes.includes(recorded.type)
    ? accountFeatureLogLineOf(recorded as unknown as Parameters<typeof accountFeatureLogLineOf>[0])
    : (protectionEventTypes as readonly string[]).includes(recorded.type)
      ? protectionLogLine(recorded as unknown as ProtectionEvent)
      : logLineOf(recorded as unknown as PositionsEvent | CopyEvent);

/** One multi-row INSERT per thousand lines: a batch of events costs a round trip, not one per event. */
const insertLogRows = async (db: Kysely<ReadModels>, events: readonly RecordedEvent[]): Promise<void> => {
  const rows: Insertable<AccountLogsTable>[] = [];
  for (const recorded of events) {
    const log = logLineOfRecorded(recorded);
    if (!log) continue;
    rows.push({
      id: recorded.id,
      account_id: log.accountId,
      position_commit: recorded.position.commit.toString(),
      position_prepare: recorded.position.prepare.toString(),
      time: recorded.created,
      log_type_id: log.logTypeId,
      category: log.category,
      message: log.message,
      code: log.code,
      copier_id: log.copierId,
      position_id: log.positionId,
    });
  }
  for (const chunk of statementChunks(rows)) {
    await db
      .insertInto('account_logs')
      .values(chunk)
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
  }
};

export const accountLogsProjection: Projection = {
  name: 'account_logs',
  version: 1,
  handles: [...positionsEventTypes, ...copyEventTypes, ...accountFeatureLogEventTypes, ...protectionEventTypes],
  tables: ['account_logs'],
  async createTables(db, schema) {
    await sql`CREATE TABLE ${sql.id(schema, 'account_logs')} (
      id uuid PRIMARY KEY,
      account_id uuid NOT NULL,
      position_commit numeric(20) NOT NULL,
      position_prepare bigint NOT NULL,
      time timestamptz NOT NULL,
      log_type_id int NOT NULL,
      category text NOT NULL,
      message text NOT NULL,
      code text,
      copier_id uuid,
      position_id text)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'account_logs')} (account_id, time DESC, position_commit DESC, position_prepare DESC)`.execute(db);
  },
  async apply(db, recorded) {
    await insertLogRows(db, [recorded]);
  },
  async applyBatch(db, events) {
    await insertLogRows(db, events);
  },
};
