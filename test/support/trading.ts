// Helpers for specs that trade at the simulated venue over HTTP.
import type { TestService } from './service.js';
import { validAccount } from './service.js';

/**
 * Real time, moved to a Wednesday 10:00 UTC (when the specs start) so forex markets are open
 * whatever day CI runs on; it still ticks in real milliseconds.
 */
export const marketHoursClock = (start = Date.parse('2026-01-07T10:00:00.000Z')): (() => Date) => {
  const offset = start - Date.now();
  return () => new Date(Date.now() + offset);
};

/** marketHoursClock that a spec can move forward: `clock.advance(ms)`; it keeps ticking in real time. */
export const movableClock = (start = Date.parse('2026-01-07T10:00:00.000Z')): (() => Date) & { advance(ms: number): void } => {
  let offset = start - Date.now();
  const clock = () => new Date(Date.now() + offset);
  return Object.assign(clock, {
    advance: (ms: number) => {
      offset += ms;
    },
  });
};

/** Polls `probe` until it returns a value that is not undefined (or `timeoutMs` passes, then throws). */
export const eventually = async <T>(probe: () => Promise<T | undefined>, timeoutMs = 5000, what = 'a condition'): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 25));
  }
};

let logins = 0;

/** Creates and starts an account with a login of its own at the simulated venue. */
export const startedAccount = async (t: TestService, alias: string, overrides: Record<string, unknown> = {}): Promise<string> => {
  logins += 1;
  const created = await t.call('POST', '/accounts', {
    body: validAccount({ alias, loginServer: 'Sim-Demo', loginAccountNumber: `${process.pid}${logins}${alias}`.slice(0, 64), ...overrides }),
  });
  if (created.status !== 200) throw new Error(`creating ${alias}: ${created.status} ${JSON.stringify(created.body)}`);
  const started = await t.call('POST', `/accounts/${created.body.id}/actions/start`);
  if (started.status !== 200) throw new Error(`starting ${alias}: ${started.status} ${JSON.stringify(started.body)}`);
  return created.body.id as string;
};

/** Fixes quotes at the simulated venue (bid, ask). */
export const pinQuotes = async (t: TestService, quotes: Record<string, readonly [number, number]>): Promise<void> => {
  await t.service.services.venues.desk((venue) => {
    for (const [symbol, [bid, ask]] of Object.entries(quotes)) venue.setQuote(symbol, { bid, ask });
  });
};

export interface PositionBody {
  readonly id: string;
  readonly symbol: string;
  readonly orderType: string;
  readonly volume: number;
  readonly openPrice: number;
  readonly stopLoss: number | null;
  readonly takeProfit: number | null;
  readonly comment: string | null;
}

export const positionsOf = async (t: TestService, accountId: string): Promise<PositionBody[]> => {
  const res = await t.call('GET', `/accounts/${accountId}/positions`);
  if (res.status !== 200) throw new Error(`positions of ${accountId}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as PositionBody[];
};

/** Waits until the account's book satisfies `test`, and returns it. */
export const bookWhere = (t: TestService, accountId: string, test: (book: PositionBody[]) => boolean, what: string, timeoutMs = 5000) =>
  eventually(async () => {
    const book = await positionsOf(t, accountId);
    return test(book) ? book : undefined;
  }, timeoutMs, what);
