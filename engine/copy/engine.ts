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
import { protectionSkip } from '../../domain/protection/blocks.js';
import { copiesStream, type CopyEvent, type CopySource, DEFERRAL_SOURCE, MANAGEMENT_SOURCE } from '../../domain/copy/events.js';
import { type ActiveFeature, type CopyRecord, isStandaloneTrade, type MasterOrderRecord } from '../../domain/copy/features/rules.js';
import { slaveComment, slaveMagicNumber } from '../../domain/copy/labels.js';
import type { MasterEvent, MasterTrade, OpenAction, SlaveCopy } from '../../domain/copy/types.js';
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
import { Recovery, type RecoveryLog } from '../../store/recovery.js';
import type { AccountConnections } from '../venues/connections.js';
import { orderData, positionData } from '../venues/recorder.js';
import { approvalOfDeferral, decidedApprovals } from './approvals.js';
import { executeActions } from './executor.js';
import { featureInputs } from './featureInputs.js';
import { activeFeatures, copyHistory, type CopierRow, copierViewOf, CopyInputs, fundsOf, type MasterSide, masterOrdersOf, type SlaveAccount, slaveLastTradeAt, specOf, standaloneTrades } from './inputs.js';
import { copyActionOf, manage, managedFeatures, managingFeatureTypes } from './management.js';
import { copierTriggerOf, masterTriggerOf, openingEventOf, type CopierTriggerKind, type MasterTrigger } from './triggers.js';

/** Fixed forever: the ids of the engine's events derive from it. */
export const COPY_EVENT_NAMESPACE = '3c1f8a52-7e0b-4b7d-a0c4-5a9e61d2f3b8';
const CHECKPOINT_NAME = 'copy-engine';
const RETRY_INTERVAL_MS = 30_000;
/** How often due deferrals are taken up and features manage open copies. */
const TICK_MS = 1000;
/** A management request the venue refused is recorded again only after this long. */
const MANAGEMENT_FAILURE_QUIET_MS = 10 * 60_000;
/** The `$all` position a non-store source carries: it marks nothing handled. */
const NO_POSITION = '0:0';
/** Copiers of one master handled at once for one event. */
const FAN_OUT_CONCURRENCY = 32;
const READ_MODEL_WAIT_MS = 5000;

export type EngineLog = RecoveryLog;

export interface CopyEngineDeps {
  readonly store: EventStore;
  readonly db: Kysely<ReadModels>;
  readonly connections: AccountConnections;
  readonly waitForReadModels: (position: Position, timeoutMs: number) => Promise<boolean>;
  readonly clock: () => Date;
  readonly log: EngineLog;
  /** Default 30 s; specs shorten it. */
  readonly retryIntervalMs?: number;
  /** Default 1 s: deferrals and management. */
  readonly tickMs?: number;
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
  | { readonly kind: 'retry'; readonly group: string; readonly clientOrderId: string }
  | { readonly kind: 'deferral'; readonly group: string; readonly deferralId: string }
  | { readonly kind: 'manage'; readonly group: string; readonly copierId: string };

/** One decision run for one copier: its inputs and how its outcome is recorded. */
interface CopyRun {
  readonly copier: CopierRow;
  readonly masterAccountId: string;
  readonly source: CopySource;
  readonly masterEventAt: string | null;
  readonly events: readonly MasterEvent[];
  readonly master: MasterSide;
  readonly liveCopies: readonly SlaveCopy[];
  readonly martingale: { readonly consecutiveLosses: number };
  readonly masterSymbolOf?: (symbol: string) => Promise<MasterSide['symbol']>;
  readonly slaveAccounts?: ReadonlyMap<string, SlaveAccount>;
  readonly features: readonly ActiveFeature[];
  readonly history: readonly CopyRecord[];
  /** Caused by an event of the store: checked and marked as handled by its position. */
  readonly storeCause: boolean;
  readonly deferredBy: readonly string[];
  /** The decision on the event when it was held back for approval (FeatureApprovalDTO). */
  readonly approval?: 'approved' | 'rejected' | null;
}

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
  /** Failures of routing and handling: logged once per run of failures, retried with backoff. */
  private readonly handling: Recovery;
  private readonly pipelineFailures: Recovery;
  private readonly checkpointFailures: Recovery;
  private subscription: Subscription | null = null;
  private pipeline: RxSubscription | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private tickTimer: NodeJS.Timeout | null = null;
  /** Scheduled work queued and not yet done, so a tick does not queue it twice. */
  private readonly queued = new Set<string>();
  private readonly managementFailures = new Map<string, number>();
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
    this.inputs = new CopyInputs(deps.db, deps.connections, deps.clock);
    this.handling = new Recovery('copy engine handling', deps.log, { action: 'tries the same event again' });
    this.pipelineFailures = new Recovery('the copy engine pipeline', deps.log, { action: 'starts again after the last event it handled' });
    this.checkpointFailures = new Recovery('saving the copy engine checkpoint', deps.log, { action: 'saves it with the next event handled' });
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
    this.startPipeline(resumeFrom);
    await this.scheduleRetries();
    const ticks = new Recovery('the copy engine tick (deferrals, management)', this.deps.log, { action: 'runs at the next tick' });
    this.tickTimer = setInterval(() => {
      if (this.stopped) return;
      this.tick().then(() => ticks.succeeded(), (error: unknown) => ticks.noted(error));
    }, this.deps.tickMs ?? TICK_MS);
    this.tickTimer.unref();
  }

  /**
   * The pipeline from `resumeFrom` on. route and process retry their own failures; should the pipeline
   * itself fail (a defect), it starts again after the last event handled in order: handling an event
   * again places nothing twice (deterministic client ids, outcomes recognised in the copies streams).
   */
  private startPipeline(resumeFrom: Position | 'start'): void {
    this.pipeline = merge(
      this.storeEvents(resumeFrom).pipe(
        concatMap((recorded) => from(this.route(recorded))),
        filter((work): work is Work => work !== null),
      ),
      this.retries$,
    )
      .pipe(
        groupBy((work) => work.group),
        mergeMap((group$) => group$.pipe(concatMap((work) => from(this.process(work))))),
      )
      .subscribe({
        error: (error: unknown) => {
          if (this.stopped) return;
          const from = this.handledThrough ?? resumeFrom;
          const delay = this.pipelineFailures.noted(error);
          this.inFlight.length = 0;
          void this.subscription?.unsubscribe();
          setTimeout(() => {
            if (!this.stopped) this.startPipeline(from);
          }, delay).unref();
        },
      });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearInterval(this.retryTimer);
    if (this.tickTimer) clearInterval(this.tickTimer);
    await this.subscription?.unsubscribe();
    this.pipeline?.unsubscribe();
    await this.flushCheckpoint();
  }

  /**
   * The positions-* and copier-* events of `$all` after `resumeFrom`. A subscription that fails (a
   * dropped connection, a restarted server) is taken up again after the last event it delivered, with
   * backoff; what was delivered is handled already or in the pipeline, so nothing is read twice or lost.
   */
  private storeEvents(resumeFrom: Position | 'start'): Observable<RecordedEvent> {
    return new Observable<RecordedEvent>((subscriber) => {
      const recovery = new Recovery('the copy engine', this.deps.log, { action: 'resubscribes from the last event it read' });
      let after = resumeFrom;
      let closed = false;
      const done = () => this.stopped || closed;
      let current: Subscription | null = null;
      (async () => {
        while (!done()) {
          const subscription = this.deps.store.subscribeToAll({
            fromPosition: after,
            filter: { streamNamePrefixes: [POSITIONS_STREAM_PREFIX, COPIER_STREAM_PREFIX] },
          });
          this.subscription = subscription;
          current = subscription;
          subscription.on('caughtUp', () => recovery.succeeded());
          try {
            for await (const { event } of subscription) {
              after = event.position;
              recovery.succeeded();
              subscriber.next(event);
            }
          } catch (error) {
            if (done()) break;
            await recovery.failed(error, done);
          } finally {
            await subscription.unsubscribe();
          }
        }
        subscriber.complete();
      })();
      // The pipeline let go of us (it failed, or the engine stops): end the subscription and the loop.
      return () => {
        closed = true;
        void current?.unsubscribe();
      };
    });
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

  /** Routes an event, trying again while what it reads cannot be read (the event stays in order). */
  private async route(recorded: RecordedEvent): Promise<Work | null> {
    const tracked: Tracked = { recorded, done: false };
    this.inFlight.push(tracked);
    for (;;) {
      try {
        const work = await this.routeOnce(recorded, tracked);
        this.handling.succeeded();
        return work;
      } catch (error) {
        if (this.stopped) return null;
        await this.handling.failed(error, () => this.stopped);
      }
    }
  }

  private async routeOnce(recorded: RecordedEvent, tracked: Tracked): Promise<Work | null> {
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
        else if (work.kind === 'retry') await this.handleRetry(work.clientOrderId);
        else if (work.kind === 'deferral') await this.handleDeferral(work.deferralId);
        else await this.handleManagement(work.copierId);
        break;
        this.handling.succeeded();
      } catch (error) {
        if (this.stopped) return;
        await this.handling.failed(error, () => this.stopped);
      }
    }
    if (work.kind === 'master' || work.kind === 'copier') {
      const tracked = this.inFlight.find((t) => t.recorded === work.recorded);
      if (tracked) this.finish(tracked);
    } else {
      this.queued.delete(this.queueKey(work));
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
        ], true),
      );
      return;
    }
    const symbol = 'symbol' in trigger.event.data ? trigger.event.data.symbol : null;
    const master = await this.inputs.master(masterAccountId, trigger.event.type === 'MasterPositionOpened' || trigger.event.type === 'MasterPendingOrderPlaced' || trigger.event.type === 'MasterPendingOrderFilled' ? symbol : null);
    const copies = await this.inputs.copiesOf(masterAccountId);
    const martingale = await this.inputs.martingaleOf(copiers.map((c) => c.id));
    const slaves = await this.inputs.slaveAccounts(copiers.map((c) => c.to_account_id));
    const features = await activeFeatures(this.deps.db, copiers);
    const history = await copyHistory(this.deps.db, [...features.keys()]);
    await this.forEachCopier(copiers, recorded.position, async (copier) => {
      await this.copyForCopier({
        copier, masterAccountId, source, masterEventAt, events: [trigger.event], master,
        liveCopies: copies.get(copier.id) ?? [], martingale: martingale.get(copier.id)!, slaveAccounts: slaves,
        features: features.get(copier.id) ?? [], history: history.get(copier.id) ?? [], storeCause: true, deferredBy: [],
      });
    });
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
      await this.append(copier, masterAccountId, source, [], true);
      return;
    }
    const master: MasterSide = masterConnection ? { funds: fundsOf(await masterConnection.accountInformation()), symbol: null } : { funds: null, symbol: null };
    const martingale = (await this.inputs.martingaleOf([copier.id])).get(copier.id)!;
    const features = (await activeFeatures(this.deps.db, [copier])).get(copier.id) ?? [];
    const history = (await copyHistory(this.deps.db, features.length ? [copier.id] : [])).get(copier.id) ?? [];
    await this.copyForCopier({
      copier, masterAccountId, source, masterEventAt: null, events, master, liveCopies: copies, martingale,
      masterSymbolOf: async (symbol) => (masterConnection ? specOf(await masterConnection.symbolInfo(symbol)) : null),
      features, history, storeCause: true, deferredBy: [],
    });
  }

  /**
   * Decides and executes the run's master events for one copier and appends the outcome. When the
   * master side has no symbol specification, `masterSymbolOf` looks it up per event.
   */
  private async copyForCopier(run: CopyRun): Promise<readonly CopyEvent[]> {
    const { copier, masterAccountId, source, master } = run;
    if (run.storeCause && !(await this.notHandled(copier.id, positionFromString(source.position)))) return [];
    const view = copierViewOf(copier);
    const live = view.settings.active && !view.settings.monitorOnly;
    const slave = await this.inputs.slave(copier.to_account_id, run.slaveAccounts);
    const copies = [...run.liveCopies];
    const outcome: CopyEvent[] = [];
    const skip = (masterPositionId: string, reason: 'SLAVE_NOT_CONNECTED' | 'SLAVE_TRADING_DISABLED' | 'MASTER_DATA_UNAVAILABLE', message: string) =>
      outcome.push({ type: 'TradeSkipped', data: { ...this.base(copier, masterAccountId, source), masterPositionId, reason, message, wouldHave: [] } });
    for (const event of run.events) {
      const id = event.data.masterPositionId;
      if (live && !slave.ok) {
        skip(id, slave.reason, `master #${id} not copied: ${slave.message}`);
        continue;
      }
      const opening = event.type === 'MasterPositionOpened' || event.type === 'MasterPendingOrderPlaced' || event.type === 'MasterPendingOrderFilled';
      const symbol = 'symbol' in event.data ? event.data.symbol : '';
      const masterSymbol = master.symbol ?? (opening && run.masterSymbolOf ? await run.masterSymbolOf(symbol).catch(() => null) : null);
      if (live && opening && (!master.funds || !masterSymbol)) {
        skip(id, 'MASTER_DATA_UNAVAILABLE', `master #${id} not copied: the master account's funds or its ${symbol} specification are not available (is it connected?)`);
        continue;
      }
      // An inactive or monitor-only copier places nothing; it decides on what data there is.
      const slaveFunds = slave.ok ? fundsOf(slave.info) : { balance: 0, equity: 0, currency: master.funds?.currency ?? 'USD' };
      const masterFunds = master.funds ?? slaveFunds;
      const rate = slave.ok ? await this.inputs.slaveToMasterRate(slave.connection, slaveFunds.currency, masterFunds.currency) : null;
      const features = await featureInputs(event, {
        active: run.features,
        history: run.history,
        now: this.deps.clock().toISOString(),
        eventTime: run.masterEventAt,
        deferredBy: run.deferredBy,
        approval: run.approval ?? null,
        master: this.deps.connections.connection(masterAccountId),
        slave: slave.ok ? slave : null,
        copier: view,
        masterOrders: (symbol, since) => this.masterOrders(masterAccountId, symbol, since, run.storeCause ? source.position : null),
      });
      const actions = decideCopy(
        event,
        view,
        { master: masterFunds, slave: { ...slaveFunds, copies, martingale: run.martingale } },
        {
          masterSymbol: masterSymbol ?? { symbol, minLot: 0, maxLot: 0, lotStep: 0, digits: 0, point: 1, contractSize: 1 },
          slaveSymbols: slave.ok ? slave.symbols : [],
          slaveToMasterRate: rate,
        },
        slave.ok ? { ...features, protections: slave.protections } : features,
      );
      const results = await executeActions(actions, {
        ...this.executionContext(copier, masterAccountId, source, run.masterEventAt, slave),
        masterEvent: event,
        deferredBy: run.deferredBy,
      });
      for (const result of results) {
        if (result.type === 'CopyExecuted' && result.data.action.type === 'open' && result.data.result.type === 'opened') {
          const { action, result: opened } = result.data;
          copies.push({ masterPositionId: action.masterPositionId, slavePositionId: opened.slavePositionId, kind: opened.kind, symbol: action.symbol, orderType: action.orderType, volume: opened.volume });
        }
      }
      outcome.push(...results);
    }
    await this.append(copier, masterAccountId, source, outcome, run.storeCause);
    return outcome;
  }

  /**
   * A deferral fell due: the master event is decided again. An open whose master position is gone
   * meanwhile is not copied.
   */
  private async handleDeferral(deferralId: string): Promise<void> {
    const row = await this.deps.db.selectFrom('copy_deferrals').selectAll().where('id', '=', deferralId).executeTakeFirst();
    if (!row) return;
    const source: CopySource = { eventId: row.id, position: NO_POSITION, type: DEFERRAL_SOURCE };
    const event = row.master_event as MasterEvent;
    const masterAccountId = row.master_account_id;
    const copier = await this.inputs.copier(row.copier_id);
    if (!copier) {
      // The copier was deleted: its deferral ends with it.
      await this.deps.db.deleteFrom('copy_deferrals').where('id', '=', row.id).execute();
      return;
    }
    const opening = event.type === 'MasterPositionOpened' || event.type === 'MasterPendingOrderPlaced' || event.type === 'MasterPendingOrderFilled';
    if (opening) {
      const held = await this.deps.db.selectFrom('positions').select('id').where('account_id', '=', masterAccountId).where('id', '=', event.data.masterPositionId).executeTakeFirst();
      if (!held) {
        await this.append(copier, masterAccountId, source, [{
          type: 'TradeSkipped',
          data: {
            ...this.base(copier, masterAccountId, source),
            masterPositionId: event.data.masterPositionId,
            reason: 'MASTER_POSITION_GONE',
            message: `${event.data.symbol} of master #${event.data.masterPositionId} not copied: the master no longer holds it when the wait ended`,
            wouldHave: [],
          },
        }], false);
        return;
      }
    }
    const master = await this.inputs.master(masterAccountId, opening && 'symbol' in event.data ? event.data.symbol : null);
    const copies = (await this.inputs.copiesOf(masterAccountId)).get(copier.id) ?? [];
    const martingale = (await this.inputs.martingaleOf([copier.id])).get(copier.id)!;
    const features = (await activeFeatures(this.deps.db, [copier])).get(copier.id) ?? [];
    const history = (await copyHistory(this.deps.db, [copier.id])).get(copier.id) ?? [];
    const outcome = await this.copyForCopier({
      copier, masterAccountId, source,
      masterEventAt: row.master_event_at ? new Date(row.master_event_at).toISOString() : null,
      events: [event], master, liveCopies: copies, martingale, features, history, storeCause: false,
      deferredBy: row.deferred_by as string[],
      approval: await approvalOfDeferral(this.deps.db, copier.id, event, row.deferred_by as string[]),
    });
    if (outcome.length === 0) {
      // Nothing left to do (the slave's copy of a filled pending order is there already): the wait
      // still needs an outcome, or it would be decided again every tick.
      await this.append(copier, masterAccountId, source, [{
        type: 'TradeSkipped',
        data: {
          ...this.base(copier, masterAccountId, source),
          masterPositionId: event.data.masterPositionId,
          reason: 'ALREADY_COPIED',
          message: `master #${event.data.masterPositionId}: nothing to copy when the wait ended, the slave already holds its copy`,
          wouldHave: [],
        },
      }], false);
    }
  }

  /**
   * The master's orders on a symbol (features/rules.ts 'masterOrders'), once the read models include
   * the store event decided and everything before it: the master's orders just before count.
   */
  private async masterOrders(masterAccountId: string, symbol: string, since: string | null, position: string | null): Promise<MasterOrderRecord[]> {
    if (position !== null && position !== NO_POSITION) await this.waitForReadModels(positionFromString(position));
    return masterOrdersOf(this.deps.db, masterAccountId, symbol, since);
  }

  /** A tick of the copier's management features (trailing stops, scheduled closes ...). */
  private async handleManagement(copierId: string): Promise<void> {
    const copier = await this.inputs.copier(copierId);
    if (!copier) return;
    const active = (await activeFeatures(this.deps.db, [copier])).get(copier.id) ?? [];
    // The settings the decisions use: a feature (a signal follower) may make the copier monitor-only.
    const settings = active.reduce((current, f) => f.feature.rules.adjustSettings?.(f.settings, current) ?? current, copier.settings as CopierSettings);
    // Not copying: nothing is placed or managed, but a standalone trade (keep-alive) still closes on time.
    const live = settings.active && !settings.monitorOnly;
    const standalone = await standaloneTrades(this.deps.db, copier.id);
    if (!live && !standalone.some((t) => t.closedAt === null)) return;
    if (managedFeatures(active).length === 0) return;
    const slave = await this.inputs.slave(copier.to_account_id);
    if (!slave.ok) return;
    const masterAccountId = copier.from_account_id;
    const masterRows = await this.deps.db.selectFrom('positions').selectAll().where('account_id', '=', masterAccountId).where('kind', '=', 'position').execute();
    const masterPositions: MasterTrade[] = masterRows.map((r) => ({
      masterPositionId: r.id, symbol: r.symbol, orderType: r.order_type as MasterTrade['orderType'], volume: r.volume, openPrice: r.open_price,
      stopLoss: r.stop_loss, takeProfit: r.take_profit, comment: r.comment, magicNumber: r.magic_number === null ? null : Number(r.magic_number),
    }));
    const now = this.deps.clock().toISOString();
    const liveCopies = (await this.inputs.copiesOf(masterAccountId)).get(copier.id) ?? [];
    const asks = await manage({
      now,
      active,
      history: (await copyHistory(this.deps.db, [copier.id])).get(copier.id) ?? [],
      liveCopies,
      slave: slave.connection,
      slaveSymbols: slave.symbols,
      masterPositions,
      copier: settings,
      standalone,
      slaveLastTradeAt: active.some((f) => f.feature.rules.needs?.includes('slaveActivity')) ? await slaveLastTradeAt(this.deps.db, copier.to_account_id) : null,
    });
    // One live copy per master position: two features reopening the same one in a tick place one.
    const copied = new Set(liveCopies.map((c) => c.masterPositionId));
    for (const ask of asks) {
      if (!live && !(ask.action.kind === 'close' && isStandaloneTrade(ask.action.masterPositionId))) continue;
      let action = copyActionOf(copier.id, ask);
      if (action.type === 'open') {
        if (copied.has(action.masterPositionId)) continue;
        // A risk limit hit or a profit target locked: nothing new opens on the account.
        if (protectionSkip(slave.protections, action.symbol)) continue;
        copied.add(action.masterPositionId);
        const trade = masterPositions.find((p) => p.masterPositionId === action.masterPositionId);
        action = { ...action, comment: slaveComment(settings, trade?.comment ?? null), magicNumber: slaveMagicNumber(settings, trade?.magicNumber ?? null) };
      }
      const key = action.type === 'skip' ? `skip/${ask.feature.featureId}/${action.masterPositionId}/${action.reason}` : action.clientOrderId;
      const source: CopySource = { eventId: key, position: NO_POSITION, type: MANAGEMENT_SOURCE };
      const results = (await executeActions([action], { ...this.executionContext(copier, masterAccountId, source, null, slave), openRetryMinutes: 0 }))
        .map((event): CopyEvent => {
          // A standalone trade (keep-alive) is no copy: the log says what it is in the feature's words.
          const note = isStandaloneTrade(action.masterPositionId) ? { note: ask.action.message } : {};
          if (event.type === 'CopyExecuted') return { ...event, data: { ...event.data, by: ask.feature.feature.type, ...note } };
          return event.type === 'CopyFailed' ? { ...event, data: { ...event.data, ...note } } : event;
        });
      // A request the venue keeps refusing (each second) is recorded once in a while, not each time.
      if (results.some((e) => e.type === 'CopyFailed')) {
        const last = this.managementFailures.get(key);
        if (last !== undefined && Date.now() - last < MANAGEMENT_FAILURE_QUIET_MS) continue;
        this.managementFailures.set(key, Date.now());
      }
      if (action.type === 'skip' && this.managementFailures.has(key)) continue;
      if (action.type === 'skip') this.managementFailures.set(key, Date.now());
      await this.appendWithIds(copier, masterAccountId, source, results.map((event, i) => ({ id: uuidv5(`${key}/${i}`, COPY_EVENT_NAMESPACE), event })), false);
    }
  }

  private queueKey(work: Work): string {
    return work.kind === 'retry' ? `retry:${work.clientOrderId}` : work.kind === 'deferral' ? `deferral:${work.deferralId}` : work.kind === 'manage' ? `manage:${work.copierId}` : '';
  }

  /** Queues scheduled work into its master's group, once while it waits. */
  private schedule(work: Work): void {
    const key = this.queueKey(work);
    if (this.queued.has(key)) return;
    this.queued.add(key);
    this.retries$.next(work);
  }

  /** Every tick: due deferrals, and management for every copier with a managing feature. */
  private async tick(): Promise<void> {
    const now = this.deps.clock();
    const due = await this.deps.db.selectFrom('copy_deferrals').select(['id', 'master_account_id']).where('due_at', '<=', now).orderBy('due_at').execute();
    for (const row of due) this.schedule({ kind: 'deferral', group: row.master_account_id, deferralId: row.id });
    // Approved or rejected opens are decided again at once, not at their expiry.
    for (const row of await decidedApprovals(this.deps.db)) this.schedule({ kind: 'deferral', group: row.master_account_id, deferralId: row.id });
    const managing = managingFeatureTypes();
    if (managing.length === 0) return;
    const copiers = await this.deps.db.selectFrom('features').innerJoin('copiers', (join) =>
      join.on((eb) => eb.or([
        eb.and([eb('features.scope_kind', '=', 'copier'), eb('features.copier_id', '=', eb.ref('copiers.id'))]),
        eb.and([eb('features.scope_kind', '=', 'account'), eb('features.account_id', '=', eb.ref('copiers.to_account_id'))]),
      ])))
      .select(['copiers.id as copier_id', 'copiers.from_account_id']).where('features.type', 'in', managing).distinct().execute();
    for (const row of copiers) this.schedule({ kind: 'manage', group: row.from_account_id, copierId: row.copier_id });
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
      ], false);
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
    // Tried again at the next interval while a protection holds new opens back.
    if (protectionSkip(slave.protections, action.symbol)) return;
    const events = await executeActions([action], { ...this.executionContext(copier, retry.master_account_id, source, null, slave), openRetryMinutes: 0 });
    const executed = events.find((e) => e.type === 'CopyExecuted');
    if (!executed) return;
    await this.appendWithIds(copier, retry.master_account_id, source, [{ id: uuidv5(`${clientOrderId}/retried`, COPY_EVENT_NAMESPACE), event: executed }], false);
  }

  private async scheduleRetries(): Promise<void> {
    const interval = this.deps.retryIntervalMs ?? RETRY_INTERVAL_MS;
    const recovery = new Recovery('scheduling open retries', this.deps.log, { action: 'runs at the next interval' });
    const tick = async () => {
      const due = await this.deps.db.selectFrom('copy_retries').select(['client_order_id', 'master_account_id']).execute();
      for (const row of due) this.schedule({ kind: 'retry', group: row.master_account_id, clientOrderId: row.client_order_id });
    };
    this.retryTimer = setInterval(() => {
      if (!this.stopped) tick().then(() => recovery.succeeded(), (error: unknown) => recovery.noted(error));
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
        // The newest outcome of a store event: deferrals, retries and management carry no position.
        for await (const { event } of this.deps.store.readStream(copiesStream(copierId), { direction: 'backwards', fromRevision: 'end' })) {
          const cause = event.metadata.sourcePosition;
          if (typeof cause === 'string') {
            last = positionFromString(cause);
            break;
          }
        }
      } catch (error) {
        if (!(error instanceof StreamNotFoundError)) throw error;
      }
      this.handledUpTo.set(copierId, last);
    }
    const handled = this.handledUpTo.get(copierId) ?? null;
    return handled === null || earlier(handled, position);
  }

  private append(copier: CopierRow, masterAccountId: string, source: CopySource, events: readonly CopyEvent[], storeCause: boolean): Promise<void> {
    return this.appendWithIds(copier, masterAccountId, source, events.map((event, i) => ({ id: uuidv5(`${source.eventId}/${copier.id}/${i}`, COPY_EVENT_NAMESPACE), event })), storeCause);
  }

  /**
   * The outcome in one append. Caused by a store event: its metadata names the cause's position, and an
   * event-less outcome still marks the cause handled in memory.
   */
  private async appendWithIds(copier: CopierRow, masterAccountId: string, source: CopySource, events: readonly { id: string; event: CopyEvent }[], storeCause: boolean): Promise<void> {
    if (events.length > 0) {
      const metadata = {
        correlationId: `copy:${source.eventId}`,
        ...(storeCause ? { sourcePosition: source.position } : { cause: source.type }),
        sourceEventId: source.eventId,
        masterAccountId,
        receivedAt: this.deps.clock().toISOString(),
      };
      const result = await this.deps.store.appendToStream(
        copiesStream(copier.id),
        events.map(({ id, event }) => ({ id, type: event.type, data: event.data, metadata })),
        { expectedRevision: 'any' },
      );
      if (!this.lastAppend || earlier(this.lastAppend, result.position)) this.lastAppend = result.position;
    }
    if (!storeCause) return;
    const cause = positionFromString(source.position);
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
        this.checkpointFailures.succeeded();
      }
    } catch (error) {
      if (!this.stopped) this.checkpointFailures.noted(error);
    } finally {
      this.savingCheckpoint = false;
    }
  }

  private async flushCheckpoint(): Promise<void> {
    while (this.savingCheckpoint) await new Promise((r) => setTimeout(r, 5));
  }
}
