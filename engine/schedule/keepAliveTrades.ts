// The keep-alive executor (FeatureKeepAliveTradeDTO set on an account, the reference's scope; rules in
// domain/copy/features/keepAliveTrade.ts, records in domain/keepAlive): every second, for each account
// with the feature, it decides each firing of the feature's cron expressions once (a trade, or a skip
// with its reason), places the decided trade, and closes each keep-alive trade closeAfterInSeconds after
// it opened. It needs no copier: a master, a lone account and an account with several copiers each get
// one trade per firing. (A keep-alive set on a copier is that copier's, placed by the copy engine's
// management ticks beside this one.)
//
// It runs under a lease (store/postgres/leases.ts): of several instances of the service one places the
// keep-alive trades at a time. Nothing is placed twice: a firing is recorded once (the decider, event ids
// derived from the firing), the trade is recorded before its order is sent, and the order carries a
// client order id derived from the account, the feature and the firing, so a crash between the order and
// its record, a restart or a replay sends the same id again, which the broker answers with the first
// result. A refusal is recorded once per code and tried again every second until the next firing (then
// recorded as final); a close refused is tried again every second. Every firing and every refusal has its
// line in the account's log.
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import { v5 as uuidv5 } from 'uuid';
import {
  accountKeepAliveFiring,
  KEEP_ALIVE_TRADE,
  keepAliveTrade,
  type KeepAliveTradeSettings,
  latestFiring,
} from '../../domain/copy/features/keepAliveTrade.js';
import { membersOf } from '../../domain/feature/definition.js';
import type { FeatureSetting } from '../../domain/feature/events.js';
import { type KeepAliveCommand, keepAliveDecider, type KeepAliveState } from '../../domain/keepAlive/decider.js';
import { KEEP_ALIVE_ORDER_PREFIX, type KeepAliveEvent, keepAliveEventKey, keepAliveStream } from '../../domain/keepAlive/events.js';
import { systemContext } from '../../domain/shared/command.js';
import { KeptRead, type ReadModelMarks } from '../../projections/keptRead.js';
import type { ReadModels } from '../../projections/schema.js';
import { type CachedAggregate, CachedAggregates } from '../../store/cachedAggregates.js';
import type { Leases } from '../../store/postgres/leases.js';
import type { EventStore, Position } from '../../store/port.js';
import type { JobRounds } from '../../store/postgres/jobRounds.js';
import { LeasedLoop } from '../../store/postgres/leasedLoop.js';
import { isDatabaseUnavailable, Recovery, type RecoveryLog } from '../../store/recovery.js';
import { closeAtVenue } from '../protection/closing.js';
import type { AccountConnections } from '../venues/connections.js';
import { VenueError, type VenueConnection } from '../venues/port.js';

/** Fixed forever: the ids of the executor's events and the client ids of its orders and closes derive from it. */
export const KEEP_ALIVE_NAMESPACE = '2c9e4b71-0f3d-4a86-9d52-6e1b8a7c3f04';
export const KEEP_ALIVE_LEASE = 'keep-alive-trades';
const TICK_MS = 1000;
const READ_MODEL_WAIT_MS = 5000;

export interface KeepAliveDeps {
  readonly store: EventStore;
  readonly db: Kysely<ReadModels>;
  readonly connections: Pick<AccountConnections, 'connection'>;
  readonly leases: Leases;
  /** The engine's clock. */
  readonly clock: () => Date;
  readonly waitForReadModels: (position: Position, timeoutMs: number) => Promise<boolean>;
  readonly log: RecoveryLog;
  /** Where its rounds are recorded for /ready (store/postgres/jobRounds.ts); left out: not watched. */
  readonly rounds?: JobRounds;
  /** A read model's mark (ProjectionRunner.version): a tick's reads are kept while theirs stay; left out: every tick reads. */
  readonly readModelMarks?: ReadModelMarks;
}

interface FeatureRow {
  readonly id: string;
  readonly accountId: string;
  readonly configuredAt: string;
  readonly settings: KeepAliveTradeSettings;
}

/** The client order id of a firing's trade: the same for every attempt, after a restart too. */
export const keepAliveOrderId = (accountId: string, featureId: string, firing: string): string =>
  `${KEEP_ALIVE_ORDER_PREFIX}${uuidv5(`open/${accountId}/${featureId}/${firing}`, KEEP_ALIVE_NAMESPACE)}`;

/** The client request id of a keep-alive trade's close. */
const keepAliveCloseId = (accountId: string, positionId: string): string => uuidv5(`close/${accountId}/${positionId}`, KEEP_ALIVE_NAMESPACE);

export class KeepAliveTrades {
  private readonly loop: LeasedLoop;
  private readonly aggregates: CachedAggregates<KeepAliveCommand, KeepAliveEvent, KeepAliveState>;
  private readonly recovery: Recovery;
  private waiting: (() => void)[] = [];
  /** The accounts' keep-alive features, oldest first. */
  private readonly features: KeptRead<
    readonly { readonly id: string; readonly account_id: string | null; readonly setting: unknown; readonly created: Date }[]
  >;
  /** The accounts holding a keep-alive trade (a position with our client order id). */
  private readonly holding: KeptRead<readonly { readonly account_id: string }[]>;

  constructor(private readonly deps: KeepAliveDeps) {
    this.features = new KeptRead(
      ['features'],
      () =>
        deps.db
          .selectFrom('features')
          .select(['id', 'account_id', 'setting', 'created'])
          .where('type', '=', KEEP_ALIVE_TRADE)
          .where('scope_kind', '=', 'account')
          .orderBy('created')
          .orderBy('id')
          .execute(),
      deps.readModelMarks,
    );
    this.holding = new KeptRead(
      ['positions'],
      () => deps.db.selectFrom('positions').select('account_id').distinct().where('client_order_id', 'like', `${KEEP_ALIVE_ORDER_PREFIX}%`).execute(),
      deps.readModelMarks,
    );
    this.aggregates = new CachedAggregates({
      store: deps.store,
      decider: keepAliveDecider,
      streamOf: keepAliveStream,
      eventKey: keepAliveEventKey,
      namespace: KEEP_ALIVE_NAMESPACE,
      correlationOf: (accountId) => `keep-alive:${accountId}`,
      waitForReadModels: deps.waitForReadModels,
      readModelWaitMs: READ_MODEL_WAIT_MS,
    });
    this.recovery = new Recovery('the keep-alive executor', deps.log, { action: 'looks again at the next tick' });
    this.loop = new LeasedLoop({
      leases: deps.leases,
      lease: KEEP_ALIVE_LEASE,
      everyMs: TICK_MS,
      rounds: deps.rounds,
      round: () => this.tick(),
      succeeded: () => this.recovery.succeeded(),
      failed: (error) => void this.recovery.noted(error),
      // A new holder reads every stream again: another instance may have recorded meanwhile.
      won: () => this.aggregates.clear(),
    });
  }

  start(tickMs = TICK_MS): void {
    this.loop.start(tickMs);
  }

  async stop(): Promise<void> {
    await this.loop.stop();
  }

  /** Resolves once a whole tick that began after the call has finished (for specs). */
  afterNextTick(): Promise<void> {
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** One look at every account with a keep-alive feature, or a keep-alive trade still open or to place. */
  async tick(): Promise<void> {
    const waiters = this.waiting;
    this.waiting = [];
    try {
      const rows = await this.features.get();
      const byAccount = new Map<string, FeatureRow>();
      for (const row of rows) {
        if (!row.account_id || byAccount.has(row.account_id)) continue;
        byAccount.set(row.account_id, {
          id: row.id,
          accountId: row.account_id,
          configuredAt: new Date(row.created).toISOString(),
          settings: { ...keepAliveTrade.defaults, ...membersOf<Partial<KeepAliveTradeSettings>>(row.setting as FeatureSetting) } as KeepAliveTradeSettings,
        });
      }
      const accounts = new Set(byAccount.keys());
      // A trade whose feature went is still closed on time (after a restart too: its position carries our client order id).
      for (const [accountId, cached] of this.aggregates.entries())
        if (cached.state.pending || Object.keys(cached.state.open).length > 0) accounts.add(accountId);
      const open = await this.holding.get();
      for (const row of open) accounts.add(row.account_id);
      for (const accountId of accounts) {
        await this.check(accountId, byAccount.get(accountId) ?? null).catch((error: unknown) => {
          this.aggregates.forget(accountId);
          if (isDatabaseUnavailable(error)) throw error;
          this.deps.log.error(`keep-alive check of account ${accountId} failed`, error);
        });
      }
    } finally {
      for (const resolve of waiters) resolve();
    }
  }

  private async check(accountId: string, feature: FeatureRow | null): Promise<void> {
    // Offline: the firing waits (tried every second until the next one).
    const connection = this.deps.connections.connection(accountId);
    if (!connection) return;
    const cached = await this.aggregates.load(accountId);
    await this.closeDue(accountId, cached, connection);
    if (feature) await this.decideFiring(accountId, cached, connection, feature);
    await this.placeDecided(accountId, cached, connection, feature);
  }

  /** Closes each keep-alive trade whose time has come, and records the outcome. */
  private async closeDue(accountId: string, cached: CachedAggregate<KeepAliveState>, connection: VenueConnection): Promise<void> {
    const now = this.deps.clock().getTime();
    for (const trade of Object.values(cached.state.open)) {
      if (Date.parse(trade.openedAt) + trade.closeAfterInSeconds * 1000 > now) continue;
      const outcome = await closeAtVenue(connection, { kind: 'position', id: trade.positionId }, keepAliveCloseId(accountId, trade.positionId));
      await this.aggregates.record(accountId, cached, {
        type: 'RecordKeepAliveClose',
        data: { accountId, positionId: trade.positionId, outcome },
        metadata: this.metadata(accountId),
      });
    }
  }

  /** The latest firing of the account's feature, decided once: a trade, or a skip with its reason. */
  private async decideFiring(accountId: string, cached: CachedAggregate<KeepAliveState>, connection: VenueConnection, feature: FeatureRow): Promise<void> {
    const state = cached.state;
    if (state.pending !== null) return;
    const now = this.deps.clock().toISOString();
    const due = latestFiring(feature.settings.cronExpressions, Date.parse(now));
    const last = state.lastFiring[feature.id] ?? null;
    if (!due || due.at < Date.parse(feature.configuredAt) || (last !== null && Date.parse(last) >= due.at)) return;
    const blocks = await this.blocks(accountId, now);
    const found = accountKeepAliveFiring(feature.settings, {
      now,
      configuredAt: feature.configuredAt,
      lastFiring: last,
      previousOpen: Object.keys(state.open).length > 0,
      lastTradeAt: feature.settings.onlyIfInactive ? await this.lastTradeAt(accountId, state.recent) : null,
      symbols: await connection.symbols(),
      blocked: (symbol) => {
        const block = blocks.find((b) => b.symbol === null || b.symbol.toUpperCase() === symbol.toUpperCase());
        return block ? { reason: block.rule_kind === 'RISK_LIMIT' ? 'RISK_LIMIT_HIT' : 'PROFIT_TARGET_LOCKED', message: block.message } : null;
      },
    });
    if (!found) return;
    const { firing, decision } = found;
    await this.aggregates.record(accountId, cached, {
      type: 'DecideKeepAliveFiring',
      data: {
        accountId,
        featureId: feature.id,
        firing,
        decision:
          decision.type === 'skip'
            ? decision
            : {
                type: 'trade',
                order: {
                  symbol: decision.symbol,
                  side: decision.side,
                  volume: decision.volume,
                  closeAfterInSeconds: feature.settings.closeAfterInSeconds,
                  clientOrderId: keepAliveOrderId(accountId, feature.id, firing),
                },
              },
      },
      metadata: this.metadata(accountId),
    });
  }

  /** Places the decided trade (again with its client order id after a crash) and records the outcome. */
  private async placeDecided(
    accountId: string,
    cached: CachedAggregate<KeepAliveState>,
    connection: VenueConnection,
    feature: FeatureRow | null,
  ): Promise<void> {
    const pending = cached.state.pending;
    if (!pending) return;
    const firing = { accountId, featureId: pending.featureId, firing: pending.firing };
    try {
      const request = { symbol: pending.symbol, orderType: pending.side === 'Buy' ? ('buy' as const) : ('sell' as const), volume: pending.volume };
      const placed = await connection.placeOrder(request, pending.clientOrderId);
      const positionId = placed.status === 'filled' ? placed.positionId : null;
      if (placed.status === 'filled' && positionId !== null) {
        await this.aggregates.record(accountId, cached, {
          type: 'RecordKeepAliveOpen',
          data: { ...firing, outcome: { type: 'opened', positionId, price: placed.price, time: placed.time } },
          metadata: this.metadata(accountId),
        });
        return;
      }
      await this.refused(accountId, cached, feature, '[NOT_OPENED]', 'the broker opened no position for the order');
    } catch (error) {
      if (isDatabaseUnavailable(error)) throw error;
      await this.refused(
        accountId,
        cached,
        feature,
        error instanceof VenueError ? error.code : '[OPEN_FAILED]',
        error instanceof Error ? error.message : String(error),
      );
    }
  }

  /** A refused open: tried again until the next firing of its feature (or its feature went); then final. */
  private async refused(accountId: string, cached: CachedAggregate<KeepAliveState>, feature: FeatureRow | null, code: string, message: string): Promise<void> {
    const pending = cached.state.pending!;
    const due = feature === null || feature.id !== pending.featureId ? null : latestFiring(feature.settings.cronExpressions, this.deps.clock().getTime());
    const final = due === null || due.at > Date.parse(pending.firing);
    await this.aggregates.record(accountId, cached, {
      type: 'RecordKeepAliveOpen',
      data: { accountId, featureId: pending.featureId, firing: pending.firing, outcome: { type: 'failed', code, message, final } },
      metadata: this.metadata(accountId),
    });
  }

  /** What stops new trades on the account now: its risk limits hit and profit targets locked. */
  private async blocks(accountId: string, now: string) {
    return this.deps.db
      .selectFrom('account_protections')
      .select(['rule_kind', 'symbol', 'message'])
      .where('account_id', '=', accountId)
      .where((eb) => eb.or([eb('until', 'is', null), eb('until', '>', new Date(now))]))
      .orderBy('at')
      .execute();
  }

  /** When the account last opened or closed a position, its keep-alive trades aside. */
  private async lastTradeAt(accountId: string, keepAlive: readonly string[]): Promise<string | null> {
    const ours = keepAlive.length > 0 ? [...keepAlive] : [''];
    const open = await this.deps.db
      .selectFrom('positions')
      .select(sql<Date | null>`max(open_time)`.as('at'))
      .where('account_id', '=', accountId)
      .where('kind', '=', 'position')
      .where('id', 'not in', ours)
      .executeTakeFirst();
    const closed = await this.deps.db
      .selectFrom('closed_trades')
      .select(sql<Date | null>`max(greatest(open_time, close_time))`.as('at'))
      .where('account_id', '=', accountId)
      .where('position_id', 'not in', ours)
      .executeTakeFirst();
    const times = [open?.at, closed?.at].filter((t): t is Date => t !== null && t !== undefined).map((t) => new Date(t).getTime());
    return times.length === 0 ? null : new Date(Math.max(...times)).toISOString();
  }

  private metadata(accountId: string) {
    return { now: this.deps.clock().toISOString(), context: systemContext(`keep-alive:${accountId}`) };
  }
}
