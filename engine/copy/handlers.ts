// The copy engine's handlers: one work item of the pipeline, decided, executed and recorded. A master
// event is decided for every copier of its master; a copier event (created, activated, copy open
// positions) copies what the master holds and the copier does not; a retry resends a refused open; a
// deferral decides a held-back event again; a management tick lets the copier's features manage its
// open copies. Each copier's outcome is one append (outcomes.ts).
import { v5 as uuidv5 } from 'uuid';
import type { CopierSettings } from '../../domain/copier/settings.js';
import { decideCopy, noFeaturesAt } from '../../domain/copy/decision.js';
import { type CopyEvent, type CopySource, DEFERRAL_SOURCE } from '../../domain/copy/events.js';
import type { ActiveFeature, ApprovalDecision, CopyRecord, MasterOrderRecord } from '../../domain/copy/features/rules.js';
import { mapSymbolOf, type ProjectMapping } from '../../domain/copy/symbolMapping.js';
import type { CopierView, MasterEvent, SlaveCopy } from '../../domain/copy/types.js';
import { calendarEvents } from '../../projections/calendar/queries.js';
import { type Position, positionFromString, positionToString } from '../../store/port.js';
import { orderData, positionData } from '../venues/recorder.js';
import { approvalOfDeferral } from './approvals.js';
import type { CopyBook } from './book.js';
import { type EarlyCause, type EarlyOutcomes, withSource } from './early.js';
import { executeActions } from './executor.js';
import { oneCurrency } from './currencyRate.js';
import { featureInputs, type FeatureSources } from './featureInputs.js';
import { type HandlerDeps, HandlerKit } from './handlerKit.js';
import {
  copyHistory,
  type CopierRow,
  copierViewOf,
  type CopyInputs,
  fundsOf,
  type MasterSide,
  masterOrdersOf,
  type SlaveAccount,
  type SlaveSide,
  specOf,
} from './inputs.js';
import { ManagementTicks } from './managementTicks.js';
import { COPY_EVENT_NAMESPACE, NO_POSITION, type Outcomes } from './outcomes.js';
import { handleRetry } from './retries.js';
import { openingEventOf } from './triggers.js';
import type { Work } from './work.js';

export type { HandlerDeps } from './handlerKit.js';

/**
 * Copiers of one master handled at once for one event. A copier's turn lasts until its slave order is
 * answered (after the venue's save, which the orders placed meanwhile share); its outcome's append
 * does not hold the turn (handleMasterEvent), so more turns at once mean fewer, fuller saves.
 */
const FAN_OUT_CONCURRENCY = 128;

/** Nothing placed early. */
const EMPTY_EARLY: EarlyOutcomes = new Map();

/** What a fan-out's copiers share, read once for all of them. */
interface FanOutInputs {
  readonly master: MasterSide;
  readonly copies: ReadonlyMap<string, readonly SlaveCopy[]>;
  readonly martingale: ReadonlyMap<string, { readonly consecutiveLosses: number }>;
  readonly slaves: ReadonlyMap<string, SlaveAccount>;
  readonly features: ReadonlyMap<string, ActiveFeature[]>;
  readonly history: ReadonlyMap<string, CopyRecord[]>;
  /** Each copier's project symbol mappings (CopyInputs.projectMappingsOf). */
  readonly mappings: ReadonlyMap<string, readonly ProjectMapping[]>;
}

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
  readonly approval?: ApprovalDecision | null;
  /** The copier's project symbol mappings, read with the fan-out's inputs; omitted: read for this run. */
  readonly mappings?: readonly ProjectMapping[];
  /** Told once the first request of this run has gone to the slave's venue (ExecutionContext.sent). */
  readonly sent?: () => void;
}

const isOpening = (event: MasterEvent): boolean =>
  event.type === 'MasterPositionOpened' || event.type === 'MasterPendingOrderPlaced' || event.type === 'MasterPendingOrderFilled';

/** The slave's quote of the mapped symbol, read only for a market open of a copier with a maxSlippage (CopierDTO). */
const slippageQuote = async (event: MasterEvent, settings: CopierSettings, slave: SlaveSide, overrides: Readonly<Record<string, string>>) => {
  if (settings.maxSlippage <= 0 || !slave.ok || !isOpening(event) || !('orderType' in event.data)) return null;
  const symbol = mapSymbolOf(event.data.symbol, slave.symbols, overrides);
  if (symbol === null) return null;
  return slave.connection.quote(symbol).then(
    (q) => ({ bid: q.bid, ask: q.ask }),
    () => null,
  );
};

export class CopyHandlers {
  private readonly kit: HandlerKit;
  private readonly deps: HandlerDeps;
  private readonly inputs: CopyInputs;
  private readonly outcomes: Outcomes;
  private readonly management: ManagementTicks;

  constructor(
    deps: HandlerDeps,
    inputs: CopyInputs,
    outcomes: Outcomes,
    /** The engine's book of copies (book.ts): what an early run decides with, once it holds the master. */
    private readonly book: CopyBook | null = null,
  ) {
    this.kit = new HandlerKit(deps, inputs, outcomes);
    this.deps = deps;
    this.inputs = inputs;
    this.outcomes = outcomes;
    this.management = new ManagementTicks(this.kit);
  }

  /** Handles one work item; a failure is the caller's to retry. */
  async handle(work: Work): Promise<void> {
    if (work.kind === 'master') await this.handleMasterEvent(work);
    else if (work.kind === 'copier') await this.handleCopierEvent(work);
    else if (work.kind === 'retry') await handleRetry(this.kit, work.clientOrderId);
    else if (work.kind === 'deferral') await this.handleDeferral(work.deferralId);
    else await this.management.handle(work.copierId);
  }

  private async handleMasterEvent(work: Extract<Work, { kind: 'master' }>): Promise<void> {
    const { recorded, masterAccountId } = work;
    // What was placed from the venue's change already (early.ts): recorded here, not decided again.
    const placed = (await work.early) ?? EMPTY_EARLY;
    if (work.stateBefore) await this.outcomes.catchUpReadModels(work.stateBefore);
    else if (this.outcomes.newestAppend) await this.outcomes.catchUpReadModels(this.outcomes.newestAppend);
    const source: CopySource = { eventId: recorded.id, position: positionToString(recorded.position), type: recorded.type };
    const appends: Promise<void>[] = [];
    for (const { copier, events } of placed.values()) appends.push(this.recordEarly(copier, masterAccountId, source, recorded.position, events));
    const copiers = (await this.inputs.copiersOf(masterAccountId)).filter((copier) => !placed.has(copier.id));
    if (copiers.length > 0) await this.decideMasterEvent(work, copiers, source, appends);
    await Promise.all(appends);
  }

  /** The outcome placed early, stored now with the event's position, unless its copies stream holds it. */
  private async recordEarly(copier: CopierRow, masterAccountId: string, source: CopySource, position: Position, events: readonly CopyEvent[]): Promise<void> {
    if (!(await this.outcomes.notHandled(copier.id, position))) return;
    await this.outcomes.append(copier, masterAccountId, source, withSource(events, source), true);
  }

  /** The master event decided and executed for `copiers`; their appends are left in `appends`. */
  private async decideMasterEvent(
    work: Extract<Work, { kind: 'master' }>,
    copiers: readonly CopierRow[],
    source: CopySource,
    appends: Promise<void>[],
  ): Promise<void> {
    const { recorded, trigger, masterAccountId } = work;
    if (trigger.kind === 'increase') {
      await this.forEachCopier(copiers, async (copier) =>
        this.kit.appendSkip(
          copier,
          masterAccountId,
          source,
          trigger.masterPositionId,
          'NETTING_INCREASE_NOT_COPIED',
          `volume added to master position #${trigger.masterPositionId} (${trigger.volume} lots ${trigger.symbol}, netting) not copied: only new positions are copied`,
          true,
        ),
      );
      return;
    }
    const masterEventAt = (recorded.data as { at?: string }).at ?? null;
    const inputs = await this.fanOutInputs(masterAccountId, trigger.event, copiers);
    // Each copier's slave orders are placed without waiting for the outcomes of the copiers before it
    // to be stored: those appends go together (outcomes.ts) and the event is handled once all are in.
    await this.forEachCopier(copiers, async (copier) => {
      await this.copyForCopier(this.fanOutRun(copier, masterAccountId, source, masterEventAt, trigger.event, inputs, true), appends);
    });
  }

  /**
   * Early placement (early.ts): the master event decided and executed for the master's copiers without
   * features, nothing recorded; the outcomes answered are the handler's to store. `ready` is asked once
   * the inputs are read, before anything is placed: false holds the whole run back (null).
   */
  async placeEarly(cause: EarlyCause, ready: (slaveAccountIds: readonly string[]) => boolean): Promise<EarlyOutcomes | null> {
    const { masterAccountId, trigger } = cause;
    const copiers = await this.inputs.copiersOf(masterAccountId);
    const placed = new Map<string, { copier: CopierRow; events: readonly CopyEvent[] }>();
    if (copiers.length === 0) return placed;
    const inputs = await this.fanOutInputs(masterAccountId, trigger.event, copiers, this.book);
    if (!ready(copiers.map((c) => c.to_account_id))) return null;
    // Its position is known once the event is stored: the handler puts it in (withSource).
    const source: CopySource = { eventId: cause.eventId, position: NO_POSITION, type: cause.eventType };
    const featureless = copiers.filter((copier) => (inputs.features.get(copier.id) ?? []).length === 0);
    await this.inTurn(featureless, async (copier, sent) => {
      const run = Object.assign(this.fanOutRun(copier, masterAccountId, source, cause.masterEventAt, trigger.event, inputs, false), { sent });
      placed.set(copier.id, { copier, events: (await this.decideForCopier(run)) ?? [] });
    });
    return placed;
  }

  /**
   * Runs `work` for every copier, each starting once the one before it has sent its first request to
   * the venue (or ended): the slaves' orders go out one after another, each as soon as it is decided,
   * rather than all once every copier is decided, and the venue saves they wait for overlap. Nothing
   * but the venue is waited for between two copiers: their inputs are read for the whole fan-out.
   */
  private async inTurn(copiers: readonly CopierRow[], work: (copier: CopierRow, sent: () => void) => Promise<void>): Promise<void> {
    let turn: Promise<void> = Promise.resolve();
    await Promise.all(
      copiers.map((copier) => {
        const mine = turn;
        let sent!: () => void;
        turn = new Promise<void>((resolve) => (sent = resolve));
        return mine.then(() => work(copier, sent)).finally(sent);
      }),
    );
  }

  /**
   * The inputs of a whole fan-out, read at once: none depends on another (the history only on the
   * features), so the copy waits for the slowest read, not for their sum.
   */
  private async fanOutInputs(masterAccountId: string, event: MasterEvent, copiers: readonly CopierRow[], book: CopyBook | null = null): Promise<FanOutInputs> {
    const symbol = 'symbol' in event.data ? event.data.symbol : null;
    // The early run's copies and martingale counts from the engine's book when it holds the master.
    const kept = book?.has(masterAccountId) ? book : null;
    const [master, copies, martingale, slaves, [features, history], mappings] = await Promise.all([
      this.inputs.master(masterAccountId, isOpening(event) ? symbol : null),
      kept ? kept.copiesOf(masterAccountId) : this.inputs.copiesOf(masterAccountId),
      kept ? kept.martingaleOf(copiers.map((c) => c.id)) : this.inputs.martingaleOf(copiers.map((c) => c.id)),
      this.inputs.slaveAccounts(
        copiers.map((c) => c.to_account_id),
        masterAccountId,
      ),
      this.inputs.activeFeatures(copiers).then(async (active) => [active, await copyHistory(this.deps.db, [...active.keys()])] as const),
      this.inputs.projectMappingsOf(copiers),
    ]);
    return { master, copies, martingale, slaves, features, history, mappings };
  }

  private fanOutRun(
    copier: CopierRow,
    masterAccountId: string,
    source: CopySource,
    masterEventAt: string | null,
    event: MasterEvent,
    inputs: FanOutInputs,
    storeCause: boolean,
  ): CopyRun {
    return {
      copier,
      masterAccountId,
      source,
      masterEventAt,
      events: [event],
      master: inputs.master,
      liveCopies: inputs.copies.get(copier.id) ?? [],
      martingale: inputs.martingale.get(copier.id)!,
      slaveAccounts: inputs.slaves,
      features: inputs.features.get(copier.id) ?? [],
      history: inputs.history.get(copier.id) ?? [],
      storeCause,
      deferredBy: [],
      mappings: inputs.mappings.get(copier.id) ?? [],
    };
  }

  /** Copies the master's open positions and pending orders that this copier holds no live copy of. */
  private async handleCopierEvent(work: Extract<Work, { kind: 'copier' }>): Promise<void> {
    const { recorded, copierId } = work;
    await this.outcomes.catchUpReadModels(recorded.position);
    const copier = await this.inputs.copier(copierId);
    if (!copier) return;
    if (work.trigger === 'copyOpenPositions' && !(copier.settings as CopierSettings).copyOpenPositions) return;
    if (!(await this.outcomes.notHandled(copier.id, recorded.position))) return;
    const masterAccountId = copier.from_account_id;
    const source: CopySource = { eventId: recorded.id, position: positionToString(recorded.position), type: recorded.type };
    const copies = (await this.inputs.copiesOf(masterAccountId)).get(copier.id) ?? [];
    const copied = new Set(copies.map((c) => c.masterPositionId));
    const masterConnection = this.deps.connections.connection(masterAccountId);
    const book = masterConnection ? await masterConnection.positions() : [];
    const missing = book.filter((item) => !copied.has(item.id));
    const events: MasterEvent[] = missing.map((item) =>
      openingEventOf(
        uuidv5(`${recorded.id}/${item.id}`, COPY_EVENT_NAMESPACE),
        item.kind === 'position' ? { kind: 'position', data: positionData(item) } : { kind: 'order', data: orderData(item) },
      ),
    );
    if (events.length === 0) {
      await this.outcomes.append(copier, masterAccountId, source, [], true);
      return;
    }
    const master: MasterSide = masterConnection ? { funds: fundsOf(await masterConnection.accountInformation()), symbol: null } : { funds: null, symbol: null };
    const martingale = (await this.inputs.martingaleOf([copier.id])).get(copier.id)!;
    const features = (await this.inputs.activeFeatures([copier])).get(copier.id) ?? [];
    const history = (await copyHistory(this.deps.db, features.length ? [copier.id] : [])).get(copier.id) ?? [];
    await this.copyForCopier({
      copier,
      masterAccountId,
      source,
      masterEventAt: null,
      events,
      master,
      liveCopies: copies,
      martingale,
      masterSymbolOf: async (symbol) => (masterConnection ? specOf(await masterConnection.symbolInfo(symbol)) : null),
      features,
      history,
      storeCause: true,
      deferredBy: [],
    });
  }

  /**
   * Decides and executes the run's master events for one copier and appends the outcome. When the
   * master side has no symbol specification, `masterSymbolOf` looks it up per event. With `appends`,
   * the append is left there for the caller to wait for, and this answers once the orders are placed.
   */
  private async copyForCopier(run: CopyRun, appends?: Promise<void>[]): Promise<readonly CopyEvent[]> {
    const outcome = await this.decideForCopier(run);
    if (outcome === null) return [];
    const appended = this.outcomes.append(run.copier, run.masterAccountId, run.source, outcome, run.storeCause);
    if (appends) {
      // Waited for by the caller; should a later copier fail first, the failure is the caller's to retry.
      appended.catch(() => undefined);
      appends.push(appended);
    } else await appended;
    return outcome;
  }

  /** The run's master events decided and executed for its copier: the outcome, or null when its cause is handled already. */
  private async decideForCopier(run: CopyRun): Promise<CopyEvent[] | null> {
    const { copier, source } = run;
    // Whether the cause is handled already, the copier's symbol mappings and the slave, read at once.
    const [notHandled, mappings, slave] = await Promise.all([
      !run.storeCause || this.outcomes.notHandled(copier.id, positionFromString(source.position)),
      run.mappings ?? this.inputs.projectMappingsFor(copier),
      this.inputs.slave(copier.to_account_id, run.slaveAccounts),
    ]);
    if (!notHandled) return null;
    const view = copierViewOf(copier, mappings);
    const copies = [...run.liveCopies];
    const outcome: CopyEvent[] = [];
    for (const event of run.events) {
      const results = await this.copyOne(run, view, event, slave, copies);
      for (const result of results) {
        if (result.type === 'CopyExecuted' && result.data.action.type === 'open' && result.data.result.type === 'opened') {
          const { action, result: opened } = result.data;
          const copy: SlaveCopy = {
            masterPositionId: action.masterPositionId,
            slavePositionId: opened.slavePositionId,
            kind: opened.kind,
            symbol: action.symbol,
            orderType: action.orderType,
            volume: opened.volume,
          };
          copies.push(action.part === undefined ? copy : Object.assign(copy, { part: action.part }));
        }
      }
      outcome.push(...results);
    }
    return outcome;
  }

  /** One master event of a run: decided with what there is, and executed. */
  private async copyOne(run: CopyRun, view: CopierView, event: MasterEvent, slave: SlaveSide, copies: readonly SlaveCopy[]): Promise<CopyEvent[]> {
    const { copier, masterAccountId, source, master } = run;
    const id = event.data.masterPositionId;
    const opening = isOpening(event);
    // Something is placed: by an active copier, and by a monitor-only one only to manage what it holds.
    const placing = view.settings.active && !(view.settings.monitorOnly && opening);
    if (placing && !slave.ok) return [this.kit.skipped(copier, masterAccountId, source, id, slave.reason, `master #${id} not copied: ${slave.message}`)];
    const symbol = 'symbol' in event.data ? event.data.symbol : '';
    const masterSymbol = master.symbol ?? (opening && run.masterSymbolOf ? await run.masterSymbolOf(symbol).catch(() => null) : null);
    if (placing && opening && (!master.funds || !masterSymbol)) {
      const why = `the master account's funds or its ${symbol} specification are not available (is it connected?)`;
      return [this.kit.skipped(copier, masterAccountId, source, id, 'MASTER_DATA_UNAVAILABLE', `master #${id} not copied: ${why}`)];
    }
    // A copier that places nothing decides on what data there is.
    const slaveFunds = slave.ok ? fundsOf(slave.info) : { balance: 0, equity: 0, currency: master.funds?.currency ?? 'USD' };
    const masterFunds = master.funds ?? slaveFunds;
    // Nothing is awaited that has nothing to wait for: a copier of a fan-out without features, on
    // accounts of one currency, without a maxSlippage, decides in one go.
    const rate =
      slave.ok && !oneCurrency(slaveFunds.currency, masterFunds.currency)
        ? await this.inputs.slaveToMasterRate(slave.connection, slaveFunds.currency, masterFunds.currency)
        : null;
    const now = this.deps.clock().toISOString();
    // An approval decided while its feature was on still sizes the copy (opening.ts volumeOverride).
    const features =
      run.features.length === 0 && !run.approval
        ? noFeaturesAt(now, run.masterEventAt, run.deferredBy)
        : await featureInputs(event, this.featureSources(run, view, slave, now));
    const slaveQuote = view.settings.maxSlippage > 0 ? await slippageQuote(event, view.settings, slave, view.symbolOverrides) : null;
    const actions = decideCopy(
      event,
      view,
      // Built member by member, not spread (decisionContext.ts, orderOf): this runs once per copier of a fan-out.
      {
        master: masterFunds,
        slave: { balance: slaveFunds.balance, equity: slaveFunds.equity, currency: slaveFunds.currency, copies, martingale: run.martingale },
      },
      {
        masterSymbol: masterSymbol ?? { symbol, minLot: 0, maxLot: 0, lotStep: 0, digits: 0, point: 1, contractSize: 1 },
        slaveSymbols: slave.ok ? slave.symbols : [],
        slaveToMasterRate: rate,
        slaveQuote,
      },
      slave.ok ? Object.assign({}, features, { protections: slave.protections }) : features,
    );
    return executeActions(
      actions,
      Object.assign(
        this.kit.executionContext(copier, masterAccountId, source, run.masterEventAt, slave),
        { masterEvent: event, deferredBy: run.deferredBy, slaveToMasterRate: rate },
        run.sent ? { sent: run.sent } : {},
      ),
    );
  }

  /** What the copier's features read for a decision (featureInputs.ts). */
  private featureSources(run: CopyRun, view: CopierView, slave: SlaveSide, now: string): FeatureSources {
    const { masterAccountId, source } = run;
    return {
      active: run.features,
      history: run.history,
      now,
      eventTime: run.masterEventAt,
      deferredBy: run.deferredBy,
      approval: run.approval ?? null,
      master: this.deps.connections.connection(masterAccountId),
      slave: slave.ok ? slave : null,
      copier: view,
      masterOrders: (symbol, since) => this.masterOrders(masterAccountId, symbol, since, run.storeCause ? source.position : null),
      calendar: (from, to) => calendarEvents(this.deps.db, { from, to }),
    };
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
    const opening = isOpening(event);
    if (opening) {
      const held = await this.deps.db
        .selectFrom('positions')
        .select('id')
        .where('account_id', '=', masterAccountId)
        .where('id', '=', event.data.masterPositionId)
        .executeTakeFirst();
      if (!held) {
        await this.kit.appendSkip(
          copier,
          masterAccountId,
          source,
          event.data.masterPositionId,
          'MASTER_POSITION_GONE',
          `${event.data.symbol} of master #${event.data.masterPositionId} not copied: the master no longer holds it when the wait ended`,
          false,
        );
        return;
      }
    }
    const master = await this.inputs.master(masterAccountId, opening && 'symbol' in event.data ? event.data.symbol : null);
    const copies = (await this.inputs.copiesOf(masterAccountId)).get(copier.id) ?? [];
    const martingale = (await this.inputs.martingaleOf([copier.id])).get(copier.id)!;
    const features = (await this.inputs.activeFeatures([copier])).get(copier.id) ?? [];
    const history = (await copyHistory(this.deps.db, [copier.id])).get(copier.id) ?? [];
    const outcome = await this.copyForCopier({
      copier,
      masterAccountId,
      source,
      masterEventAt: row.master_event_at ? new Date(row.master_event_at).toISOString() : null,
      events: [event],
      master,
      liveCopies: copies,
      martingale,
      features,
      history,
      storeCause: false,
      deferredBy: row.deferred_by as string[],
      approval: await approvalOfDeferral(this.deps.db, copier.id, event, row.deferred_by as string[]),
    });
    if (outcome.length === 0) {
      // Nothing left to do (the slave's copy of a filled pending order is there already): the wait
      // still needs an outcome, or it would be decided again every tick.
      await this.kit.appendSkip(
        copier,
        masterAccountId,
        source,
        event.data.masterPositionId,
        'ALREADY_COPIED',
        `master #${event.data.masterPositionId}: nothing to copy when the wait ended, the slave already holds its copy`,
        false,
      );
    }
  }

  /**
   * The master's orders on a symbol (features/rules.ts 'masterOrders'), once the read models include
   * the store event decided and everything before it: the master's orders just before count.
   */
  private async masterOrders(masterAccountId: string, symbol: string, since: string | null, position: string | null): Promise<MasterOrderRecord[]> {
    if (position !== null && position !== NO_POSITION) await this.outcomes.waitForReadModels(positionFromString(position));
    return masterOrdersOf(this.deps.db, masterAccountId, symbol, since);
  }

  private async forEachCopier(copiers: readonly CopierRow[], work: (copier: CopierRow) => Promise<void>): Promise<void> {
    let next = 0;
    const worker = async () => {
      while (next < copiers.length) {
        const copier = copiers[next++]!;
        await work(copier);
      }
    };
    await Promise.all(Array.from({ length: Math.min(FAN_OUT_CONCURRENCY, copiers.length) }, worker));
  }
}
