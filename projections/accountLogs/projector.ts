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

/** The log line an event becomes, or null. Exported for the specs. */
export const logLineOf = (event: PositionsEvent | CopyEvent): LogLine | null => {
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
  switch (event.type) {
    case 'PositionOpened':
      return line(
        event.data.accountId,
        LogType.Info,
        'TRADING',
        `Position #${event.data.position.positionId} opened: ${describePosition(event.data.position)}`,
        { positionId: event.data.position.positionId },
      );
    case 'PositionIncreased':
      return line(
        event.data.accountId,
        LogType.Info,
        'TRADING',
        `Position #${event.data.position.positionId} increased by ${lots(event.data.volume)} at ${event.data.price}: now ${describePosition(event.data.position)}`,
        { positionId: event.data.position.positionId },
      );
    case 'PositionModified':
      return line(
        event.data.accountId,
        LogType.Info,
        'TRADING',
        `Position #${event.data.position.positionId} modified: SL ${event.data.position.stopLoss ?? 'none'}, TP ${event.data.position.takeProfit ?? 'none'}`,
        { positionId: event.data.position.positionId },
      );
    case 'PositionPartiallyClosed': {
      const { trade, position } = event.data;
      return line(
        event.data.accountId,
        LogType.Info,
        'TRADING',
        `Position #${trade.positionId} partially closed: ${lots(trade.volume)} at ${trade.closePrice}, result ${money(net(trade))}; ${lots(position.volume)} remain open`,
        { positionId: trade.positionId },
      );
    }
    case 'PositionClosed': {
      const { trade } = event.data;
      const level = trade.reason === 'stopOut' ? LogType.Warning : LogType.Info;
      return line(
        event.data.accountId,
        level,
        'TRADING',
        `Position #${trade.positionId} ${REASONS[trade.reason]}: ${trade.orderType} ${lots(trade.volume)} ${trade.symbol} at ${trade.closePrice}, result ${money(net(trade))}`,
        { positionId: trade.positionId },
      );
    }
    case 'PendingOrderPlaced':
    case 'PendingOrderModified': {
      const o = event.data.order;
      const verb = event.type === 'PendingOrderPlaced' ? 'placed' : 'modified';
      return line(
        event.data.accountId,
        LogType.Info,
        'TRADING',
        `Pending order #${o.orderId} ${verb}: ${o.orderType} ${lots(o.volume)} ${o.symbol} at ${o.openPrice}${stops(o)}${o.expiry ? `, expires ${o.expiry}` : ''}`,
        { positionId: o.orderId },
      );
    }
    case 'PendingOrderFilled':
      return line(event.data.accountId, LogType.Info, 'TRADING', `Pending order #${event.data.order.orderId} filled at ${event.data.price}`, {
        positionId: event.data.order.orderId,
      });
    case 'PendingOrderCancelled': {
      const why = { manual: 'cancelled', expired: 'expired', notEnoughMoney: 'cancelled at its trigger: not enough free margin' }[event.data.reason];
      return line(
        event.data.accountId,
        event.data.reason === 'notEnoughMoney' ? LogType.Warning : LogType.Info,
        'TRADING',
        `Pending order #${event.data.order.orderId} ${why}`,
        { positionId: event.data.order.orderId },
      );
    }
    case 'BalanceChanged': {
      const { amount, comment } = event.data.operation;
      return line(
        event.data.accountId,
        LogType.Info,
        'BALANCE',
        `${amount >= 0 ? 'Deposit' : 'Withdrawal'} of ${money(Math.abs(amount))}${comment ? ` (${comment})` : ''}`,
      );
    }
    case 'VenueConnected':
      return line(event.data.accountId, LogType.Info, 'CONNECTION', `Connected to ${event.data.venue} as ${event.data.login}`);
    case 'VenueConnectionFailed':
      return line(event.data.accountId, LogType.Error, 'CONNECTION', `Connection to ${event.data.venue} as ${event.data.login} failed: ${event.data.message}`, {
        code: event.data.code,
      });
    case 'VenueDisconnected':
      return line(event.data.accountId, LogType.Info, 'CONNECTION', `Disconnected (${event.data.reason})`);
    case 'TradeRequested':
      return null;
    case 'TradeRequestRejected':
      return line(event.data.accountId, LogType.Error, 'TRADING', `Trading request rejected: ${event.data.message}`, { code: event.data.code });
    case 'CopyExecuted': {
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
    }
    case 'CopyFailed': {
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
    }
    case 'CopyDeferred': {
      const { copierId, slaveAccountId, masterPositionId, message, by } = event.data;
      return line(slaveAccountId, LogType.Info, 'COPY', message, { copierId, code: by, positionId: masterPositionId });
    }
    case 'TradeSkipped': {
      const { reason, message, copierId, slaveAccountId, masterPositionId } = event.data;
      const level = reason === 'MONITOR_ONLY' || reason === 'COPIER_INACTIVE' ? LogType.Info : LogType.Warning;
      return line(slaveAccountId, level, 'COPY', message, { copierId, code: reason, positionId: masterPositionId });
    }
    default:
      return null;
  }
};

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
