// A generated, realistic history for the rebuild benchmark, in the real event shapes of domain/*/events.ts:
// one project and its key; masters, each followed by slaves through copiers (created and started by
// API requests, with the request context in the metadata); the masters trade (requests, opens, stop
// changes, partial and full closes, a few pending orders) and the engine copies every trade to each
// slave (CopyExecuted, the slave's own venue events) or skips it with a reason; a data collector
// samples some accounts. Seeded, so every run rebuilds the same history.
import { randomUUID } from 'node:crypto';
import type { AccountEvent } from '../../../domain/account/events.js';
import { AccountStatus } from '../../../domain/account/enums.js';
import type { SampleEvent } from '../../../domain/analytics/dataCollector.js';
import type { ApiKeyEvent } from '../../../domain/apiKey/events.js';
import type { CopierEvent } from '../../../domain/copier/events.js';
import { defaultCopierSettings } from '../../../domain/copier/settings.js';
import type { CopyEvent } from '../../../domain/copy/events.js';
import type { FeatureEvent } from '../../../domain/feature/events.js';
import type { ClosedTradeData, PositionData, PositionsEvent } from '../../../domain/positions/events.js';
import type { ProjectEvent } from '../../../domain/project/events.js';

type DomainEvent = AccountEvent | ApiKeyEvent | CopierEvent | CopyEvent | FeatureEvent | PositionsEvent | ProjectEvent | SampleEvent;

export interface HistoryEvent {
  readonly stream: string;
  readonly id: string;
  readonly type: string;
  readonly data: unknown;
  readonly metadata: Readonly<Record<string, unknown>>;
  /** When it was recorded (the es_events.created column). */
  readonly created: string;
}

export interface HistoryShape {
  readonly masters: number;
  readonly slavesPerMaster: number;
  /** Accounts with a data collector. */
  readonly sampledAccounts: number;
}

/** mulberry32: small, fast, and the same numbers on every machine. */
const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

const SYMBOLS = [
  { symbol: 'EURUSD', price: 1.0851, digits: 5 },
  { symbol: 'GBPUSD', price: 1.2712, digits: 5 },
  { symbol: 'USDJPY', price: 148.21, digits: 3 },
  { symbol: 'XAUUSD', price: 2034.5, digits: 2 },
  { symbol: 'BTCUSD', price: 43120.0, digits: 2 },
];

interface OpenTrade {
  readonly position: PositionData;
  readonly symbolIndex: number;
  /** Per slave index: its copy, or null when the copy was skipped. */
  readonly copies: (PositionData | null)[];
}

/** Yields at least `total` events (a trade's copies are never cut off), in the order they are appended. */
export function* generateHistory(total: number, shape: HistoryShape, seed = 42): Generator<HistoryEvent> {
  const rnd = random(seed);
  let clock = Date.UTC(2026, 0, 5, 8);
  let count = 0;
  let nextId = 1_000_000;
  const now = () => new Date(clock).toISOString();
  const tick = (ms: number) => (clock += ms);

  const projectId = randomUUID();
  const apiKeyId = randomUUID();
  const api = (method: string, path: string) => ({
    apiKeyId,
    projectId,
    clientIp: '203.0.113.7',
    method,
    path: `/rest/api/v1${path}`,
    correlationId: randomUUID(),
    receivedAt: now(),
  });
  const venue = (accountId: string) => ({
    apiKeyId: null,
    projectId: null,
    clientIp: null,
    method: null,
    path: null,
    correlationId: `venue:${accountId}`,
    receivedAt: now(),
  });
  const make = (stream: string, event: DomainEvent, metadata: Record<string, unknown>): HistoryEvent => {
    count++;
    return { stream, id: randomUUID(), type: event.type, data: event.data, metadata, created: now() };
  };

  yield make(`project-${projectId}`, { type: 'ProjectCreated', data: { projectId, name: 'Bench', owner: null, at: now() } }, api('POST', '/projects'));
  yield make(
    `apiKey-${apiKeyId}`,
    {
      type: 'ApiKeyIssued',
      data: {
        apiKeyId,
        projectId,
        accountId: null,
        level: 'PROJECT',
        keyType: 'INTEGRATION',
        name: 'bench',
        keyHash: 'a'.repeat(64),
        keyPrefix: 'ct_bench',
        expiresAt: null,
        at: now(),
      },
    },
    api('POST', `/projects/${projectId}/apiKeys`),
  );

  const accounts: string[] = [];
  const openAccount = function* (alias: string): Generator<HistoryEvent, string> {
    const accountId = randomUUID();
    accounts.push(accountId);
    yield make(
      `account-${accountId}`,
      {
        type: 'AccountCreated',
        data: {
          accountId,
          projectId,
          at: now(),
          settings: {
            loginServer: 'Bench-Demo',
            loginAccountNumber: String(500000 + accounts.length),
            passwordCiphertext: 'v1:bench:' + 'x'.repeat(40),
            alias,
            accountTypeId: 1,
            regionId: 2,
            propFirm: false,
            tradingDisabled: false,
            nativeMode: false,
            closeUnmanagedPositions: false,
            dedicatedIp: null,
            myHomeIp: null,
            proxy: null,
          },
        },
      },
      api('POST', '/accounts'),
    );
    yield make(
      `account-${accountId}`,
      { type: 'AccountStarted', data: { accountId, from: AccountStatus.New, at: now() } },
      api('POST', `/accounts/${accountId}/actions/start`),
    );
    yield make(
      `positions-${accountId}`,
      { type: 'VenueConnected', data: { accountId, at: now(), venue: 'simulated', login: `Bench-Demo/${500000 + accounts.length}` } },
      venue(accountId),
    );
    yield make(
      `positions-${accountId}`,
      {
        type: 'BalanceChanged',
        data: { accountId, at: now(), operation: { operationId: String(nextId++), time: now(), amount: 10_000, comment: 'initial deposit' } },
      },
      venue(accountId),
    );
    tick(50);
    return accountId;
  };

  const masters: { id: string; slaves: { accountId: string; copierId: string }[]; open: OpenTrade[] }[] = [];
  for (let m = 0; m < shape.masters; m++) {
    const master = { id: yield* openAccount(`master ${m}`), slaves: [] as { accountId: string; copierId: string }[], open: [] as OpenTrade[] };
    for (let s = 0; s < shape.slavesPerMaster; s++) {
      const accountId = yield* openAccount(`slave ${m}.${s}`);
      const copierId = randomUUID();
      const settings = { ...defaultCopierSettings, multiplier: 1 + (s % 3) };
      yield make(
        `copier-${copierId}`,
        {
          type: 'CopierCreated',
          data: { copierId, projectId, fromAccountId: master.id, toAccountId: accountId, settings, at: now() },
        },
        api('POST', `/accounts/${accountId}/copiers`),
      );
      if (rnd() < 0.1) {
        yield make(
          `copier-${copierId}`,
          {
            type: 'CopierUpdated',
            data: { copierId, toAccountId: accountId, changes: { maxLotSize: 1 }, at: now() },
          },
          api('PATCH', `/accounts/${accountId}/copiers/${copierId}`),
        );
      }
      master.slaves.push({ accountId, copierId });
    }
    masters.push(master);
  }
  const sampled = accounts.slice(0, shape.sampledAccounts);
  const lastSample = new Map<string, number>();
  for (const accountId of sampled) {
    const featureId = randomUUID();
    yield make(
      `feature-${featureId}`,
      {
        type: 'FeatureAdded',
        data: { featureId, projectId, scope: { kind: 'account', accountId }, setting: { type: 'FeatureDataCollectorDTO', intervalSeconds: 60 }, at: now() },
      },
      api('POST', `/accounts/${accountId}/features`),
    );
  }

  /**
   * A slave's venue event and the engine's record of the same copy: the venue's usually comes first (the
   * session records the fill while the engine is still waiting for the order's answer), now and then
   * the engine's does.
   */
  const pair = function* (venueEvent: HistoryEvent, engineEvent: HistoryEvent): Generator<HistoryEvent> {
    if (rnd() < 0.9) yield* [venueEvent, engineEvent];
    else yield* [engineEvent, venueEvent];
  };
  /** The engine's metadata of a copy outcome: which master event caused it (engine/copy/engine.ts). */
  const copyMetadata = (cause: HistoryEvent, masterAccountId: string, sourcePosition: string) => ({
    correlationId: `copy:${cause.id}`,
    sourcePosition,
    sourceEventId: cause.id,
    masterAccountId,
    receivedAt: now(),
  });
  const closedTrade = (p: PositionData, volume: number, closePrice: number): ClosedTradeData => {
    const direction = p.orderType === 'Buy' ? 1 : -1;
    const profit = Math.round(direction * (closePrice - p.openPrice) * volume * 100_000) / 100;
    return {
      tradeId: String(nextId++),
      positionId: p.positionId,
      symbol: p.symbol,
      orderType: p.orderType,
      volume,
      openPrice: p.openPrice,
      openTime: p.openTime,
      closePrice,
      closeTime: now(),
      profit,
      swap: -0.12,
      commission: -0.7 * volume,
      reason: rnd() < 0.1 ? 'stopLoss' : 'manual',
      comment: p.comment,
      magicNumber: p.magicNumber,
      clientOrderId: p.clientOrderId,
    };
  };

  while (count < total) {
    const master = masters[Math.floor(rnd() * masters.length)]!;
    tick(200 + Math.floor(rnd() * 800));
    if (sampled.length && rnd() < 0.3) {
      // One sample per account and minute, the start of the minute, as the data collector takes them.
      const accountId = sampled[Math.floor(rnd() * sampled.length)]!;
      const at = Math.max((lastSample.get(accountId) ?? 0) + 60_000, Math.floor(clock / 60_000) * 60_000);
      lastSample.set(accountId, at);
      const balance = 10_000 + Math.round(rnd() * 2000);
      yield make(
        `samples-${accountId}`,
        {
          type: 'AccountSampled',
          data: { accountId, at: new Date(at).toISOString(), balance, equity: balance - 12.5, floatingPnl: -12.5, margin: 108.5 },
        },
        { correlationId: `sample:${accountId}`, receivedAt: now() },
      );
    }
    const masterStream = `positions-${master.id}`;
    const roll = rnd();
    if (master.open.length < 3 && (master.open.length === 0 || roll < 0.45)) {
      const symbolIndex = Math.floor(rnd() * SYMBOLS.length);
      const { symbol, price } = SYMBOLS[symbolIndex]!;
      if (rnd() < 0.04) {
        // A pending order placed and later cancelled; slaves' copiers filter pending orders out.
        const order = {
          orderId: String(nextId++),
          symbol,
          orderType: 'BuyLimit' as const,
          volume: 0.1,
          openPrice: price * 0.99,
          openTime: now(),
          stopLoss: null,
          takeProfit: null,
          expiry: null,
          comment: null,
          magicNumber: null,
          clientOrderId: null,
        };
        const placed = make(masterStream, { type: 'PendingOrderPlaced', data: { accountId: master.id, at: now(), order } }, venue(master.id));
        yield placed;
        for (const slave of master.slaves) {
          yield make(
            `copies-${slave.copierId}`,
            {
              type: 'TradeSkipped',
              data: {
                copierId: slave.copierId,
                masterAccountId: master.id,
                slaveAccountId: slave.accountId,
                at: now(),
                source: { eventId: placed.id, position: `0:${count}`, type: placed.type },
                masterPositionId: order.orderId,
                reason: 'ORDER_TYPE_FILTERED',
                message: `Pending order #${order.orderId} not copied: pending orders are filtered out`,
                wouldHave: [],
              },
            },
            copyMetadata(placed, master.id, `0:${count}`),
          );
        }
        yield make(masterStream, { type: 'PendingOrderCancelled', data: { accountId: master.id, at: now(), order, reason: 'manual' } }, venue(master.id));
        continue;
      }
      const orderType = rnd() < 0.5 ? 'Buy' : 'Sell';
      const volume = Math.round((0.01 + rnd() * 0.99) * 100) / 100;
      yield make(
        masterStream,
        {
          type: 'TradeRequested',
          data: {
            accountId: master.id,
            at: now(),
            requestId: randomUUID(),
            request: {
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
          },
        },
        api('POST', `/accounts/${master.id}/positions`),
      );
      const position: PositionData = {
        positionId: String(nextId++),
        symbol,
        orderType,
        volume,
        openPrice: price,
        openTime: now(),
        stopLoss: null,
        takeProfit: null,
        swap: 0,
        commission: -0.7 * volume,
        comment: 'signal',
        magicNumber: 7,
        clientOrderId: null,
      };
      const opened = make(masterStream, { type: 'PositionOpened', data: { accountId: master.id, at: now(), position } }, venue(master.id));
      yield opened;
      const trade: OpenTrade = { position, symbolIndex, copies: [] };
      for (const [i, slave] of master.slaves.entries()) {
        tick(1);
        const source = { eventId: opened.id, position: `0:${count}`, type: opened.type };
        const base = { copierId: slave.copierId, masterAccountId: master.id, slaveAccountId: slave.accountId, source, at: now() };
        const slaveVolume = Math.round(volume * (1 + (i % 3)) * 100) / 100;
        if (rnd() < 0.05) {
          yield make(
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
            copyMetadata(opened, master.id, source.position),
          );
          trade.copies.push(null);
          continue;
        }
        const clientOrderId = randomUUID();
        const copy: PositionData = {
          ...position,
          positionId: String(nextId++),
          volume: slaveVolume,
          openTime: now(),
          clientOrderId,
          commission: -0.7 * slaveVolume,
        };
        yield* pair(
          make(
            `positions-${slave.accountId}`,
            { type: 'PositionOpened', data: { accountId: slave.accountId, at: now(), position: copy } },
            venue(slave.accountId),
          ),
          make(
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
                result: { type: 'opened', slavePositionId: copy.positionId, kind: 'position', price: copy.openPrice, volume: slaveVolume, time: now() },
              },
            },
            copyMetadata(opened, master.id, source.position),
          ),
        );
        trade.copies.push(copy);
      }
      master.open.push(trade);
      continue;
    }

    const index = Math.floor(rnd() * master.open.length);
    const trade = master.open[index]!;
    const { price, digits } = SYMBOLS[trade.symbolIndex]!;
    const move = Number((price * (1 + (rnd() - 0.5) * 0.004)).toFixed(digits));
    const action = rnd();
    if (action < 0.25) {
      // Stops moved: the slaves' copies follow.
      const stopLoss = Number((price * (trade.position.orderType === 'Buy' ? 0.995 : 1.005)).toFixed(digits));
      const position = { ...trade.position, stopLoss };
      const modified = make(masterStream, { type: 'PositionModified', data: { accountId: master.id, at: now(), position } }, venue(master.id));
      yield modified;
      for (const [i, slave] of master.slaves.entries()) {
        const copy = trade.copies[i];
        if (!copy) continue;
        const source = { eventId: modified.id, position: `0:${count}`, type: modified.type };
        yield make(
          `copies-${slave.copierId}`,
          {
            type: 'CopyExecuted',
            data: {
              copierId: slave.copierId,
              masterAccountId: master.id,
              slaveAccountId: slave.accountId,
              source,
              at: now(),
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
              result: { type: 'modified', time: now() },
            },
          },
          copyMetadata(modified, master.id, source.position),
        );
        yield make(
          `positions-${slave.accountId}`,
          { type: 'PositionModified', data: { accountId: slave.accountId, at: now(), position: { ...copy, stopLoss } } },
          venue(slave.accountId),
        );
      }
      continue;
    }
    const partial = action < 0.45 && trade.position.volume >= 0.04;
    const closedVolume = partial ? Math.round((trade.position.volume / 2) * 100) / 100 : trade.position.volume;
    if (!partial) {
      yield make(
        masterStream,
        {
          type: 'TradeRequested',
          data: {
            accountId: master.id,
            at: now(),
            requestId: randomUUID(),
            request: { action: 'close', positionId: trade.position.positionId, pendingOnly: false },
          },
        },
        api('DELETE', `/accounts/${master.id}/positions/${trade.position.positionId}`),
      );
    }
    const remaining = { ...trade.position, volume: Math.round((trade.position.volume - closedVolume) * 100) / 100 };
    const masterTrade = closedTrade(trade.position, closedVolume, move);
    const closed = partial
      ? make(
          masterStream,
          { type: 'PositionPartiallyClosed', data: { accountId: master.id, at: now(), position: remaining, trade: masterTrade } },
          venue(master.id),
        )
      : make(masterStream, { type: 'PositionClosed', data: { accountId: master.id, at: now(), trade: masterTrade } }, venue(master.id));
    yield closed;
    for (const [i, slave] of master.slaves.entries()) {
      const copy = trade.copies[i];
      if (!copy) continue;
      tick(1);
      const source = { eventId: closed.id, position: `0:${count}`, type: closed.type };
      const base = { copierId: slave.copierId, masterAccountId: master.id, slaveAccountId: slave.accountId, source, at: now(), masterEventAt: closed.created };
      const slaveClosed = partial ? Math.round((copy.volume / 2) * 100) / 100 : copy.volume;
      const slaveTrade = closedTrade(copy, slaveClosed, move);
      const result = {
        type: 'closed' as const,
        volume: slaveClosed,
        result: slaveTrade.profit + slaveTrade.swap + slaveTrade.commission,
        closePrice: move,
        time: now(),
      };
      const slaveRemaining = { ...copy, volume: Math.round((copy.volume - slaveClosed) * 100) / 100 };
      const slaveEvent = partial
        ? make(
            `positions-${slave.accountId}`,
            { type: 'PositionPartiallyClosed', data: { accountId: slave.accountId, at: now(), position: slaveRemaining, trade: slaveTrade } },
            venue(slave.accountId),
          )
        : make(
            `positions-${slave.accountId}`,
            { type: 'PositionClosed', data: { accountId: slave.accountId, at: now(), trade: slaveTrade } },
            venue(slave.accountId),
          );
      yield* pair(
        slaveEvent,
        make(
          `copies-${slave.copierId}`,
          {
            type: 'CopyExecuted',
            data: {
              ...base,
              action: partial
                ? {
                    type: 'partialClose',
                    clientOrderId: randomUUID(),
                    masterPositionId: trade.position.positionId,
                    symbol: copy.symbol,
                    slavePositionId: copy.positionId,
                    volume: slaveClosed,
                    remainingVolume: slaveRemaining.volume,
                  }
                : {
                    type: 'close',
                    clientOrderId: randomUUID(),
                    masterPositionId: trade.position.positionId,
                    symbol: copy.symbol,
                    slavePositionId: copy.positionId,
                    volume: slaveClosed,
                  },
              result,
            },
          },
          copyMetadata(closed, master.id, source.position),
        ),
      );
      if (partial) trade.copies[i] = slaveRemaining;
    }
    if (partial) master.open[index] = { ...trade, position: remaining };
    else master.open.splice(index, 1);
  }
}
