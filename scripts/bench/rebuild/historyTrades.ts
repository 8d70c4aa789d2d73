// The trading of the rebuild benchmark's generated history (history.ts): a master opens, changes and
// closes trades (and now and then places a pending order it cancels), and the engine copies each to
// the master's slaves.
import { randomUUID } from 'node:crypto';
import type { PositionData } from '../../../domain/positions/events.js';
import { type History, type HistoryEvent, type Master, type OpenTrade, type Slave, SYMBOLS } from './historyWriter.js';

/** A pending order placed and later cancelled; slaves' copiers filter pending orders out. */
export function* pendingOrder(h: History, master: Master, symbolIndex: number): Generator<HistoryEvent> {
  const masterStream = `positions-${master.id}`;
  const { symbol, price } = SYMBOLS[symbolIndex]!;
  const order = {
    orderId: String(h.nextId++),
    symbol,
    orderType: 'BuyLimit' as const,
    volume: 0.1,
    openPrice: price * 0.99,
    openTime: h.now(),
    stopLoss: null,
    takeProfit: null,
    expiry: null,
    comment: null,
    magicNumber: null,
    clientOrderId: null,
  };
  const placed = h.make(masterStream, { type: 'PendingOrderPlaced', data: { accountId: master.id, at: h.now(), order } }, h.venue(master.id));
  yield placed;
  for (const slave of master.slaves) {
    yield h.make(
      `copies-${slave.copierId}`,
      {
        type: 'TradeSkipped',
        data: {
          copierId: slave.copierId,
          masterAccountId: master.id,
          slaveAccountId: slave.accountId,
          at: h.now(),
          source: { eventId: placed.id, position: `0:${h.count}`, type: placed.type },
          masterPositionId: order.orderId,
          reason: 'ORDER_TYPE_FILTERED',
          message: `Pending order #${order.orderId} not copied: pending orders are filtered out`,
          wouldHave: [],
        },
      },
      h.copyMetadata(placed, master.id, `0:${h.count}`),
    );
  }
  yield h.make(masterStream, { type: 'PendingOrderCancelled', data: { accountId: master.id, at: h.now(), order, reason: 'manual' } }, h.venue(master.id));
}

/** A master's trade requested and opened, then copied to each slave (or skipped now and then). */
export function* openTrade(h: History, master: Master, symbolIndex: number): Generator<HistoryEvent> {
  const masterStream = `positions-${master.id}`;
  const { symbol, price } = SYMBOLS[symbolIndex]!;
  const orderType = h.rnd() < 0.5 ? 'Buy' : 'Sell';
  const volume = Math.round((0.01 + h.rnd() * 0.99) * 100) / 100;
  yield h.tradeRequested(
    master.id,
    {
      action: 'open',
      symbol,
      orderType,
      volume,
      openPrice: null,
      stopLoss: null,
      takeProfit: null,
      comment: 'signal',
      magicNumber: 7,
      expiry: null,
      async: false,
    },
    h.api('POST', `/accounts/${master.id}/positions`),
  );
  const position: PositionData = {
    positionId: String(h.nextId++),
    symbol,
    orderType,
    volume,
    openPrice: price,
    openTime: h.now(),
    stopLoss: null,
    takeProfit: null,
    swap: 0,
    commission: -0.7 * volume,
    comment: 'signal',
    magicNumber: 7,
    clientOrderId: null,
  };
  const opened = h.make(masterStream, { type: 'PositionOpened', data: { accountId: master.id, at: h.now(), position } }, h.venue(master.id));
  yield opened;
  const trade: OpenTrade = { position, symbolIndex, copies: [] };
  for (const [i, slave] of master.slaves.entries()) trade.copies.push(yield* copyOpen(h, master, slave, i, opened, position));
  master.open.push(trade);
}

/** One slave's copy of an opened master trade: skipped (returns null) or opened on its venue (returns the copy). */
function* copyOpen(
  h: History,
  master: Master,
  slave: Slave,
  i: number,
  opened: HistoryEvent,
  position: PositionData,
): Generator<HistoryEvent, PositionData | null> {
  const { symbol, orderType, volume } = position;
  h.tick(1);
  const source = { eventId: opened.id, position: `0:${h.count}`, type: opened.type };
  const base = { copierId: slave.copierId, masterAccountId: master.id, slaveAccountId: slave.accountId, source, at: h.now() };
  const slaveVolume = Math.round(volume * (1 + (i % 3)) * 100) / 100;
  if (h.rnd() < 0.05) {
    yield h.make(
      `copies-${slave.copierId}`,
      {
        type: 'TradeSkipped',
        data: {
          ...base,
          masterPositionId: position.positionId,
          reason: 'VOLUME_BELOW_MINIMUM',
          message: `Volume ${slaveVolume} below the minimum`,
          wouldHave: [],
        },
      },
      h.copyMetadata(opened, master.id, source.position),
    );
    return null;
  }
  const clientOrderId = randomUUID();
  const copy: PositionData = {
    ...position,
    positionId: String(h.nextId++),
    volume: slaveVolume,
    openTime: h.now(),
    clientOrderId,
    commission: -0.7 * slaveVolume,
  };
  yield* h.pair(
    h.make(
      `positions-${slave.accountId}`,
      { type: 'PositionOpened', data: { accountId: slave.accountId, at: h.now(), position: copy } },
      h.venue(slave.accountId),
    ),
    h.make(
      `copies-${slave.copierId}`,
      {
        type: 'CopyExecuted',
        data: {
          ...base,
          masterEventAt: opened.created,
          action: {
            type: 'open',
            clientOrderId,
            masterPositionId: position.positionId,
            symbol,
            orderType,
            volume: slaveVolume,
            openPrice: null,
            stopLoss: null,
            takeProfit: null,
            comment: 'signal',
            magicNumber: 7,
            replacesPendingOrderId: null,
          },
          result: { type: 'opened', slavePositionId: copy.positionId, kind: 'position', price: copy.openPrice, volume: slaveVolume, time: h.now() },
        },
      },
      h.copyMetadata(opened, master.id, source.position),
    ),
  );
  return copy;
}

/** Stops moved: the slaves' copies follow. */
export function* modifyTrade(h: History, master: Master, trade: OpenTrade): Generator<HistoryEvent> {
  const { price, digits } = SYMBOLS[trade.symbolIndex]!;
  const stopLoss = Number((price * (trade.position.orderType === 'Buy' ? 0.995 : 1.005)).toFixed(digits));
  const position = { ...trade.position, stopLoss };
  const modified = h.make(`positions-${master.id}`, { type: 'PositionModified', data: { accountId: master.id, at: h.now(), position } }, h.venue(master.id));
  yield modified;
  for (const [i, slave] of master.slaves.entries()) {
    const copy = trade.copies[i];
    if (!copy) continue;
    const source = { eventId: modified.id, position: `0:${h.count}`, type: modified.type };
    yield h.make(
      `copies-${slave.copierId}`,
      {
        type: 'CopyExecuted',
        data: {
          copierId: slave.copierId,
          masterAccountId: master.id,
          slaveAccountId: slave.accountId,
          source,
          at: h.now(),
          masterEventAt: modified.created,
          action: {
            type: 'modify',
            clientOrderId: randomUUID(),
            masterPositionId: position.positionId,
            symbol: copy.symbol,
            slavePositionId: copy.positionId,
            stopLoss,
            takeProfit: null,
            openPrice: null,
          },
          result: { type: 'modified', time: h.now() },
        },
      },
      h.copyMetadata(modified, master.id, source.position),
    );
    yield h.make(
      `positions-${slave.accountId}`,
      { type: 'PositionModified', data: { accountId: slave.accountId, at: h.now(), position: { ...copy, stopLoss } } },
      h.venue(slave.accountId),
    );
  }
}

/** A master's trade closed in full (requested through the API) or in part at `move`, and each copy with it. */
export function* closeTrade(h: History, master: Master, index: number, move: number, partial: boolean): Generator<HistoryEvent> {
  const masterStream = `positions-${master.id}`;
  const trade = master.open[index]!;
  const closedVolume = partial ? Math.round((trade.position.volume / 2) * 100) / 100 : trade.position.volume;
  if (!partial) {
    const request = { action: 'close', positionId: trade.position.positionId, pendingOnly: false } as const;
    yield h.tradeRequested(master.id, request, h.api('DELETE', `/accounts/${master.id}/positions/${trade.position.positionId}`));
  }
  const remaining = { ...trade.position, volume: Math.round((trade.position.volume - closedVolume) * 100) / 100 };
  const masterTrade = h.closedTrade(trade.position, closedVolume, move);
  const closed = partial
    ? h.make(
        masterStream,
        { type: 'PositionPartiallyClosed', data: { accountId: master.id, at: h.now(), position: remaining, trade: masterTrade } },
        h.venue(master.id),
      )
    : h.make(masterStream, { type: 'PositionClosed', data: { accountId: master.id, at: h.now(), trade: masterTrade } }, h.venue(master.id));
  yield closed;
  for (const [i, slave] of master.slaves.entries()) {
    const copy = trade.copies[i];
    if (!copy) continue;
    const slaveRemaining = yield* copyClose(h, master, slave, closed, trade.position, copy, move, partial);
    if (partial) trade.copies[i] = slaveRemaining;
  }
  if (partial) master.open[index] = { ...trade, position: remaining };
  else master.open.splice(index, 1);
}

/** One slave's copy closed (in full or in part) with its master's; returns what remains of the copy. */
function* copyClose(
  h: History,
  master: Master,
  slave: Slave,
  closed: HistoryEvent,
  masterPosition: PositionData,
  copy: PositionData,
  move: number,
  partial: boolean,
): Generator<HistoryEvent, PositionData> {
  h.tick(1);
  const source = { eventId: closed.id, position: `0:${h.count}`, type: closed.type };
  const base = { copierId: slave.copierId, masterAccountId: master.id, slaveAccountId: slave.accountId, source, at: h.now(), masterEventAt: closed.created };
  const slaveClosed = partial ? Math.round((copy.volume / 2) * 100) / 100 : copy.volume;
  const slaveTrade = h.closedTrade(copy, slaveClosed, move);
  const result = {
    type: 'closed' as const,
    volume: slaveClosed,
    result: slaveTrade.profit + slaveTrade.swap + slaveTrade.commission,
    closePrice: move,
    time: h.now(),
  };
  const slaveRemaining = { ...copy, volume: Math.round((copy.volume - slaveClosed) * 100) / 100 };
  const slaveEvent = partial
    ? h.make(
        `positions-${slave.accountId}`,
        { type: 'PositionPartiallyClosed', data: { accountId: slave.accountId, at: h.now(), position: slaveRemaining, trade: slaveTrade } },
        h.venue(slave.accountId),
      )
    : h.make(
        `positions-${slave.accountId}`,
        { type: 'PositionClosed', data: { accountId: slave.accountId, at: h.now(), trade: slaveTrade } },
        h.venue(slave.accountId),
      );
  const common = {
    clientOrderId: randomUUID(),
    masterPositionId: masterPosition.positionId,
    symbol: copy.symbol,
    slavePositionId: copy.positionId,
    volume: slaveClosed,
  };
  yield* h.pair(
    slaveEvent,
    h.make(
      `copies-${slave.copierId}`,
      {
        type: 'CopyExecuted',
        data: {
          ...base,
          action: partial ? { type: 'partialClose', ...common, remainingVolume: slaveRemaining.volume } : { type: 'close', ...common },
          result,
        },
      },
      h.copyMetadata(closed, master.id, source.position),
    ),
  );
  return slaveRemaining;
}
