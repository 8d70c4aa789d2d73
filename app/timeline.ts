// The auditor's timeline (issue 20): an account's events in the order of `$all`, each with who caused
// it (an API key, the copy engine, the venue, the protection monitors, a schedule, the service itself)
// and a summary of the account after it; and the account as it was at any instant (settings, status,
// positions, pending orders, balance, copiers), computed by replaying those events: no snapshot table.
//
// An account's events are those of its own streams: `account-<id>` (settings, status), `positions-<id>`
// (what its venue reported, trading requests), `protection-<id>` (risk limits and profit targets at
// work), and for every copier that copies INTO it, `copier-<id>` (its settings) and `copies-<id>` (what
// the engine did or skipped, and why). Instants are the store's recording times (`created`).
import { sql } from 'kysely';
import { accountDecider, type Account } from '../domain/account/decider.js';
import { accountStatuses } from '../domain/account/enums.js';
import { type AccountEvent, accountStream } from '../domain/account/events.js';
import type { CopierEvent } from '../domain/copier/events.js';
import { copierStream } from '../domain/copier/events.js';
import type { CopierSettings } from '../domain/copier/settings.js';
import { copiesStream } from '../domain/copy/events.js';
import { type PendingOrderData, type PositionData, type PositionsEvent, positionsStream } from '../domain/positions/events.js';
import { protectionStream } from '../domain/protection/events.js';
import { listCopiers } from '../projections/copiers/queries.js';
import { StreamNotFoundError } from '../store/errors.js';
import { comparePositions, type Position, type RecordedEvent } from '../store/port.js';
import type { Services } from './services.js';

export type CauseKind = 'API_KEY' | 'ENGINE' | 'VENUE' | 'PROTECTION' | 'SCHEDULE' | 'SYSTEM';

export interface Cause {
  readonly kind: CauseKind;
  readonly apiKeyId: string | null;
  readonly clientIp: string | null;
  readonly method: string | null;
  readonly path: string | null;
  readonly correlationId: string | null;
}

export interface CopierAtInstant {
  readonly id: string;
  readonly fromAccountId: string;
  readonly settings: CopierSettings;
  readonly symbolMappings: Readonly<Record<string, string>>;
}

export interface AccountAtInstant {
  /** Whether the account existed at the instant (created before it). */
  readonly exists: boolean;
  readonly projectId: string | null;
  readonly status: { readonly id: number; readonly name: string } | null;
  /** Its settings, secrets masked. */
  readonly settings: Record<string, unknown> | null;
  /** Deposits and withdrawals plus the closed trades' profit, swap and commission, as the venue reported them. */
  readonly balance: number;
  readonly connected: boolean;
  readonly positions: readonly PositionData[];
  readonly pendingOrders: readonly PendingOrderData[];
  readonly copiers: readonly CopierAtInstant[];
}

export interface TimelineEntry {
  /** `commit:prepare`: the event's place in `$all`. */
  readonly position: string;
  readonly time: string;
  readonly stream: string;
  readonly revision: string;
  readonly type: string;
  readonly cause: Cause;
  readonly data: unknown;
  readonly after: {
    readonly status: string | null;
    readonly balance: number;
    readonly openPositions: number;
    readonly pendingOrders: number;
    readonly copiers: number;
  };
}

/** Event data with every secret masked (ciphertexts, passwords). */
export const maskSecrets = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value ?? null), (key, v: unknown) => (/ciphertext$|password$/i.test(key) && v !== null ? '***' : v)) as unknown;

export const causeOf = (metadata: Readonly<Record<string, unknown>>): Cause => {
  const text = (name: string): string | null => (typeof metadata[name] === 'string' ? (metadata[name] as string) : null);
  const correlationId = text('correlationId');
  const apiKeyId = text('apiKeyId');
  const c = correlationId ?? '';
  const kind: CauseKind = apiKeyId
    ? 'API_KEY'
    : c.startsWith('copy:')
      ? 'ENGINE'
      : c.startsWith('venue:')
        ? 'VENUE'
        : c.startsWith('protection:') || c.startsWith('guardrails:')
          ? 'PROTECTION'
          : c.startsWith('maintenance:')
            ? 'SCHEDULE'
            : 'SYSTEM';
  return { kind, apiKeyId, clientIp: text('clientIp'), method: text('method'), path: text('path'), correlationId };
};

/** The fold of an account's events: what the timeline and the state at an instant show. */
class AccountFold {
  account: Account = accountDecider.initialState;
  balance = 0;
  connected = false;
  readonly positions = new Map<string, PositionData>();
  readonly orders = new Map<string, PendingOrderData>();
  readonly copiers = new Map<string, CopierAtInstant>();

  apply(event: RecordedEvent): void {
    if (event.streamId.startsWith('account-')) {
      this.account = accountDecider.evolve(this.account, { type: event.type, data: event.data } as AccountEvent);
      return;
    }
    if (event.streamId.startsWith('positions-')) return this.applyPositions({ type: event.type, data: event.data } as PositionsEvent);
    if (event.streamId.startsWith('copier-')) return this.applyCopier({ type: event.type, data: event.data } as CopierEvent);
  }

  private applyPositions(e: PositionsEvent): void {
    switch (e.type) {
      case 'PositionOpened':
      case 'PositionIncreased':
      case 'PositionModified':
        this.positions.set(e.data.position.positionId, e.data.position);
        return;
      case 'PositionPartiallyClosed':
        this.positions.set(e.data.position.positionId, e.data.position);
        this.balance += e.data.trade.profit + e.data.trade.swap + e.data.trade.commission;
        return;
      case 'PositionClosed':
        this.positions.delete(e.data.trade.positionId);
        this.balance += e.data.trade.profit + e.data.trade.swap + e.data.trade.commission;
        return;
      case 'PendingOrderPlaced':
      case 'PendingOrderModified':
        this.orders.set(e.data.order.orderId, e.data.order);
        return;
      case 'PendingOrderFilled':
      case 'PendingOrderCancelled':
        this.orders.delete(e.data.order.orderId);
        return;
      case 'BalanceChanged':
        this.balance += e.data.operation.amount;
        return;
      case 'VenueConnected':
        this.connected = true;
        return;
      case 'VenueDisconnected':
      case 'VenueConnectionFailed':
        this.connected = false;
        return;
      default:
        return;
    }
  }

  private applyCopier(e: CopierEvent): void {
    const current = this.copiers.get(e.data.copierId);
    switch (e.type) {
      case 'CopierCreated':
        this.copiers.set(e.data.copierId, { id: e.data.copierId, fromAccountId: e.data.fromAccountId, settings: e.data.settings, symbolMappings: {} });
        return;
      case 'CopierUpdated':
        if (current) this.copiers.set(current.id, { ...current, settings: { ...current.settings, ...e.data.changes } });
        return;
      case 'CopierSymbolMappingsSet':
        if (current) this.copiers.set(current.id, { ...current, symbolMappings: e.data.mappings });
        return;
      case 'CopierDeleted':
        this.copiers.delete(e.data.copierId);
        return;
      default:
        return;
    }
  }

  get statusName(): string | null {
    return this.account.exists ? (accountStatuses.find((s) => s.id === this.account.status)?.name ?? null) : null;
  }

  summary(): TimelineEntry['after'] {
    return {
      status: this.statusName,
      balance: round(this.balance),
      openPositions: this.positions.size,
      pendingOrders: this.orders.size,
      copiers: this.copiers.size,
    };
  }

  state(): AccountAtInstant {
    const a = this.account;
    return {
      exists: a.exists,
      projectId: a.exists ? a.projectId : null,
      status: a.exists ? { id: a.status, name: this.statusName ?? '' } : null,
      settings: a.settings ? (maskSecrets(a.settings) as Record<string, unknown>) : null,
      balance: round(this.balance),
      connected: this.connected,
      positions: [...this.positions.values()],
      pendingOrders: [...this.orders.values()],
      copiers: [...this.copiers.values()].map((c) => ({ ...c, settings: maskSecrets(c.settings) as CopierSettings })),
    };
  }
}

const round = (n: number): number => Math.round(n * 100) / 100;

/** The copiers that ever copied into the account, deleted ones too (EventStoreDB: those the copiers read model holds now). */
const copierIdsInto = async (services: Pick<Services, 'db' | 'config'>, projectId: string, accountId: string): Promise<string[]> => {
  if (services.config.eventStoreConnectionString) return (await listCopiers(services.db, projectId, accountId)).map((c) => c.id);
  const { rows } = await sql<{ stream_name: string }>`
    SELECT DISTINCT stream_name FROM es_events WHERE event_type = 'CopierCreated' AND data->>'toAccountId' = ${accountId}`.execute(services.db);
  return rows.map((r) => r.stream_name.slice('copier-'.length));
};

const readAll = async (services: Pick<Services, 'store'>, stream: string): Promise<RecordedEvent[]> => {
  const events: RecordedEvent[] = [];
  try {
    for await (const { event } of services.store.readStream(stream)) events.push(event);
  } catch (error) {
    if (!(error instanceof StreamNotFoundError)) throw error;
  }
  return events;
};

/** The account's events in `$all` order, or null when the account is not one of the project's. */
const accountEvents = async (services: Pick<Services, 'db' | 'config' | 'store'>, projectId: string, accountId: string): Promise<RecordedEvent[] | null> => {
  const own = await readAll(services, accountStream(accountId));
  const created = own.find((e) => e.type === 'AccountCreated');
  if (!created || (created.data as { projectId?: string }).projectId !== projectId) return null;
  const copiers = await copierIdsInto(services, projectId, accountId);
  const streams = [positionsStream(accountId), protectionStream(accountId), ...copiers.flatMap((id) => [copierStream(id), copiesStream(id)])];
  const rest = await Promise.all(streams.map((s) => readAll(services, s)));
  return [...own, ...rest.flat()].sort((a, b) => comparePositions(a.position, b.position));
};

export interface TimelinePage {
  readonly entries: readonly TimelineEntry[];
  /** Events of the account up to `until` (all of them without it). */
  readonly total: number;
}

/** The account's events up to `until` (inclusive), `offset` and `limit` from the oldest; null: no such account in the project. */
export const accountTimeline = async (
  services: Pick<Services, 'db' | 'config' | 'store'>,
  projectId: string,
  accountId: string,
  options: { until?: Date | null; offset: number; limit: number },
): Promise<TimelinePage | null> => {
  const events = await accountEvents(services, projectId, accountId);
  if (!events) return null;
  const fold = new AccountFold();
  const entries: TimelineEntry[] = [];
  let total = 0;
  for (const event of events) {
    if (options.until && event.created > options.until) continue;
    fold.apply(event);
    total += 1;
    if (total <= options.offset || entries.length >= options.limit) continue;
    entries.push({
      position: `${event.position.commit}:${event.position.prepare}`,
      time: event.created.toISOString(),
      stream: event.streamId,
      revision: event.revision.toString(),
      type: event.type,
      cause: causeOf(event.metadata),
      data: maskSecrets(event.data),
      after: fold.summary(),
    });
  }
  return { entries, total };
};

export interface StateAtInstant {
  readonly instant: string;
  readonly eventsReplayed: number;
  readonly lastEvent: { readonly position: string; readonly time: string; readonly type: string } | null;
  readonly account: AccountAtInstant;
}

/**
 * Where a replay stops: at an instant (the events recorded at or before it, to the millisecond: the
 * store's microseconds are cut to the millisecond both sides), or right after one event named by its
 * `$all` position (exact even when several events share a millisecond, as a trading request and its fill
 * can).
 */
export type ReplayEnd = { readonly instant: Date } | { readonly position: Position };

/** The account as its events up to `end` (inclusive) make it; null: no such account in the project. */
export const accountStateAt = async (
  services: Pick<Services, 'db' | 'config' | 'store'>,
  projectId: string,
  accountId: string,
  end: ReplayEnd,
): Promise<StateAtInstant | null> => {
  const events = await accountEvents(services, projectId, accountId);
  if (!events) return null;
  const fold = new AccountFold();
  let replayed = 0;
  let last: RecordedEvent | null = null;
  const included = 'position' in end ? (e: RecordedEvent) => comparePositions(e.position, end.position) <= 0 : (e: RecordedEvent) => e.created <= end.instant;
  for (const event of events) {
    if (!included(event)) continue;
    fold.apply(event);
    replayed += 1;
    last = event;
  }
  const instant = 'position' in end ? (last?.created ?? new Date(0)) : end.instant;
  return {
    instant: instant.toISOString(),
    eventsReplayed: replayed,
    lastEvent: last ? { position: `${last.position.commit}:${last.position.prepare}`, time: last.created.toISOString(), type: last.type } : null,
    account: fold.state(),
  };
};
