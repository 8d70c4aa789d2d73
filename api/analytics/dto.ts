// DataCollectorRecordDTO from the data_collector_samples read model. PerformanceMetricsDTO is what
// domain/analytics/metrics.ts computes, as it is.
import { type CollectorValues, normalized, sampleId } from '../../domain/analytics/dataCollector.js';
import type { Static } from '@sinclair/typebox';
import type { lastSamplesOf } from '../../projections/dataCollector/queries.js';
import type { closedTradesBetween } from '../../projections/history/queries.js';
import type { ClosedTrade } from '../../app/trading/session.js';
import type { PositionDTO } from '../trading/schemas.js';
import { historyView } from '../trading/views.js';

type SampleRow = Awaited<ReturnType<typeof lastSamplesOf>>[number];

/** The values a sample recorded (recordBalance, recordEquity, recordFloatingPnL), and our margin. */
export const recordedValues = (row: SampleRow): CollectorValues => ({
  ...(row.record_balance ? { balance: row.balance } : {}),
  ...(row.record_equity ? { equity: row.equity } : {}),
  ...(row.record_floating_pnl ? { floatingPnL: row.floating_pnl } : {}),
  margin: row.margin,
});

/** DataCollectorRecordDTO: the members the sample recorded, times `factor` (normalizeValues; 1: as recorded). */
export const toDataCollectorRecordDTO = (row: SampleRow, factor = 1) => {
  const time = new Date(row.time);
  return {
    id: sampleId(row.account_id, time.toISOString()),
    accountId: row.account_id,
    timestamp: time.getTime(),
    ...normalized(recordedValues(row), factor),
  };
};

type ClosedTradeRow = Awaited<ReturnType<typeof closedTradesBetween>>[number];

/**
 * A closed volume of the history read model as a PositionDTO (AccountPerformanceDTO.history), mapped as
 * GET .../history/positions maps the broker's (historyView): the position's stop loss and take profit
 * at the close (0 = none), its comment, magic number and client order id.
 */
export const toHistoryPositionDTO = (row: ClosedTradeRow): Static<typeof PositionDTO> =>
  historyView({
    kind: 'trade',
    id: row.trade_id,
    positionId: row.position_id,
    symbol: row.symbol,
    orderType: row.side === 'Sell' ? 'sell' : 'buy',
    volume: row.volume,
    openPrice: row.open_price,
    openTime: new Date(row.open_time).toISOString(),
    closePrice: row.close_price,
    closeTime: new Date(row.close_time).toISOString(),
    profit: row.profit,
    swap: row.swap,
    commission: row.commission,
    reason: row.reason as ClosedTrade['reason'],
    stopLoss: row.stop_loss,
    takeProfit: row.take_profit,
    comment: row.comment,
    magicNumber: row.magic_number === null ? null : Number(row.magic_number),
    clientOrderId: row.client_order_id,
  });
