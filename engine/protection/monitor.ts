// The protection monitor: every second, on the service clock, for each account with risk limits or
// profit targets (or triggers still to clear), it reads the account's venue (funds, book, recent
// history), asks the protection aggregate's pure rules what to record (domain/protection), appends
// that to the account's `protection-<accountId>` stream through the command handler with the revision
// it decided on, and closes positions where a trigger says so.
//
// Restarts and replays: the decision is made on the state folded from the stream and appended at the
// revision it was made on, so a trigger recorded once is never recorded again; every event id derives
// from what the event is and when it was decided (protectionEventKey). A CLOSE_ALL trigger's closing is
// recorded before its first close is sent (ProtectionClosingDecided, at the revision decided on): a
// reset through the API that lands after the tick read the stream fails that append, so nothing is
// closed for a trigger the reset ended; a reset after it is after the decision, and the closes under
// way then are not taken back (the next tick sees the reset and sends no more). Closing is idempotent
// too: each close carries a client request id derived from the trigger and the position, and a trigger
// whose closing never finished (a crash, a closed market) is taken up again at the next tick until
// ProtectionPositionsClosed is recorded. While a profit target keeps the account locked in close mode,
// every position or pending order that appears afterwards (placed outside the service, in the broker's
// terminal; the Trading API refuses opens meanwhile) is closed or cancelled at the next tick: the
// decision is recorded first (ProtectionLockedCloseDecided, with a client request id derived from the
// trigger and the position), then the close is sent and its outcome recorded once
// (ProtectionLockedPositionClosed, or ProtectionCloseFailed in the account log, once per refusal, tried
// again every tick while the lock lasts). A crash between the close and its record leaves the decision
// open: the next tick (after the restart) sends the same request id again, which the broker answers
// with the first result. A lock that ends does not drop its open decisions: each is sent once more and
// recorded as closed (or gone) or, refused, as a final ProtectionCloseFailed (the protections read
// model's protection_locked_closes brings the account back to the monitor after a restart, even when
// the lock's rule is gone).
// The close and that loop are closing.ts's, shared with the trade guardrails.
//
// A period starts with the first look inside it: its reference (balance and equity) is what the
// monitor sees then. If the service was down or the account offline at the boundary, the reference is
// read at the first look afterwards and recorded as late (the account logs say so).
import type { Kysely } from 'kysely';
import { v5 as uuidv5 } from 'uuid';
import { systemContext } from '../../domain/shared/command.js';
import type { Observation, ProtectionCommand } from '../../domain/protection/commands.js';
import { type ActiveTrigger, evolve, initialState, lockedCloseKey, protectionDecider, type ProtectionState } from '../../domain/protection/decider.js';
import { historyStartFor, trailingValues } from '../../domain/protection/evaluate.js';
import { type ProtectionEvent, protectionEventKey, protectionStream } from '../../domain/protection/events.js';
import { periodTargetRule, riskLimitRule, type ProtectionRule } from '../../domain/protection/rules.js';
import { isPeriodTargetType, OVERALL_TARGET_TYPE, overallTargetFeature, type OverallTargetSettings } from '../../domain/profitTarget/features.js';
import { RISK_LIMIT_DEFAULTS, type RiskLimitSettings } from '../../domain/riskLimit/settings.js';
import { membersOf } from '../../domain/feature/definition.js';
import type { FeatureSetting } from '../../domain/feature/events.js';
import { activeRiskLimits } from '../../projections/riskLimits/queries.js';
import { KeptRead, type ReadModelMarks } from '../../projections/keptRead.js';
import type { ReadModels } from '../../projections/schema.js';
import { type ConflictRetryPolicy, handleCommand } from '../../store/commandHandler.js';
import { StreamNotFoundError, WrongExpectedVersionError } from '../../store/errors.js';
import { type EventStore, type Position, START } from '../../store/port.js';
import type { AccountConnections } from '../venues/connections.js';
import type { HistoryEntry, VenueConnection } from '../venues/port.js';
import { isDatabaseUnavailable, Recovery, type RecoveryLog } from '../../store/recovery.js';
import { closeAtVenue, finishDecidedCloses } from './closing.js';

/** Fixed forever: the ids of the monitor's events derive from it. */
export const PROTECTION_EVENT_NAMESPACE = '6b1e0f3a-9d24-4c57-b8a2-2f7c5e1d0a93';
const TICK_MS = 1000;
const READ_MODEL_WAIT_MS = 5000;
/** A conflict is not retried with the same observation (decideAndAppend). */
const ONE_ATTEMPT: ConflictRetryPolicy = { maxAttempts: 1, budgetMs: 0, baseMs: 0, capMs: 0 };
const PROFIT_TARGET_TYPES = ['FeatureDailyProfitTargetDTO', 'FeatureWeeklyProfitTargetDTO', 'FeatureMonthlyProfitTargetDTO', OVERALL_TARGET_TYPE];

const hasLockedCloses = (state: ProtectionState): boolean => Object.keys(state.lockedCloses ?? {}).length > 0;

export interface ProtectionMonitorDeps {
  readonly store: EventStore;
  readonly db: Kysely<ReadModels>;
  readonly connections: AccountConnections;
  readonly clock: () => Date;
  /** TIME_ZONE. */
  readonly zone: string;
  readonly waitForReadModels: (position: Position, timeoutMs: number) => Promise<boolean>;
  readonly log: RecoveryLog;
  /** Read-model marks (ProjectionRunner.version): the rules and triggers are read again only when they may have changed. */
  readonly readModelMarks?: ReadModelMarks;
}

interface Cached {
  state: ProtectionState;
  revision: bigint | null;
}

export class ProtectionMonitor {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  private readonly cache = new Map<string, Cached>();
  /** Per account, the highest measured values seen since each anchor (evaluate.ts trailingValues). */
  private readonly peaks = new Map<string, Record<string, number>>();
  /** Close failures recorded by this process: each is recorded once, the closing is retried every tick. */
  private readonly reportedFailures = new Set<string>();
  private waiting: (() => void)[] = [];

  private readonly recovery: Recovery;
  /** The accounts to look at each tick, by rule, and those with triggers or decided closes (read again once their read models moved). */
  private readonly watched: KeptRead<{ readonly rules: ReadonlyMap<string, readonly ProtectionRule[]>; readonly others: readonly string[] }>;

  constructor(private readonly deps: ProtectionMonitorDeps) {
    this.recovery = new Recovery('the protection monitor', deps.log, { action: 'checks again at the next tick' });
    this.watched = new KeptRead(
      ['risk_limits', 'features', 'protections'],
      async () => {
        const rules = await this.rules();
        const withTriggers = await this.deps.db.selectFrom('account_protections').select('account_id').distinct().execute();
        // Closes decided while locked are finished even once the lock ended (and its rule went) before a restart.
        const withCloses = await this.deps.db.selectFrom('protection_locked_closes').select('account_id').distinct().execute();
        return { rules, others: [...withTriggers, ...withCloses].map((r) => r.account_id) };
      },
      deps.readModelMarks,
    );
  }

  start(): void {
    this.timer = setInterval(() => {
      if (this.running || this.stopped) return;
      this.running = this.tick()
        .then(
          () => this.recovery.succeeded(),
          (error: unknown) => void this.recovery.noted(error),
        )
        .finally(() => {
          this.running = null;
        });
    }, TICK_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** Resolves once a whole tick that began after the call has finished (for specs). */
  afterNextTick(): Promise<void> {
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** One look at every account that has rules or triggers. */
  async tick(): Promise<void> {
    const waiters = this.waiting;
    this.waiting = [];
    try {
      const { rules, others } = await this.watched.get();
      const accounts = new Set([...rules.keys(), ...others]);
      for (const [accountId, cached] of this.cache) if (Object.keys(cached.state.triggers).length > 0 || hasLockedCloses(cached.state)) accounts.add(accountId);
      for (const accountId of accounts) {
        if (this.stopped) return;
        await this.check(accountId, rules.get(accountId) ?? []).catch((error: unknown) => {
          if (error instanceof WrongExpectedVersionError) this.cache.delete(accountId);
          else if (isDatabaseUnavailable(error)) throw error;
          else this.deps.log.error(`protection check of account ${accountId} failed`, error);
        });
      }
    } finally {
      for (const resolve of waiters) resolve();
    }
  }

  /** Every active rule, by account: risk limits and profit target features. */
  private async rules(): Promise<Map<string, ProtectionRule[]>> {
    const out = new Map<string, ProtectionRule[]>();
    const add = (accountId: string, rule: ProtectionRule | null) => {
      if (!rule) return;
      const list = out.get(accountId) ?? [];
      list.push(rule);
      out.set(accountId, list);
    };
    for (const row of await activeRiskLimits(this.deps.db)) {
      add(
        row.account_id,
        riskLimitRule(row.id, { ...RISK_LIMIT_DEFAULTS, ...(row.settings as Partial<RiskLimitSettings>) } as RiskLimitSettings, row.copier_id),
      );
    }
    const features = await this.deps.db
      .selectFrom('features')
      .select(['id', 'account_id', 'type', 'setting'])
      .where('scope_kind', '=', 'account')
      .where('type', 'in', PROFIT_TARGET_TYPES)
      .orderBy('created')
      .orderBy('id')
      .execute();
    for (const row of features) {
      if (!row.account_id) continue;
      const members = membersOf<Record<string, unknown>>(row.setting as FeatureSetting);
      if (isPeriodTargetType(row.type)) {
        add(row.account_id, periodTargetRule(row.id, row.type, members));
      } else {
        add(row.account_id, { kind: 'OVERALL_TARGET', id: row.id, settings: { ...overallTargetFeature.defaults, ...members } as OverallTargetSettings });
      }
    }
    return out;
  }

  private async check(accountId: string, rules: readonly ProtectionRule[]): Promise<void> {
    const cached = await this.load(accountId);
    const connection = rules.length > 0 ? this.deps.connections.connection(accountId) : null;
    let now = this.deps.clock().toISOString();
    let observation: Observation | null = null;
    if (connection) {
      const seen = await this.observe(accountId, connection, cached.state, rules);
      if (!seen) return;
      ({ now, observation } = seen);
    }
    await this.decideAndAppend(accountId, cached, {
      type: 'EvaluateProtection',
      data: { accountId, zone: this.deps.zone, rules, observation },
      metadata: this.metadata(accountId, now),
    });
    if (observation) this.rememberPeaks(accountId, cached.state, rules, observation, now);
    if (connection) await this.closeWhereTriggered(accountId, cached, connection, rules);
    // Decided closes are finished (closed, gone, or refused: while locked tried again, once the lock ended final), whatever else the account has.
    const closing = connection ?? (hasLockedCloses(cached.state) ? this.deps.connections.connection(accountId) : null);
    if (closing) await this.finishLockedCloses(accountId, cached, closing);
  }

  /**
   * The account as the rules need it. The history is read before and after the funds: a deposit in
   * between would be counted in one and not the other, so the look is skipped (null) and made again
   * at the next tick.
   */
  private async observe(
    accountId: string,
    connection: VenueConnection,
    state: ProtectionState,
    rules: readonly ProtectionRule[],
  ): Promise<{ now: string; observation: Observation } | null> {
    const historyFrom = historyStartFor(state, rules, this.deps.clock().toISOString(), this.deps.zone);
    const until = () => new Date(this.deps.clock().getTime() + 86_400_000).toISOString();
    const operations = (entries: readonly HistoryEntry[]) =>
      entries
        .filter((e) => e.kind === 'balance')
        .map((e) => e.id)
        .join(',');
    const before = await connection.history(historyFrom, until());
    const now = this.deps.clock().toISOString();
    const info = await connection.accountInformation();
    const book = await connection.positions();
    const history = await connection.history(historyFrom, until());
    if (operations(before) !== operations(history)) return null;
    return {
      now,
      observation: {
        balance: info.balance,
        equity: info.equity,
        currency: info.currency,
        book: book.map((p) => ({
          id: p.id,
          kind: p.kind === 'position' ? 'position' : 'order',
          symbol: p.symbol,
          openTime: p.openTime,
          result: p.kind === 'position' ? p.profit + p.swap + p.commission : 0,
        })),
        historyFrom,
        balanceOperations: history.flatMap((e) => (e.kind === 'balance' ? [{ id: e.id, time: e.time, amount: e.amount }] : [])),
        closedTrades: history.flatMap((e) =>
          e.kind === 'trade' ? [{ symbol: e.symbol, openTime: e.openTime, closeTime: e.closeTime, result: e.profit + e.swap + e.commission }] : [],
        ),
        peaks: this.peaks.get(accountId) ?? {},
      },
    };
  }

  private rememberPeaks(accountId: string, state: ProtectionState, rules: readonly ProtectionRule[], observation: Observation, now: string): void {
    const current = trailingValues(state, rules, observation, now, this.deps.zone);
    const known = this.peaks.get(accountId) ?? {};
    const next: Record<string, number> = {};
    for (const [key, value] of Object.entries(current)) next[key] = Math.max(known[key] ?? value, value);
    this.peaks.set(accountId, next);
  }

  /**
   * Closes (or cancels) what a CLOSE_ALL trigger covers, until a pass finishes without a refusal: the
   * account's book, its positions on the trigger's symbol, or what the copier of a copier's risk limit
   * copied (its open copies in the copies read model).
   */
  private async closeWhereTriggered(accountId: string, cached: Cached, connection: VenueConnection, rules: readonly ProtectionRule[]): Promise<void> {
    for (const trigger of Object.values(cached.state.triggers)) {
      if (trigger.action !== 'CLOSE_ALL') continue;
      if (trigger.closed) {
        if (trigger.ruleKind !== 'RISK_LIMIT') await this.closeWhileLocked(accountId, cached, connection, trigger);
        continue;
      }
      const rule = rules.find((r) => r.id === trigger.ruleId);
      const copierId = rule?.kind === 'RISK_LIMIT' ? (rule.copierId ?? null) : null;
      const copied = copierId === null ? null : await this.openCopiesOf(accountId, copierId);
      const book = (await connection.positions()).filter((item) => copied === null || copied.has(item.id));
      if (trigger.closing !== true) {
        await this.decideAndAppend(accountId, cached, {
          type: 'DecideClosing',
          data: { accountId, triggerId: trigger.triggerId },
          metadata: this.metadata(accountId, this.deps.clock().toISOString()),
        });
        if (cached.state.triggers[trigger.triggerId]?.closing !== true) continue;
      }
      const closedPositions: string[] = [];
      const cancelledOrders: string[] = [];
      const failures: { positionId: string; code: string; message: string }[] = [];
      for (const item of book) {
        if (trigger.symbol !== null && item.symbol.toUpperCase() !== trigger.symbol) continue;
        const requestId = uuidv5(`${trigger.triggerId}/${trigger.at}/${item.id}`, PROTECTION_EVENT_NAMESPACE);
        const outcome = await closeAtVenue(connection, item, requestId);
        if (outcome.type === 'closed') (item.kind === 'position' ? closedPositions : cancelledOrders).push(item.id);
        else if (outcome.type === 'failed') failures.push({ positionId: item.id, code: outcome.code, message: outcome.message });
      }
      const fresh = failures.filter((f) => !this.reportedFailures.has(`${trigger.triggerId}/${f.positionId}/${f.code}`));
      if (failures.length > 0 && fresh.length === 0) continue;
      await this.decideAndAppend(accountId, cached, {
        type: 'RecordCloseOutcome',
        data: { accountId, triggerId: trigger.triggerId, closedPositions, cancelledOrders, failures: fresh },
        metadata: this.metadata(accountId, this.deps.clock().toISOString()),
      });
      for (const f of fresh) this.reportedFailures.add(`${trigger.triggerId}/${f.positionId}/${f.code}`);
    }
  }

  /**
   * A target locks the account in close mode and its closing is done: whatever opened since, ours or
   * placed outside the service, is closed (positions) or cancelled (pending orders), each recorded once.
   */
  private async closeWhileLocked(accountId: string, cached: Cached, connection: VenueConnection, trigger: ActiveTrigger): Promise<void> {
    for (const item of await connection.positions()) {
      if (trigger.symbol !== null && item.symbol.toUpperCase() !== trigger.symbol) continue;
      if (cached.state.lockedCloses?.[lockedCloseKey(trigger.triggerId, item.id)]) continue;
      await this.decideAndAppend(accountId, cached, {
        type: 'DecideLockedClose',
        data: {
          accountId,
          triggerId: trigger.triggerId,
          positionId: item.id,
          kind: item.kind === 'position' ? 'position' : 'order',
          symbol: item.symbol,
          volume: item.volume,
          outside: item.clientOrderId === null,
          requestId: uuidv5(`${trigger.triggerId}/${trigger.at}/${item.id}`, PROTECTION_EVENT_NAMESPACE),
        },
        metadata: this.metadata(accountId, this.deps.clock().toISOString()),
      });
    }
  }

  /** Sends the closes decided while locked (this tick's, and those a crash left unfinished) and records each outcome. */
  private async finishLockedCloses(accountId: string, cached: Cached, connection: VenueConnection): Promise<void> {
    await finishDecidedCloses(
      connection,
      Object.values(cached.state.lockedCloses ?? {}),
      (close) => ({ kind: close.kind, id: close.positionId, requestId: close.requestId }),
      (close, outcome) =>
        this.decideAndAppend(accountId, cached, {
          type: 'RecordLockedClose',
          data: { accountId, triggerId: close.triggerId, positionId: close.positionId, outcome: outcome.type === 'closed' ? { type: 'closed' } : outcome },
          metadata: this.metadata(accountId, this.deps.clock().toISOString()),
        }),
    );
  }

  /** The slave positions and pending orders a copier holds open on the account. */
  private async openCopiesOf(accountId: string, copierId: string): Promise<Set<string>> {
    const rows = await this.deps.db
      .selectFrom('copies')
      .select('slave_position_id')
      .where('copier_id', '=', copierId)
      .where('slave_account_id', '=', accountId)
      .where('status', '=', 'open')
      .execute();
    return new Set(rows.map((r) => r.slave_position_id));
  }

  /** The account's protection state, caught up with its stream (resets through the API land there too). */
  private async load(accountId: string): Promise<Cached> {
    const cached = this.cache.get(accountId) ?? { state: initialState, revision: null };
    try {
      const from = cached.revision === null ? START : cached.revision + 1n;
      for await (const { event } of this.deps.store.readStream(protectionStream(accountId), { fromRevision: from })) {
        cached.state = evolve(cached.state, { type: event.type, data: event.data } as ProtectionEvent);
        cached.revision = event.revision;
      }
    } catch (error) {
      if (!(error instanceof StreamNotFoundError)) throw error;
    }
    this.cache.set(accountId, cached);
    return cached;
  }

  /**
   * Decides on the cached state and appends at the revision it was decided on, through the command
   * handler; then waits for the read models, so the copy engine sees a new trigger before any position
   * is closed for it. One attempt only: the observation (its history window, the peaks) was read for
   * the state it is decided on, so when a reset through the API got there first the append fails, the
   * tick drops the cache, and the next tick looks again and decides again.
   */
  private async decideAndAppend(accountId: string, cached: Cached, command: ProtectionCommand): Promise<void> {
    const result = await handleCommand(this.deps.store, protectionStream(accountId), protectionDecider, command, {
      known: cached,
      eventId: (e) => uuidv5(protectionEventKey(e), PROTECTION_EVENT_NAMESPACE),
      eventMetadata: { correlationId: `protection:${accountId}`, receivedAt: command.metadata.now },
      retry: ONE_ATTEMPT,
    });
    cached.state = result.state;
    cached.revision = result.nextExpectedRevision;
    if (result.position) await this.deps.waitForReadModels(result.position, READ_MODEL_WAIT_MS);
  }

  private metadata(accountId: string, now: string) {
    return { now, context: systemContext(`protection:${accountId}`) };
  }
}
