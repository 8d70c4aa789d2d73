// The Trading API's DTOs from the venue's views (app/trading/session.ts): PositionDTO for open
// positions, pending orders and history, SymbolDTO and SymbolInfoDTO. The reference's shapes: 0 for a
// missing stop loss or take profit, strings for the comment and the magic number ("" and "0" = none).
import type { Static } from '@sinclair/typebox';
import type { ClosedTrade, OrderType, SymbolInfo, VenuePosition } from '../../app/trading/session.js';
import { apiRequestIdOf } from '../../domain/positions/apiComment.js';
import { specOrderType } from '../../app/trading/session.js';
import type { openPositionsOf } from '../../projections/positions/queries.js';
import type { PositionDTO, SymbolDTO, SymbolInfoDTO } from './schemas.js';

type PositionView = Static<typeof PositionDTO>;

const dealTypeOf = (type: OrderType): PositionView['dealType'] => (type === 'buy' || type === 'buyLimit' || type === 'buyStop' ? 'DealBuy' : 'DealSell');

const placedTypeOf = (clientOrderId: string | null): PositionView['placedType'] => (clientOrderId === null ? 'Manually' : 'ByExpert');

const CLOSED_BY: Readonly<Record<ClosedTrade['reason'], PositionView['placedType'] | null>> = {
  manual: null,
  stopLoss: 'OnSL',
  takeProfit: 'OnTP',
  stopOut: 'OnStopOut',
};

/**
 * The broker's comment as it is (with the `API|<requestId>|` prefix of a position opened through
 * POST .../positions), the requestId that prefix names ("" without one), and ours: the client order id.
 */
const labels = (item: { comment: string | null; magicNumber: number | null; clientOrderId: string | null }) => ({
  comment: item.comment ?? '',
  magicNumber: String(item.magicNumber ?? 0),
  requestId: apiRequestIdOf(item.comment) ?? '',
  clientOrderId: item.clientOrderId ?? '',
});

export const positionView = (item: VenuePosition): PositionView => {
  const common = {
    id: item.id,
    symbol: item.symbol,
    orderType: specOrderType(item.orderType),
    volume: item.volume,
    openPrice: item.openPrice,
    openTime: item.openTime,
    brokerTimeOpen: item.openTime,
    stopLoss: item.stopLoss ?? 0,
    takeProfit: item.takeProfit ?? 0,
    ...labels(item),
    dealType: dealTypeOf(item.orderType),
    placedType: placedTypeOf(item.clientOrderId),
    currentPrice: item.currentPrice,
  };
  return item.kind === 'position'
    ? { ...common, state: 'Open', profit: item.profit, swap: item.swap, commission: item.commission, netProfit: item.profit + item.swap + item.commission }
    : { ...common, state: 'Pending', profit: 0, swap: 0, commission: 0, netProfit: 0, expiry: item.expiry };
};

/** A position as the positions read model last saw it (no session: the broker's figures are unknown). */
export const knownPositionView = (row: Awaited<ReturnType<typeof openPositionsOf>>[number]): PositionView => ({
  id: row.id,
  symbol: row.symbol,
  orderType: row.order_type as PositionView['orderType'],
  volume: row.volume,
  openPrice: row.open_price,
  openTime: new Date(row.open_time).toISOString(),
  brokerTimeOpen: new Date(row.open_time).toISOString(),
  stopLoss: row.stop_loss ?? 0,
  takeProfit: row.take_profit ?? 0,
  profit: null,
  swap: null,
  commission: null,
  netProfit: null,
  ...labels({ comment: row.comment, magicNumber: row.magic_number === null ? null : Number(row.magic_number), clientOrderId: row.client_order_id }),
  state: row.kind === 'order' ? 'Pending' : 'Open',
  dealType: row.order_type.startsWith('Buy') ? 'DealBuy' : 'DealSell',
  placedType: placedTypeOf(row.client_order_id),
});

export const historyView = (trade: ClosedTrade): PositionView => ({
  id: trade.positionId,
  symbol: trade.symbol,
  orderType: specOrderType(trade.orderType),
  volume: trade.volume,
  openPrice: trade.openPrice,
  openTime: trade.openTime,
  brokerTimeOpen: trade.openTime,
  stopLoss: trade.stopLoss ?? 0,
  takeProfit: trade.takeProfit ?? 0,
  profit: trade.profit,
  swap: trade.swap,
  commission: trade.commission,
  netProfit: trade.profit + trade.swap + trade.commission,
  ...labels(trade),
  state: 'Closed',
  dealType: dealTypeOf(trade.orderType),
  placedType: CLOSED_BY[trade.reason] ?? placedTypeOf(trade.clientOrderId),
  closePrice: trade.closePrice,
  closeTime: trade.closeTime,
  brokerTimeClose: trade.closeTime,
  closeReason: trade.reason,
  closeTradeId: trade.id,
});

export const symbolInfoView = (info: SymbolInfo): Static<typeof SymbolInfoDTO> => ({
  symbol: info.symbol,
  description: info.description,
  digits: info.digits,
  point: info.point,
  contractSize: info.contractSize,
  minVolume: info.minVolume,
  maxVolume: info.maxVolume,
  volumeStep: info.volumeStep,
  stopsLevel: info.stopsLevel,
  baseCurrency: info.baseCurrency,
  profitCurrency: info.profitCurrency,
  marginCurrency: info.marginCurrency,
  commissionPerLot: info.commissionPerLot,
  swapLong: info.swapLong,
  swapShort: info.swapShort,
});

export const symbolView = (info: SymbolInfo): Static<typeof SymbolDTO> => ({
  name: info.symbol,
  digits: info.digits,
  points: info.point,
  lotSize: Math.round(info.contractSize),
  minimalVolume: info.minVolume,
  maximalVolume: info.maxVolume,
  stepVolume: info.volumeStep,
  baseCurrency: info.baseCurrency,
  quoteCurrency: info.profitCurrency,
  disabled: false,
  tradeType: 'MARKET',
  description: info.description,
  contractSize: info.contractSize,
  stopsLevel: info.stopsLevel,
});
