// The copy engine's handlers: one work item of the pipeline, decided, executed and recorded. A master
// event is decided for every copier of its master; a copier event (created, activated, copy open
// positions) copies what the master holds and the copier does not; a retry resends a refused open; a
// deferral decides a held-back event again; a management tick lets the copier's features manage its
// open copies. Each copier's outcome is one append (outcomes.ts).
import { v5 as uuidv5 } from 'uuid';
import type { Kysely } from 'kysely';
import type { CopierSettings } from '../../domain/copier/settings.js';
import { decideCopy } from '../../domain/copy/decision.js';
import { protectionSkip } from '../../domain/protection/blocks.js';
import { type CopyEvent, type CopySkipReason, type CopySource, DEFERRAL_SOURCE, MANAGEMENT_SOURCE } from '../../domain/copy/events.js';
import { type ActiveFeature, type CopyRecord, isStandaloneTrade, type MasterOrderRecord } from '../../domain/copy/features/rules.js';
import { slaveComment, slaveMagicNumber } from '../../domain/copy/labels.js';
import type { MasterEvent, MasterTrade, OpenAction, SlaveCopy } from '../../domain/copy/types.js';
import type { ReadModels } from '../../projections/schema.js';
import { type Position, positionFromString, positionToString } from '../../store/port.js';
import type { AccountConnections } from '../venues/connections.js';
import { orderData, positionData } from '../venues/recorder.js';
import { approvalOfDeferral } from './approvals.js';
import { executeActions } from './executor.js';
import { featureInputs } from './featureInputs.js';
import {
  activeFeatures,
  copyHistory,
  type CopierRow,
  copierViewOf,
  type CopyInputs,
  fundsOf,
  type MasterSide,
  masterOrdersOf,
  type SlaveAccount,
  slaveLastTradeAt,
  specOf,
  standaloneTrades,
} from './inputs.js';
import { copyActionOf, manage, managedFeatures } from './management.js';
import { COPY_EVENT_NAMESPACE, NO_POSITION, type Outcomes } from './outcomes.js';
import { openingEventOf } from './triggers.js';
import type { Work } from './work.js';

/** A management request the venue refused is recorded again only after this long. */
const MANAGEMENT_FAILURE_QUIET_MS = 10 * 60_000;
/** Copiers of one master handled at once for one event. */
const FAN_OUT_CONCURRENCY = 32;

export interface HandlerDeps {
  readonly db: Kysely<ReadModels>;
  readonly connections: AccountConnections;
  readonly clock: () => Date;
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
  readonly approval?: 'approved' | 'rejected' | null;
}

/** The master's open positions, as the positions read model holds them. */
const masterPositionsOf = async (db: Kysely<ReadModels>, masterAccountId: string): Promise<MasterTrade[]> => {
  const rows = await db.selectFrom('positions').selectAll().where('account_id', '=', masterAccountId).where('kind', '=', 'position').execute();
  return rows.map((r) => ({
    masterPositionId: r.id,
    symbol: r.symbol,
    orderType: r.order_type as MasterTrade['orderType'],
    volume: r.volume,
    openPrice: r.open_price,
    stopLoss: r.stop_loss,
    takeProfit: r.take_profit,
    comment: r.comment,
    magicNumber: r.magic_number === null ? null : Number(r.magic_number),
  }));
};

export class CopyHandlers {
  private readonly managementFailures = new Map<string, number>();

  constructor(
    private readonly deps: HandlerDeps,
    private readonly inputs: CopyInputs,
    private readonly outcomes: Outcomes,
  ) {}

  /** Handles one work item; a failure is the caller's to retry. */
  async handle(work: Work): Promise<void> {
    if (work.kind === 'master') await this.handleMasterEvent(work);
    else if (work.kind === 'copier') await this.handleCopierEvent(work);
    else if (work.kind === 'retry') await this.handleRetry(work.clientOrderId);
    else if (work.kind === 'deferral') await this.handleDeferral(work.deferralId);
    else await this.handleManagement(work.copierId);
  }

  private async handleMasterEvent(work: Extract<Work, { kind: 'master' }>): Promise<void> {
    const { recorded, trigger, masterAccountId } = work;
    if (work.stateBefore) await this.outcomes.catchUpReadModels(work.stateBefore);
    else if (this.outcomes.newestAppend) await this.outcomes.catchUpReadModels(this.outcomes.newestAppend);
    const copiers = await this.inputs.copiersOf(masterAccountId);
    if (copiers.length === 0) return;
    const source: CopySource = { eventId: recorded.id, position: positionToString(recorded.position), type: recorded.type };
    const masterEventAt = (recorded.data as { at?: string }).at ?? null;
    if (trigger.kind === 'increase') {
      await this.forEachCopier(copiers, recorded.position, async (copier) =>
        this.appendSkip(
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
    const symbol = 'symbol' in trigger.event.data ? trigger.event.data.symbol : null;
    const master = await this.inputs.master(
      masterAccountId,
      trigger.event.type === 'MasterPositionOpened' || trigger.event.type === 'MasterPendingOrderPlaced' || trigger.event.type === 'MasterPendingOrderFilled'
        ? symbol
        : null,
    );
    const copies = await this.inputs.copiesOf(masterAccountId);
    const martingale = await this.inputs.martingaleOf(copiers.map((c) => c.id));
    const slaves = await this.inputs.slaveAccounts(copiers.map((c) => c.to_account_id));
    const features = await activeFeatures(this.deps.db, copiers);
    const history = await copyHistory(this.deps.db, [...features.keys()]);
    await this.forEachCopier(copiers, recorded.position, async (copier) => {
      await this.copyForCopier({
        copier,
        masterAccountId,
        source,
        masterEventAt,
        events: [trigger.event],
        master,
        liveCopies: copies.get(copier.id) ?? [],
        martingale: martingale.get(copier.id)!,
        slaveAccounts: slaves,
        features: features.get(copier.id) ?? [],
        history: history.get(copier.id) ?? [],
        storeCause: true,
        deferredBy: [],
      });
    });
  }

  /** Copies the master's open positions and pending orders that this copier holds no live copy of. */
  private async handleCopierEvent(work: Extract<Work, { kind: 'copier' }>): Promise<void> {
    const { recorded, copierId } = work;
    await this.outcomes.catchUpReadModels(recorded.position);
    const copier = await this.inputs.copier(copierId);
    if (!copier) return;
    const settings = copier.settings as CopierSettings;
    if (work.trigger === 'copyOpenPositions' && !settings.copyOpenPositions) return;
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
    const features = (await activeFeatures(this.deps.db, [copier])).get(copier.id) ?? [];
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
   * master side has no symbol specification, `masterSymbolOf` looks it up per event.
   */
  private async copyForCopier(run: CopyRun): Promise<readonly CopyEvent[]> {
    const { copier, masterAccountId, source, master } = run;
    if (run.storeCause && !(await this.outcomes.notHandled(copier.id, positionFromString(source.position)))) return [];
    const view = copierViewOf(copier, await this.inputs.projectMappingsFor(copier));
    const live = view.settings.active && !view.settings.monitorOnly;
    const slave = await this.inputs.slave(copier.to_account_id, run.slaveAccounts);
    const copies = [...run.liveCopies];
    const outcome: CopyEvent[] = [];
    const skip = (masterPositionId: string, reason: 'SLAVE_NOT_CONNECTED' | 'SLAVE_TRADING_DISABLED' | 'MASTER_DATA_UNAVAILABLE', message: string) =>
      outcome.push(this.skipped(copier, masterAccountId, source, masterPositionId, reason, message));
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
        skip(
          id,
          'MASTER_DATA_UNAVAILABLE',
          `master #${id} not copied: the master account's funds or its ${symbol} specification are not available (is it connected?)`,
        );
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
          copies.push({
            masterPositionId: action.masterPositionId,
            slavePositionId: opened.slavePositionId,
            kind: opened.kind,
            symbol: action.symbol,
            orderType: action.orderType,
            volume: opened.volume,
          });
        }
      }
      outcome.push(...results);
    }
    await this.outcomes.append(copier, masterAccountId, source, outcome, run.storeCause);
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
      const held = await this.deps.db
        .selectFrom('positions')
        .select('id')
        .where('account_id', '=', masterAccountId)
        .where('id', '=', event.data.masterPositionId)
        .executeTakeFirst();
      if (!held) {
        await this.appendSkip(
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
    const features = (await activeFeatures(this.deps.db, [copier])).get(copier.id) ?? [];
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
      await this.appendSkip(
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
    const masterPositions = await masterPositionsOf(this.deps.db, masterAccountId);
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
      slaveLastTradeAt: active.some((f) => f.feature.rules.needs?.includes('slaveActivity'))
        ? await slaveLastTradeAt(this.deps.db, copier.to_account_id)
        : null,
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
      const results = (await executeActions([action], { ...this.executionContext(copier, masterAccountId, source, null, slave), openRetryMinutes: 0 })).map(
        (event): CopyEvent => {
          // A standalone trade (keep-alive) is no copy: the log says what it is in the feature's words.
          const note = isStandaloneTrade(action.masterPositionId) ? { note: ask.action.message } : {};
          if (event.type === 'CopyExecuted') return { ...event, data: { ...event.data, by: ask.feature.feature.type, ...note } };
          return event.type === 'CopyFailed' ? { ...event, data: { ...event.data, ...note } } : event;
        },
      );
      // A request the venue keeps refusing (each second) is recorded once in a while, not each time.
      if (results.some((e) => e.type === 'CopyFailed')) {
        const last = this.managementFailures.get(key);
        if (last !== undefined && Date.now() - last < MANAGEMENT_FAILURE_QUIET_MS) continue;
        this.managementFailures.set(key, Date.now());
      }
      if (action.type === 'skip' && this.managementFailures.has(key)) continue;
      if (action.type === 'skip') this.managementFailures.set(key, Date.now());
      await this.outcomes.appendWithIds(
        copier,
        masterAccountId,
        source,
        results.map((event, i) => ({ id: uuidv5(`${key}/${i}`, COPY_EVENT_NAMESPACE), event })),
        false,
      );
    }
  }

  private executionContext(
    copier: CopierRow,
    masterAccountId: string,
    source: CopySource,
    masterEventAt: string | null,
    slave: Awaited<ReturnType<CopyInputs['slave']>> | null,
  ) {
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
      await this.outcomes.appendWithIds(
        copier,
        retry.master_account_id,
        source,
        [{ id: expiredId, event: this.skipped(copier, retry.master_account_id, source, action.masterPositionId, 'OPEN_RETRY_EXPIRED', message) }],
        false,
      );
    };
    if (!copier) return;
    if (new Date(retry.retry_until).getTime() <= this.deps.clock().getTime()) {
      await giveUp(
        `open of master #${action.masterPositionId} given up: the broker kept refusing it until the open-retry window closed at ${new Date(retry.retry_until).toISOString()}`,
      );
      return;
    }
    const masterStillHolds = await this.deps.db
      .selectFrom('positions')
      .select('id')
      .where('account_id', '=', retry.master_account_id)
      .where('id', '=', action.masterPositionId)
      .executeTakeFirst();
    const settings = copier.settings as CopierSettings;
    if (!masterStillHolds || !settings.active || settings.monitorOnly) {
      await giveUp(
        `open of master #${action.masterPositionId} no longer retried: ${!masterStillHolds ? 'the master closed the position' : 'the copier is no longer copying'}`,
      );
      return;
    }
    const slave = await this.inputs.slave(copier.to_account_id);
    if (!slave.ok) return;
    // Tried again at the next interval while a protection holds new opens back.
    if (protectionSkip(slave.protections, action.symbol)) return;
    const events = await executeActions([action], { ...this.executionContext(copier, retry.master_account_id, source, null, slave), openRetryMinutes: 0 });
    const executed = events.find((e) => e.type === 'CopyExecuted');
    if (!executed) return;
    await this.outcomes.appendWithIds(
      copier,
      retry.master_account_id,
      source,
      [{ id: uuidv5(`${clientOrderId}/retried`, COPY_EVENT_NAMESPACE), event: executed }],
      false,
    );
  }

  /** A skip with its reason, so the account log says why the trade was not copied. */
  /** Records that the cause was not copied for this copier, and why (a reason a user can read). */
  private appendSkip(
    copier: CopierRow,
    masterAccountId: string,
    source: CopySource,
    masterPositionId: string,
    reason: CopySkipReason,
    message: string,
    storeCause: boolean,
  ): Promise<void> {
    return this.outcomes.append(
      copier,
      masterAccountId,
      source,
      [this.skipped(copier, masterAccountId, source, masterPositionId, reason, message)],
      storeCause,
    );
  }

  private skipped(
    copier: CopierRow,
    masterAccountId: string,
    source: CopySource,
    masterPositionId: string,
    reason: CopySkipReason,
    message: string,
  ): CopyEvent {
    const base = { copierId: copier.id, masterAccountId, slaveAccountId: copier.to_account_id, source, at: this.deps.clock().toISOString() };
    return { type: 'TradeSkipped', data: { ...base, masterPositionId, reason, message, wouldHave: [] } };
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
}
