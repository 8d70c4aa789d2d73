// The copy engine (ARCHITECTURE.md, "Engine"): an RxJS pipeline over `$all` that turns the position
// events of master accounts into slave orders.
//
//   store events (positions-*, copier-*) + open retries
//     -> route: the master account each belongs to
//     -> groupBy master, concatMap: one master's events strictly in order; masters in parallel
//     -> per event: wait until the read models include everything before it, decide for every
//        copier of the master (pure rules, domain/copy), execute at each slave's venue in parallel,
//        append the outcome to the copier's copies stream
//
// Exactly once per (master event, copier): the slave requests carry deterministic client ids, so a
// repeat gets the venue's first answer; the outcome of one event for one copier is one append with
// deterministic event ids; and an event whose outcome a copier's stream already holds is not handled
// again (each append records the `$all` position of its cause). The engine's checkpoint only says
// where to resume reading after a restart.
import { v5 as uuidv5 } from 'uuid';
import { concatMap, filter, from, groupBy, merge, mergeMap, Observable, Subject, type Subscription as RxSubscription } from 'rxjs';
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import { COPIER_STREAM_PREFIX, type CopierEvent } from '../../domain/copier/events.js';
import type { CopierSettings } from '../../domain/copier/settings.js';
import { decideCopy } from '../../domain/copy/decision.js';
import { copiesStream, type CopyEvent, type CopySource } from '../../domain/copy/events.js';
import type { MasterEvent, OpenAction, SlaveCopy } from '../../domain/copy/types.js';
import { accountIdOfPositionsStream, POSITIONS_STREAM_PREFIX, type PositionsEvent } from '../../domain/positions/events.js';
import type { ReadModels } from '../../projections/schema.js';
import {
  comparePositions,
  type EventStore,
  type Position,
  positionFromString,
  positionToString,
  type RecordedEvent,
  type Subscription,
} from '../../store/port.js';
import { StreamNotFoundError } from '../../store/errors.js';
import type { AccountConnections } from '../venues/connections.js';
import { orderData, positionData } from '../venues/recorder.js';
import { executeActions } from './executor.js';
import { type CopierRow, copierViewOf, CopyInputs, fundsOf, type MasterSide, type SlaveAccount, specOf } from './inputs.js';
import { copierTriggerOf, masterTriggerOf, openingEventOf, type CopierTriggerKind, type MasterTrigger } from './triggers.js';

/** Fixed forever: the ids of the engine's events derive from it. */
export const COPY_EVENT_NAMESPACE = '3c1f8a52-7e0b-4b7d-a0c4-5a9e61d2f3b8';
const CHECKPOINT_NAME = 'copy-engine';
const RETRY_INTERVAL_MS = 30_000;
const FAILURE_RETRY_MS = 1000;
/** Copiers of one master handled at once for one event. */
const FAN_OUT_CONCURRENCY = 32;
const READ_MODEL_WAIT_MS = 5000;

export interface EngineLog {
  info(message: string): void;
  error(message: string, error: unknown): void;
}

export interface CopyEngineDeps {
  readonly store: EventStore;
  readonly db: Kysely<ReadModels>;
  readonly connections: AccountConnections;
  readonly waitForReadModels: (position: Position, timeoutMs: number) => Promise<boolean>;
  readonly clock: () => Date;
  readonly log: EngineLog;
  /** Default 30 s; specs shorten it. */
  readonly retryIntervalMs?: number;
}

type Work =
  | {
      readonly kind: 'master';
      readonly group: string;
      readonly recorded: RecordedEvent;
      readonly trigger: MasterTrigger;
      readonly masterAccountId: string;
      /** The newest event before this one that changes what the engine reads (see route). */
      readonly stateBefore: Position | null;
    }
  | { readonly kind: 'copier'; readonly group: string; readonly recorded: RecordedEvent; readonly copierId: string; readonly trigger: CopierTriggerKind }
  | { readonly kind: 'retry'; readonly group: string; readonly clientOrderId: string };

interface Tracked {
  readonly recorded: RecordedEvent;
  done: boolean;
}

const earlier = (a: Position, b: Position): boolean => comparePositions(a, b) < 0;

/** Positions events the copies read model folds: a slave's copy ended or changed at its venue. */
const STATE_EVENTS: ReadonlySet<string> = new Set(['PositionClosed', 'PositionPartiallyClosed', 'PendingOrderFilled', 'PendingOrderCancelled']);

export class CopyEngine {
  private readonly inputs: CopyInputs;
  private readonly retries$ = new Subject<Work>();
  private subscription: Subscription | null = null;
  private pipeline: RxSubscription | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private stopped = false;
  /** Newest `$all` position of an append of ours: later decisions wait for the read models to include it. */
  private lastAppend: Position | null = null;
  /** Per copier, the `$all` position of the last cause its copies stream holds an outcome of. */
  private readonly handledUpTo = new Map<string, Position | null>();
  private readonly masterOfCopier = new Map<string, string>();
  /**
   * The newest routed event that changes a read model the engine decides with: every copier event
   * (copiers), and the slave-side ends of copies (copies). A master event waits for the read models
   * to include this and the engine's own appends, not for itself: what it says, the engine has.
   */
  private lastStateEvent: Position | null = null;
  private readonly inFlight: Tracked[] = [];
  private checkpointSaved: string | null = null;
  private savingCheckpoint = false;
  private idleWaiters: (() => void)[] = [];
  private handledThrough: Position | null = null;
  private handledWaiters: { position: Position; resolve: (value: boolean) => void }[] = [];

  constructor(private readonly deps: CopyEngineDeps) {
    this.inputs = new CopyInputs(deps.db, deps.connections);
  }

  static async migrate(db: Kysely<ReadModels>): Promise<void> {
    await sql`CREATE TABLE IF NOT EXISTS engine_checkpoints (name text PRIMARY KEY, position text NOT NULL, updated timestamptz NOT NULL DEFAULT now())`.execute(db);
  }

  async start(): Promise<void> {
    await CopyEngine.migrate(this.deps.db);
    const head = await this.deps.store.headPosition();
    if (head) await this.waitForReadModels(head);
    const saved = await sql<{ position: string }>`SELECT position FROM engine_checkpoints WHERE name = ${CHECKPOINT_NAME}`.execute(this.deps.db);
    // A first start copies from now on, never the history of the store.
    let resumeFrom: Position | 'start' = head ?? 'start';
    if (saved.rows[0]) resumeFrom = positionFromString(saved.rows[0].position);
    else if (head) await this.saveCheckpoint(positionToString(head));
    this.subscription = this.deps.store.subscribeToAll({
      fromPosition: resumeFrom,
      filter: { streamNamePrefixes: [POSITIONS_STREAM_PREFIX, COPIER_STREAM_PREFIX] },
    });
    const storeEvents$ = new Observable<RecordedEvent>((subscriber) => {
      const subscription = this.subscription!;
      (async () => {
        try {
          for await (const { event } of subscription) subscriber.next(event);
          subscriber.complete();
        } catch (error) {
          if (this.stopped) subscriber.complete();
          else subscriber.error(error);
        }
      })();
    });
    this.pipeline = merge(
      storeEvents$.pipe(
        concatMap((recorded) => from(this.route(recorded))),
        filter((work): work is Work => work !== null),
      ),
      this.retries$,
    )
      .pipe(
        groupBy((work) => work.group),
        mergeMap((group$) => group$.pipe(concatMap((work) => from(this.process(work))))),
      )
      .subscribe({ error: (error: unknown) => this.deps.log.error('the copy engine stopped', error) });
    await this.scheduleRetries();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearInterval(this.retryTimer);
    await this.subscription?.unsubscribe();
    this.pipeline?.unsubscribe();
    await this.flushCheckpoint();
  }

  /** Resolves once every store event read so far is handled (for specs and benchmarks). */
  idle(): Promise<void> {
    if (this.inFlight.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Resolves true once the engine has handled the event at `position` (a positions-* or copier-*
   * event) and everything before it; false after `timeoutMs`.
   */
  handled(position: Position, timeoutMs: number): Promise<boolean> {
    if (this.handledThrough && !earlier(this.handledThrough, position)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter = { position, resolve: (value: boolean) => { clearTimeout(timer); resolve(value); } };
      const timer = setTimeout(() => {
        this.handledWaiters = this.handledWaiters.filter((w) => w !== waiter);
        resolve(false);
      }, timeoutMs);
      this.handledWaiters.push(waiter);
    });
  }

  // ------------------------------------------------------------------ routing

  private async route(recorded: RecordedEvent): Promise<Work | null> {
    const tracked: Tracked = { recorded, done: false };
    this.inFlight.push(tracked);
    const skip = (): null => {
      this.finish(tracked);
      return null;
    };
    const masterAccountId = accountIdOfPositionsStream(recorded.streamId);
    if (masterAccountId) {
      const stateBefore = this.lastStateEvent;
      if (STATE_EVENTS.has(recorded.type)) this.lastStateEvent = recorded.position;
      const trigger = masterTriggerOf(recorded as unknown as PositionsEvent, recorded.id);
      if (!trigger) return skip();
      return { kind: 'master', group: masterAccountId, recorded, trigger, masterAccountId, stateBefore };
    }
    this.lastStateEvent = recorded.position;
    const event = recorded as unknown as CopierEvent;
    if (event.type === 'CopierCreated') this.masterOfCopier.set(event.data.copierId, event.data.fromAccountId);
    const trigger = copierTriggerOf(event);
    if (!trigger) return skip();
    const copierId = event.data.copierId;
    let master = this.masterOfCopier.get(copierId);
    if (!master) {
      await this.waitForReadModels(recorded.position);
      master = (await this.inputs.copier(copierId))?.from_account_id;
      if (!master) return skip();
      this.masterOfCopier.set(copierId, master);
    }
    return { kind: 'copier', group: master, recorded, copierId, trigger };
  }

  // ------------------------------------------------------------------ handling

  private async process(work: Work): Promise<void> {
    for (;;) {
      try {
        if (work.kind === 'master') await this.handleMasterEvent(work);
        else if (work.kind === 'copier') await this.handleCopierEvent(work);
        else await this.handleRetry(work.clientOrderId);
        break;
      } catch (error) {
        if (this.stopped) return;
        this.deps.log.error('copy engine: handling failed; trying again', error);
        await new Promise((r) => setTimeout(r, FAILURE_RETRY_MS));
      }
    }
    if (work.kind !== 'retry') {
      const tracked = this.inFlight.find((t) => t.recorded === work.recorded);
      if (tracked) this.finish(tracked);
    }
  }

  private async handleMasterEvent(work: Extract<Work, { kind: 'master' }>): Promise<void> {
    const { recorded, trigger, masterAccountId } = work;
    if (work.stateBefore) await this.catchUpReadModels(work.stateBefore);
    else if (this.lastAppend) await this.catchUpReadModels(this.lastAppend);
    const copiers = await this.inputs.copiersOf(masterAccountId);
    if (copiers.length === 0) return;
    const source: CopySource = { eventId: recorded.id, position: positionToString(recorded.position), type: recorded.type };
    const masterEventAt = (recorded.data as { at?: string }).at ?? null;
    if (trigger.kind === 'increase') {
      await this.forEachCopier(copiers, recorded.position, async (copier) =>
        this.append(copier, masterAccountId, source, [
          {
            type: 'TradeSkipped',
            data: {
              ...this.base(copier, masterAccountId, source),
              masterPositionId: trigger.masterPositionId,
              reason: 'NETTING_INCREASE_NOT_COPIED',
              message: `volume added to master position #${trigger.masterPositionId} (${trigger.volume} lots ${trigger.symbol}, netting) not copied: only new positions are copied`,
              wouldHave: [],
            },
          },
        ]),
      );
      return;
    }
    const symbol = 'symbol' in trigger.event.data ? trigger.event.data.symbol : null;
    const master = await this.inputs.master(masterAccountId, trigger.event.type === 'MasterPositionOpened' || trigger.event.type === 'MasterPendingOrderPlaced' || trigger.event.type === 'MasterPendingOrderFilled' ? symbol : null);
    const copies = await this.inputs.copiesOf(masterAccountId);
    const martingale = await this.inputs.martingaleOf(copiers.map((c) => c.id));
    const slaves = await this.inputs.slaveAccounts(copiers.map((c) => c.to_account_id));
    await this.forEachCopier(copiers, recorded.position, (copier) =>
      this.copyForCopier(copier, masterAccountId, source, masterEventAt, [trigger.event], master, copies.get(copier.id) ?? [], martingale.get(copier.id)!, undefined, slaves),
    );
  }

  /** Copies the master's open positions and pending orders that this copier holds no live copy of. */
  private async handleCopierEvent(work: Extract<Work, { kind: 'copier' }>): Promise<void> {
    const { recorded, copierId } = work;
    await this.catchUpReadModels(recorded.position);
    const copier = await this.inputs.copier(copierId);
    if (!copier) return;
    const settings = copier.settings as CopierSettings;
    if (work.trigger === 'copyOpenPositions' && !settings.copyOpenPositions) return;
    if (!(await this.notHandled(copier.id, recorded.position))) return;
    const masterAccountId = copier.from_account_id;
    const source: CopySource = { eventId: recorded.id, position: positionToString(recorded.position), type: recorded.type };
    const copies = (await this.inputs.copiesOf(masterAccountId)).get(copier.id) ?? [];
    const copied = new Set(copies.map((c) => c.masterPositionId));
    const masterConnection = this.deps.connections.connection(masterAccountId);
    const book = masterConnection ? await masterConnection.positions() : [];
    const missing = book.filter((item) => !copied.has(item.id));
    const events: MasterEvent[] = missing.map((item) =>
      openingEventOf(uuidv5(`${recorded.id}/${item.id}`, COPY_EVENT_NAMESPACE), item.kind === 'position' ? { kind: 'position', data: positionData(item) } : { kind: 'order', data: orderData(item) }),
    );
    if (events.length === 0) {
      await this.append(copier, masterAccountId, source, []);
      return;
    }
    const master: MasterSide = masterConnection ? { funds: fundsOf(await masterConnection.accountInformation()), symbol: null } : { funds: null, symbol: null };
    const martingale = (await this.inputs.martingaleOf([copier.id])).get(copier.id)!;
    await this.copyForCopier(copier, masterAccountId, source, null, events, master, copies, martingale, async (symbol) =>
      masterConnection ? specOf(await masterConnection.symbolInfo(symbol)) : null,
    );
  }

  /**
   * Decides and executes `events` for one copier and appends the outcome. When the master side has
   * no symbol specification, `masterSymbolOf` looks it up per event.
   */
  private async copyForCopier(
    copier: CopierRow,
    masterAccountId: string,
    source: CopySource,
    masterEventAt: string | null,
    events: readonly MasterEvent[],
    master: MasterSide,
    liveCopies: readonly SlaveCopy[],
    martingale: { consecutiveLosses: number },
    masterSymbolOf?: (symbol: string) => Promise<MasterSide['symbol']>,
    slaveAccounts?: ReadonlyMap<string, SlaveAccount>,
  ): Promise<void> {
    if (!(await this.notHandled(copier.id, positionFromString(source.position)))) return;
    const view = copierViewOf(copier);
    const live = view.settings.active && !view.settings.monitorOnly;
    const slave = await this.inputs.slave(copier.to_account_id, slaveAccounts);
    const context = this.executionContext(copier, masterAccountId, source, masterEventAt, slave);
    const copies = [...liveCopies];
    const outcome: CopyEvent[] = [];
    const skip = (masterPositionId: string, reason: 'SLAVE_NOT_CONNECTED' | 'SLAVE_TRADING_DISABLED' | 'MASTER_DATA_UNAVAILABLE', message: string) =>
      outcome.push({ type: 'TradeSkipped', data: { ...this.base(copier, masterAccountId, source), masterPositionId, reason, message, wouldHave: [] } });
    for (const event of events) {
      const id = event.data.masterPositionId;
      if (live && !slave.ok) {
        skip(id, slave.reason, `master #${id} not copied: ${slave.message}`);
        continue;
      }
      const opening = event.type === 'MasterPositionOpened' || event.type === 'MasterPendingOrderPlaced' || event.type === 'MasterPendingOrderFilled';
      const symbol = 'symbol' in event.data ? event.data.symbol : '';
      const masterSymbol = master.symbol ?? (opening && masterSymbolOf ? await masterSymbolOf(symbol).catch(() => null) : null);
      if (live && opening && (!master.funds || !masterSymbol)) {
        skip(id, 'MASTER_DATA_UNAVAILABLE', `master #${id} not copied: the master account's funds or its ${symbol} specification are not available (is it connected?)`);
        continue;
      }
      // An inactive or monitor-only copier places nothing; it decides on what data there is.
      const slaveFunds = slave.ok ? fundsOf(slave.info) : { balance: 0, equity: 0, currency: master.funds?.currency ?? 'USD' };
      const masterFunds = master.funds ?? slaveFunds;
      const rate = slave.ok ? await this.inputs.slaveToMasterRate(slave.connection, slaveFunds.currency, masterFunds.currency) : null;
      const actions = decideCopy(
        event,
        view,
        { master: masterFunds, slave: { ...slaveFunds, copies, martingale } },
        {
          masterSymbol: masterSymbol ?? { symbol, minLot: 0, maxLot: 0, lotStep: 0, digits: 0, point: 1, contractSize: 1 },
          slaveSymbols: slave.ok ? slave.symbols : [],
          slaveToMasterRate: rate,
        },
      );
      const results = await executeActions(actions, context);
      for (const result of results) {
        if (result.type === 'CopyExecuted' && result.data.action.type === 'open' && result.data.result.type === 'opened') {
          const { action, result: opened } = result.data;
          copies.push({ masterPositionId: action.masterPositionId, slavePositionId: opened.slavePositionId, kind: opened.kind, symbol: action.symbol, orderType: action.orderType, volume: opened.volume });
        }
      }
      outcome.push(...results);
    }
    await this.append(copier, masterAccountId, source, outcome);
  }

  private executionContext(copier: CopierRow, masterAccountId: string, source: CopySource, masterEventAt: string | null, slave: Awaited<ReturnType<CopyInputs['slave']>> | null) {
    const settings = copier.settings as CopierSettings;
    return {
      copierId: copier.id,
      masterAccountId,
      slaveAccountId: copier.to_account_id,
      source,
      slave: slave && slave.ok ? slave.connection : (null as never),
      slaveMarginMode: slave && slave.ok ? slave.info.marginMode : 'hedging',
      openRetryMinutes: settings.openRetry,
      masterEventAt,
      now: this.deps.clock,
    } as const;
  }

  /** Resends a refused open (CopierDTO.openRetry) while its window runs and the master still holds the position. */
  private async handleRetry(clientOrderId: string): Promise<void> {
    const retry = await this.deps.db.selectFrom('copy_retries').selectAll().where('client_order_id', '=', clientOrderId).executeTakeFirst();
    if (!retry) return;
    const copier = await this.inputs.copier(retry.copier_id);
    const action = retry.action as OpenAction;
    const source = retry.source as CopySource;
    const expiredId = uuidv5(`${clientOrderId}/expired`, COPY_EVENT_NAMESPACE);
    const giveUp = async (message: string) => {
      if (!copier) return;
      await this.appendWithIds(copier, retry.master_account_id, source, [
        {
          id: expiredId,
          event: {
            type: 'TradeSkipped',
            data: { ...this.base(copier, retry.master_account_id, source), masterPositionId: action.masterPositionId, reason: 'OPEN_RETRY_EXPIRED', message, wouldHave: [] },
          },
        },
      ]);
    };
    if (!copier) return;
    if (new Date(retry.retry_until).getTime() <= this.deps.clock().getTime()) {
      await giveUp(`open of master #${action.masterPositionId} given up: the broker kept refusing it until the open-retry window closed at ${new Date(retry.retry_until).toISOString()}`);
      return;
    }
    const masterStillHolds = await this.deps.db.selectFrom('positions').select('id').where('account_id', '=', retry.master_account_id)
      .where('id', '=', action.masterPositionId).executeTakeFirst();
    const settings = copier.settings as CopierSettings;
    if (!masterStillHolds || !settings.active || settings.monitorOnly) {
      await giveUp(`open of master #${action.masterPositionId} no longer retried: ${!masterStillHolds ? 'the master closed the position' : 'the copier is no longer copying'}`);
      return;
    }
    const slave = await this.inputs.slave(copier.to_account_id);
    if (!slave.ok) return;
    const events = await executeActions([action], { ...this.executionContext(copier, retry.master_account_id, source, null, slave), openRetryMinutes: 0 });
    const executed = events.find((e) => e.type === 'CopyExecuted');
    if (!executed) return;
    await this.appendWithIds(copier, retry.master_account_id, source, [{ id: uuidv5(`${clientOrderId}/retried`, COPY_EVENT_NAMESPACE), event: executed }]);
  }

  private async scheduleRetries(): Promise<void> {
    const interval = this.deps.retryIntervalMs ?? RETRY_INTERVAL_MS;
    const tick = async () => {
      const due = await this.deps.db.selectFrom('copy_retries').select(['client_order_id', 'master_account_id']).execute();
      for (const row of due) this.retries$.next({ kind: 'retry', group: row.master_account_id, clientOrderId: row.client_order_id });
    };
    this.retryTimer = setInterval(() => {
      if (!this.stopped) tick().catch((error: unknown) => this.deps.log.error('scheduling open retries failed', error));
    }, interval);
    this.retryTimer.unref();
  }

  // ------------------------------------------------------------------ plumbing

  private base(copier: CopierRow, masterAccountId: string, source: CopySource) {
    return { copierId: copier.id, masterAccountId, slaveAccountId: copier.to_account_id, source, at: this.deps.clock().toISOString() };
  }

  private async forEachCopier(copiers: readonly CopierRow[], _position: Position, work: (copier: CopierRow) => Promise<void>): Promise<void> {
    let next = 0;
    const worker = async () => {
      while (next < copiers.length) {
        const copier = copiers[next++]!;
        await work(copier);
      }
    };
    await Promise.all(Array.from({ length: Math.min(FAN_OUT_CONCURRENCY, copiers.length) }, worker));
  }

  /** False when the copier's copies stream already holds the outcome of the event at `position`. */
  private async notHandled(copierId: string, position: Position): Promise<boolean> {
    if (!this.handledUpTo.has(copierId)) {
      let last: Position | null = null;
      try {
        for await (const { event } of this.deps.store.readStream(copiesStream(copierId), { direction: 'backwards', fromRevision: 'end', maxCount: 1 })) {
          const cause = event.metadata.sourcePosition;
          if (typeof cause === 'string') last = positionFromString(cause);
        }
      } catch (error) {
        if (!(error instanceof StreamNotFoundError)) throw error;
      }
      this.handledUpTo.set(copierId, last);
    }
    const handled = this.handledUpTo.get(copierId) ?? null;
    return handled === null || earlier(handled, position);
  }

  private append(copier: CopierRow, masterAccountId: string, source: CopySource, events: readonly CopyEvent[]): Promise<void> {
    return this.appendWithIds(copier, masterAccountId, source, events.map((event, i) => ({ id: uuidv5(`${source.eventId}/${copier.id}/${i}`, COPY_EVENT_NAMESPACE), event })));
  }

  /** An event-less outcome is recorded as nothing, but still marks the cause handled in memory. */
  private async appendWithIds(copier: CopierRow, masterAccountId: string, source: CopySource, events: readonly { id: string; event: CopyEvent }[]): Promise<void> {
    const cause = positionFromString(source.position);
    if (events.length > 0) {
      const metadata = { correlationId: `copy:${source.eventId}`, sourcePosition: source.position, sourceEventId: source.eventId, masterAccountId, receivedAt: this.deps.clock().toISOString() };
      const result = await this.deps.store.appendToStream(
        copiesStream(copier.id),
        events.map(({ id, event }) => ({ id, type: event.type, data: event.data, metadata })),
        { expectedRevision: 'any' },
      );
      if (!this.lastAppend || earlier(this.lastAppend, result.position)) this.lastAppend = result.position;
    }
    const handled = this.handledUpTo.get(copier.id) ?? null;
    if (handled === null || earlier(handled, cause)) this.handledUpTo.set(copier.id, cause);
  }

  private async waitForReadModels(position: Position): Promise<void> {
    while (!this.stopped && !(await this.deps.waitForReadModels(position, READ_MODEL_WAIT_MS))) {
      this.deps.log.info('copy engine: waiting for the read models');
    }
  }

  /** The read models must include the event and every outcome this engine appended before it. */
  private async catchUpReadModels(position: Position): Promise<void> {
    const target = this.lastAppend && earlier(position, this.lastAppend) ? this.lastAppend : position;
    await this.waitForReadModels(target);
  }

  private finish(tracked: Tracked): void {
    tracked.done = true;
    let last: Tracked | undefined;
    while (this.inFlight[0]?.done) last = this.inFlight.shift();
    if (last) {
      this.handledThrough = last.recorded.position;
      void this.saveCheckpoint(positionToString(last.recorded.position));
      const through = last.recorded.position;
      const ready = this.handledWaiters.filter((w) => !earlier(through, w.position));
      this.handledWaiters = this.handledWaiters.filter((w) => earlier(through, w.position));
      for (const waiter of ready) waiter.resolve(true);
    }
    if (this.inFlight.length === 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const resolve of waiters) resolve();
    }
  }

  private pendingCheckpoint: string | null = null;

  /** Writes the newest checkpoint; calls that arrive while one is written coalesce. */
  private async saveCheckpoint(position: string): Promise<void> {
    this.pendingCheckpoint = position;
    if (this.savingCheckpoint) return;
    this.savingCheckpoint = true;
    try {
      while (this.pendingCheckpoint !== null && this.pendingCheckpoint !== this.checkpointSaved) {
        const value = this.pendingCheckpoint;
        await sql`INSERT INTO engine_checkpoints (name, position) VALUES (${CHECKPOINT_NAME}, ${value})
          ON CONFLICT (name) DO UPDATE SET position = excluded.position, updated = now()`.execute(this.deps.db);
        this.checkpointSaved = value;
      }
    } catch (error) {
      if (!this.stopped) this.deps.log.error('saving the copy engine checkpoint failed', error);
    } finally {
      this.savingCheckpoint = false;
    }
  }

  private async flushCheckpoint(): Promise<void> {
    while (this.savingCheckpoint) await new Promise((r) => setTimeout(r, 5));
  }
}
