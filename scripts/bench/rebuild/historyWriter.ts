// The writer of the rebuild benchmark's generated history (history.ts): its seeded randomness, clock
// and ids, the metadata of API requests, venue facts and copy outcomes, and the masters it has made.
import { randomUUID } from 'node:crypto';
import type { AccountEvent } from '../../../domain/account/events.js';
import type { SampleEvent } from '../../../domain/analytics/dataCollector.js';
import type { ApiKeyEvent } from '../../../domain/apiKey/events.js';
import type { CopierEvent } from '../../../domain/copier/events.js';
import type { CopyEvent } from '../../../domain/copy/events.js';
import type { FeatureEvent } from '../../../domain/feature/events.js';
import type { ClosedTradeData, PositionData, PositionsEvent } from '../../../domain/positions/events.js';
import type { ProjectEvent } from '../../../domain/project/events.js';

type TradeRequest = Extract<PositionsEvent, { type: 'TradeRequested' }>['data']['request'];

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

/** mulberry32: small, fast, and the same numbers on every machine. */
const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

export const SYMBOLS = [
  { symbol: 'EURUSD', price: 1.0851, digits: 5 },
  { symbol: 'GBPUSD', price: 1.2712, digits: 5 },
  { symbol: 'USDJPY', price: 148.21, digits: 3 },
  { symbol: 'XAUUSD', price: 2034.5, digits: 2 },
  { symbol: 'BTCUSD', price: 43120.0, digits: 2 },
];

export interface OpenTrade {
  readonly position: PositionData;
  readonly symbolIndex: number;
  /** Per slave index: its copy, or null when the copy was skipped. */
  readonly copies: (PositionData | null)[];
}

export interface Slave {
  readonly accountId: string;
  readonly copierId: string;
}

export interface Master {
  readonly id: string;
  readonly slaves: Slave[];
  readonly open: OpenTrade[];
}

/** What the generator has made so far: its seeded randomness, its clock, its ids, accounts and masters. */
export class History {
  readonly rnd: () => number;
  clock = Date.UTC(2026, 0, 5, 8);
  count = 0;
  nextId = 1_000_000;
  readonly projectId = randomUUID();
  readonly apiKeyId = randomUUID();
  readonly accounts: string[] = [];
  readonly masters: Master[] = [];
  sampled: string[] = [];
  readonly lastSample = new Map<string, number>();

  constructor(seed: number) {
    this.rnd = random(seed);
  }

  now(): string {
    return new Date(this.clock).toISOString();
  }

  tick(ms: number): void {
    this.clock += ms;
  }

  /** The metadata of a request through the API. */
  api(method: string, path: string) {
    return {
      apiKeyId: this.apiKeyId,
      projectId: this.projectId,
      clientIp: '203.0.113.7',
      method,
      path: `/rest/api/v1${path}`,
      correlationId: randomUUID(),
      receivedAt: this.now(),
    };
  }

  /** The metadata of a fact an account's venue reported. */
  venue(accountId: string) {
    return { apiKeyId: null, projectId: null, clientIp: null, method: null, path: null, correlationId: `venue:${accountId}`, receivedAt: this.now() };
  }

  make(stream: string, event: DomainEvent, metadata: Record<string, unknown>): HistoryEvent {
    this.count++;
    return { stream, id: randomUUID(), type: event.type, data: event.data, metadata, created: this.now() };
  }

  /** A trading request through the API, on the account's positions stream. */
  tradeRequested(accountId: string, request: TradeRequest, metadata: Record<string, unknown>): HistoryEvent {
    return this.make(`positions-${accountId}`, { type: 'TradeRequested', data: { accountId, at: this.now(), requestId: randomUUID(), request } }, metadata);
  }

  /** The engine's metadata of a copy outcome: which master event caused it (engine/copy/engine.ts). */
  copyMetadata(cause: HistoryEvent, masterAccountId: string, sourcePosition: string) {
    return { correlationId: `copy:${cause.id}`, sourcePosition, sourceEventId: cause.id, masterAccountId, receivedAt: this.now() };
  }

  closedTrade(p: PositionData, volume: number, closePrice: number): ClosedTradeData {
    const direction = p.orderType === 'Buy' ? 1 : -1;
    const profit = Math.round(direction * (closePrice - p.openPrice) * volume * 100_000) / 100;
    return {
      tradeId: String(this.nextId++),
      positionId: p.positionId,
      symbol: p.symbol,
      orderType: p.orderType,
      volume,
      openPrice: p.openPrice,
      openTime: p.openTime,
      closePrice,
      closeTime: this.now(),
      profit,
      swap: -0.12,
      commission: -0.7 * volume,
      reason: this.rnd() < 0.1 ? 'stopLoss' : 'manual',
      comment: p.comment,
      magicNumber: p.magicNumber,
      clientOrderId: p.clientOrderId,
    };
  }

  /**
   * A slave's venue event and the engine's record of the same copy: the venue's usually comes first (the
   * session records the fill while the engine is still waiting for the order's answer), now and then
   * the engine's does.
   */
  *pair(venueEvent: HistoryEvent, engineEvent: HistoryEvent): Generator<HistoryEvent> {
    if (this.rnd() < 0.9) yield* [venueEvent, engineEvent];
    else yield* [engineEvent, venueEvent];
  }
}
