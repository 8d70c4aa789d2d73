// A store under test in the event store benchmark: ours, Emmett's (the peer) or plain INSERTs (the
// limit). Each runs in a worker process of its own (worker.ts), so no store's module state, pg type
// parsers or heap can slow another; the orchestrator (../eventStore.ts) interleaves their runs.
import { randomUUID } from 'node:crypto';
import type { PositionsEvent } from '../../../domain/positions/events.js';

export interface BenchEvent {
  readonly id: string;
  readonly type: string;
  readonly data: unknown;
  readonly metadata: Readonly<Record<string, unknown>>;
}

export interface StoreUnderTest {
  /**
   * Appends `events` to `stream`, expecting it to be at `revision` (-1: the stream does not exist),
   * in one append call; the batch is one transaction.
   */
  append(stream: string, revision: number, events: readonly BenchEvent[]): Promise<void>;
  /** Reads the first `count` events of `$all` in order, page by page as the store's reader does; returns how many it got. */
  readAll(count: number): Promise<number>;
  close(): Promise<void>;
}

export const SYSTEMS = ['ours', 'emmett', 'raw'] as const;
export type SystemName = (typeof SYSTEMS)[number];

/** One realistic event: a venue fill as the service records it, with the request context of a trade request. */
export const benchEvent = (n: number): BenchEvent => {
  const accountId = randomUUID();
  const at = new Date(Date.UTC(2026, 0, 7, 10) + n * 1000).toISOString();
  const event: PositionsEvent = {
    type: 'PositionOpened',
    data: {
      accountId,
      at,
      position: {
        positionId: String(100000 + n),
        symbol: 'EURUSD',
        orderType: n % 2 ? 'Sell' : 'Buy',
        volume: 0.1,
        openPrice: 1.08512,
        openTime: at,
        stopLoss: 1.08012,
        takeProfit: 1.09512,
        swap: 0,
        commission: -0.7,
        comment: 'copied by bench',
        magicNumber: 42,
        clientOrderId: randomUUID(),
      },
    },
  };
  return {
    id: randomUUID(),
    type: event.type,
    data: event.data,
    metadata: {
      apiKeyId: randomUUID(),
      projectId: randomUUID(),
      clientIp: '203.0.113.7',
      method: 'POST',
      path: `/rest/api/v1/accounts/${accountId}/positions`,
      correlationId: randomUUID(),
      receivedAt: at,
    },
  };
};
