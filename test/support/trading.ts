// Helpers for specs that trade at the simulated venue over HTTP.
import type { TestService } from './service.js';
import { validAccount } from './service.js';
import { featureTypeOf } from '../../domain/feature/types.js';

/**
 * Real time, moved to a Wednesday 10:00 UTC so forex markets are open whatever day CI runs on; it still
 * ticks in real milliseconds. It reads `start` at its first reading (the service's start in the spec's
 * `before`), not when the spec file is loaded: a clock made at the top of a describe would otherwise
 * stand as far past `start` as the suite had run before the spec, and a spec's windows would move with
 * its place in the run.
 */
export const marketHoursClock = (start = Date.parse('2026-01-07T10:00:00.000Z')): (() => Date) => movableClock(start);

/** marketHoursClock that a spec can move forward: `clock.advance(ms)`; it keeps ticking in real time. */
export const movableClock = (start = Date.parse('2026-01-07T10:00:00.000Z')): (() => Date) & { advance(ms: number): void } => {
  let origin: number | null = null;
  let advanced = 0;
  const clock = () => {
    origin ??= Date.now();
    return new Date(start + advanced + (Date.now() - origin));
  };
  return Object.assign(clock, {
    advance: (ms: number) => {
      advanced += ms;
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

/** A PositionDTO as the specs read it (0 = no stop loss or take profit, "" = no comment). */
export interface PositionBody {
  readonly id: string;
  readonly symbol: string;
  readonly orderType: string;
  readonly volume: number;
  readonly openPrice: number;
  readonly stopLoss: number;
  readonly takeProfit: number;
  readonly comment: string;
  readonly magicNumber: string;
  /** The reference's: the requestId of POST .../positions, read from the comment's prefix; "" otherwise. */
  readonly requestId: string;
  /** Ours: the client order id it was placed with. */
  readonly clientOrderId?: string;
}

let requestIds = 0;

/** The next requestId, as a reference client counts them: 0 to 999, then again from 0. */
export const nextRequestId = (): number => {
  requestIds = (requestIds + 1) % 1000;
  return requestIds;
};

/**
 * A PositionRequestDTO as the reference's generated clients send it: every required member present
 * (openPrice, stopLoss and takeProfit 0 = none; a fresh requestId), magicNumber as a string. `fields`
 * may leave those out, give null for 0, or a number magicNumber.
 */
export const positionRequest = (fields: Record<string, unknown>): Record<string, unknown> => {
  const body: Record<string, unknown> = { openPrice: 0, stopLoss: 0, takeProfit: 0, requestId: nextRequestId(), ...fields };
  for (const member of ['openPrice', 'stopLoss', 'takeProfit'] as const) if (body[member] === null) body[member] = 0;
  if (typeof body.magicNumber === 'number') body.magicNumber = String(body.magicNumber);
  if (body.magicNumber === null) delete body.magicNumber;
  if (body.comment === null) delete body.comment;
  return body;
};

export const positionsOf = async (t: TestService, accountId: string): Promise<PositionBody[]> => {
  const res = await t.call('GET', `/accounts/${accountId}/positions`);
  if (res.status !== 200) throw new Error(`positions of ${accountId}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as PositionBody[];
};

/** Waits until the account's book satisfies `test`, and returns it. */
export const bookWhere = (t: TestService, accountId: string, test: (book: PositionBody[]) => boolean, what: string, timeoutMs = 5000) =>
  eventually(
    async () => {
      const book = await positionsOf(t, accountId);
      return test(book) ? book : undefined;
    },
    timeoutMs,
    what,
  );

/** An account log entry (LogDTO) as the specs read it. */
export interface LogEntry {
  readonly text: string;
  readonly code: string | null;
  readonly logTypeId: number;
  readonly category: string;
  readonly copierId: string | null;
  readonly positionId: string | null;
}

/**
 * A PUT .../positions/{positionId} body as a reference client sends it: the whole PositionRequestDTO,
 * from the position as it is (`current`; openPrice 0 = unchanged) with `changes` on top.
 */
export const modifyRequest = (current: PositionBody | undefined, changes: Record<string, unknown>): Record<string, unknown> =>
  positionRequest({
    symbol: current?.symbol ?? 'EURUSD',
    orderType: current?.orderType ?? 'Buy',
    volume: current?.volume ?? 0.1,
    stopLoss: current?.stopLoss ?? 0,
    takeProfit: current?.takeProfit ?? 0,
    ...changes,
  });

/** PUT .../positions/{positionId} with the whole PositionRequestDTO: the position as it is, `changes` on top. */
export const modifyPosition = async (
  t: TestService,
  accountId: string,
  positionId: string,
  changes: Record<string, unknown>,
  options: Record<string, unknown> = {},
) => {
  const current = (await positionsOf(t, accountId)).find((p) => p.id === positionId);
  return t.call('PUT', `/accounts/${accountId}/positions/${positionId}`, { ...options, body: modifyRequest(current, changes) });
};

/** Opens or places at the account over the Trading API, expecting 204, and answers the X-Position-Id. */
export const openPosition = async (t: TestService, accountId: string, body: Record<string, unknown>): Promise<string> => {
  const res = await t.call('POST', `/accounts/${accountId}/positions`, { body: positionRequest(body) });
  if (res.status !== 204) throw new Error(`opening at ${accountId}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.headers.get('x-position-id')!;
};

/** A started master, a started slave and a copier between them. */
export const copyPair = async (t: TestService, name: string, copierBody: Record<string, unknown> = {}) => {
  const master = await startedAccount(t, `${name}-master`);
  const slave = await startedAccount(t, `${name}-slave`);
  const copier = await t.call('POST', `/accounts/${slave}/copiers`, { body: { fromAccountId: master, ...copierBody } });
  if (copier.status !== 200) throw new Error(`copier for ${name}: ${copier.status} ${JSON.stringify(copier.body)}`);
  return { master, slave, copierId: copier.body.id as string };
};

/** Adds a feature under `owner` (`/accounts/{id}` or `/accounts/{id}/copiers/{copierId}`), expecting 200; answers its id. */
/**
 * A FeatureDTO to send, as the reference writes it (`type: {id}`, `setting`), from the feature DTO's
 * name and its members: `featureBody({ type: 'FeatureCopierFilterDTO', minLotSize: 0.1 })`.
 */
export const featureBody = ({ type, ...setting }: Readonly<Record<string, unknown>>): { type: { id: number }; setting: Record<string, unknown> } => ({
  type: { id: featureTypeOf(String(type)).id },
  setting,
});

/**
 * A FeatureDataCollectorDTO to send with every member the reference requires (its defaults), `members`
 * on top: `dataCollectorBody({ collectionIntervalSeconds: 10 })`.
 */
export const dataCollectorBody = (members: Readonly<Record<string, unknown>> = {}): ReturnType<typeof featureBody> =>
  featureBody({
    type: 'FeatureDataCollectorDTO',
    activateDataCollector: true,
    collectionIntervalSeconds: 60,
    normalizeValues: false,
    recordBalance: true,
    recordEquity: true,
    recordFloatingPnL: true,
    ...members,
  });

/** Attaches a feature to `owner` (`/accounts/{id}`, `/accounts/{id}/copiers/{copierId}`, `/projects/{id}`): its id. */
export const addFeature = async (t: TestService, owner: string, setting: Readonly<Record<string, unknown>>): Promise<string> => {
  const res = await t.call('POST', `${owner}/features`, { body: featureBody(setting) });
  if (res.status !== 200) throw new Error(`adding ${String(setting.type)}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id as string;
};

export const logsOf = async (t: TestService, accountId: string): Promise<LogEntry[]> =>
  (await t.call('GET', `/accounts/${accountId}/logs?limit=1000`)).body as LogEntry[];

/** Waits for the account's newest log entry with `code` (and `category`, when given). */
export const logWith = (t: TestService, accountId: string, code: string, timeoutMs = 5000, category?: string): Promise<LogEntry> =>
  eventually(async () => (await logsOf(t, accountId)).find((l) => l.code === code && (!category || l.category === category)), timeoutMs, `a ${code} log entry`);
