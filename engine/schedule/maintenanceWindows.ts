// Carries out maintenance windows (FeatureMaintenanceWindowDTO; rules in
// domain/accountFeatures/maintenanceWindow.ts). Every second it looks at each window feature and takes
// the steps its window needs now, each recorded in the feature's maintenance stream: enter (the copiers'
// modes recorded before anything changes), switch the copiers, close positions per account, complete
// the entry, and at the end exit (the recorded modes given back). The steps are decided on the
// aggregate's own events, and every side effect is safe to repeat (a copier update to the mode it has
// changes nothing; closes carry client request ids), so a crash between a step and its record is
// finished by the next tick of the next run. A window attached to a project (the reference's scope)
// affects every account of the project that exists when it starts (accountType and broker still
// narrow it); one attached to an account, that account and its affectedAccountIds.
import type { Kysely } from 'kysely';
import { v5 as uuidv5 } from 'uuid';
import { AccountStatus } from '../../domain/account/enums.js';
import {
  accountMatches,
  closeStrategyOf,
  entryChange,
  MAINTENANCE_WINDOW,
  type MaintenanceStep,
  maintenanceStep,
  type MaintenanceWindowSettings,
  type RecordedCopierState,
  windowKeyOf,
} from '../../domain/accountFeatures/maintenanceWindow.js';
import { copierDecider } from '../../domain/copier/decider.js';
import { copierStream } from '../../domain/copier/events.js';
import type { CopierSettings } from '../../domain/copier/settings.js';
import { membersOf } from '../../domain/feature/definition.js';
import type { FeatureSetting } from '../../domain/feature/events.js';
import type { MaintenanceCommand } from '../../domain/maintenanceWindow/commands.js';
import { maintenanceDecider, type MaintenanceWindows, type WindowState } from '../../domain/maintenanceWindow/decider.js';
import { maintenanceStream } from '../../domain/maintenanceWindow/events.js';
import { type CommandMetadata, systemContext } from '../../domain/shared/command.js';
import { DomainError } from '../../domain/shared/errors.js';
import { maintenanceWindows, type WindowView } from '../../projections/maintenanceWindows/queries.js';
import { KeptRead, type ReadModelMarks } from '../../projections/keptRead.js';
import type { ReadModels } from '../../projections/schema.js';
import { aggregateStream, handleCommand } from '../../store/commandHandler.js';
import type { EventStore, Position } from '../../store/port.js';
import type { AccountConnections } from '../venues/connections.js';
import { VenueError } from '../venues/port.js';
import { isDatabaseUnavailable, Recovery, type RecoveryLog } from '../../store/recovery.js';

/** Fixed forever: the client ids of a window's closes derive from it. */
const MAINTENANCE_NAMESPACE = '5b8e2f17-93c4-4d2a-8f61-0c7a9e3d4b25';
const TICK_MS = 1000;
/** Steps one window may take in one tick (enter, switch, close, complete). */
const MAX_STEPS = 6;

export interface MaintenanceWindowDeps {
  readonly store: EventStore;
  readonly db: Kysely<ReadModels>;
  readonly connections: AccountConnections;
  readonly clock: () => Date;
  readonly waitForReadModels: (position: Position, timeoutMs: number) => Promise<boolean>;
  readonly log: RecoveryLog;
  /** Read-model marks (ProjectionRunner.version): the windows are read again only when they may have changed. */
  readonly readModelMarks?: ReadModelMarks;
}

interface FeatureRow {
  readonly id: string;
  readonly project_id: string;
  /** null: a project's window. */
  readonly account_id: string | null;
  readonly setting: MaintenanceWindowSettings;
}

export class MaintenanceWindowRunner {
  private timer: NodeJS.Timeout | null = null;
  private running = false;

  private readonly recovery: Recovery;
  /** The window features and the windows known, read again once their read models moved. */
  private readonly windows: KeptRead<{ readonly features: readonly FeatureRow[]; readonly known: readonly WindowView[] }>;

  constructor(private readonly deps: MaintenanceWindowDeps) {
    this.recovery = new Recovery('the maintenance window scheduler', deps.log, { action: 'runs again at the next tick' });
    this.windows = new KeptRead(['features', 'maintenance_windows'], () => this.read(), deps.readModelMarks);
  }

  start(tickMs = TICK_MS): void {
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = true;
      this.tick()
        .then(
          () => this.recovery.succeeded(),
          (error: unknown) => void this.recovery.noted(error),
        )
        .finally(() => {
          this.running = false;
        });
    }, tickMs);
    this.timer.unref();
  }

  /** One window failed: a lost database ends the tick (logged once by its recovery); anything else is logged. */
  private failedWindow(what: string, error: unknown): void {
    if (isDatabaseUnavailable(error)) throw error;
    this.deps.log.error(`${what} failed`, error);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private async read(): Promise<{ features: FeatureRow[]; known: WindowView[] }> {
    const rows = await this.deps.db
      .selectFrom('features')
      .select(['id', 'project_id', 'account_id', 'scope_kind', 'setting'])
      .where('type', '=', MAINTENANCE_WINDOW)
      .where('scope_kind', 'in', ['account', 'project'])
      .execute();
    const features: FeatureRow[] = rows
      .filter((r) => r.scope_kind === 'project' || r.account_id !== null)
      .map((r) => ({
        id: r.id,
        project_id: r.project_id,
        account_id: r.scope_kind === 'project' ? null : r.account_id,
        setting: membersOf<MaintenanceWindowSettings>(r.setting as FeatureSetting),
      }));
    const known = await maintenanceWindows(
      this.deps.db,
      features.map((f) => f.id),
    );
    return { features, known };
  }

  /** Every window's due steps at the clock's now. */
  async tick(): Promise<void> {
    const { features, known } = await this.windows.get();
    const now = this.deps.clock().getTime();
    const current = new Set<string>();
    for (const feature of features) {
      const key = windowKeyOf(feature.setting);
      current.add(`${feature.id}/${key}`);
      const progress = known.find((w) => w.featureId === feature.id && w.windowKey === key) ?? null;
      // Cheap check on the read model first; the steps themselves go by the stream.
      if (maintenanceStep(feature.setting, progress, progress?.affectedAccountIds ?? [], now) === 'none') continue;
      await this.advance(feature.id, feature.account_id, feature.project_id, key, feature.setting, now).catch((error: unknown) =>
        this.failedWindow(`maintenance window ${feature.id} ${key}`, error),
      );
    }
    // Windows entered and not exited whose feature is gone or now has other times end now.
    for (const window of known) {
      if (window.exited || current.has(`${window.featureId}/${window.windowKey}`)) continue;
      await this.advance(window.featureId, window.accountId, window.projectId, window.windowKey, null, now).catch((error: unknown) =>
        this.failedWindow(`maintenance window ${window.featureId} ${window.windowKey}`, error),
      );
    }
  }

  private async advance(
    featureId: string,
    accountId: string | null,
    projectId: string,
    key: string,
    setting: MaintenanceWindowSettings | null,
    now: number,
  ): Promise<void> {
    let state = (await aggregateStream(this.deps.store, maintenanceStream(featureId), maintenanceDecider.evolve, maintenanceDecider.initialState)).state;
    const ctx = { featureId, accountId, projectId, key };
    for (let i = 0; i < MAX_STEPS; i++) {
      const window = state.windows[key] ?? null;
      const step = maintenanceStep(setting, window, window?.affectedAccountIds ?? [], now);
      if (step === 'none') return;
      const next = await this.perform(step, ctx, setting, window);
      if (!next) return;
      state = next;
    }
  }

  private metadata(projectId: string, featureId: string): CommandMetadata {
    return { now: this.deps.clock().toISOString(), context: { ...systemContext(`maintenance:${featureId}`), projectId } };
  }

  private async record(projectId: string, command: MaintenanceCommand): Promise<MaintenanceWindows> {
    const result = await handleCommand(this.deps.store, maintenanceStream(command.data.featureId), maintenanceDecider, command);
    if (result.position) await this.deps.waitForReadModels(result.position, 5000);
    return result.state;
  }

  /** Carries out one step and records it; null when it could not be finished now (tried again next tick). */
  private async perform(
    step: Exclude<MaintenanceStep, 'none'>,
    ctx: { featureId: string; accountId: string | null; projectId: string; key: string },
    setting: MaintenanceWindowSettings | null,
    window: WindowState | null,
  ): Promise<MaintenanceWindows | null> {
    const { featureId, accountId, projectId, key } = ctx;
    const target = { featureId, windowKey: key, accountId };
    const metadata = this.metadata(projectId, featureId);
    switch (step) {
      case 'enter': {
        const s = setting!;
        const affected = await this.affectedAccounts(projectId, accountId === null ? null : [accountId, ...s.affectedAccountIds], s);
        const copierStates = await this.copierStates(projectId, affected);
        return this.record(projectId, {
          type: 'EnterMaintenanceWindow',
          data: {
            ...target,
            projectId,
            startsAt: s.startTime,
            endsAt: s.endTime,
            maintenanceAction: s.maintenanceAction,
            closePositionStrategy: closeStrategyOf(s),
            affectedAccountIds: affected,
            copierStates,
          },
          metadata,
        });
      }
      case 'switchCopiers': {
        const switched: string[] = [];
        for (const recorded of window!.copierStates) {
          const change = entryChange(setting!.maintenanceAction, recorded);
          if (change && (await this.updateCopier(projectId, recorded, change, metadata))) switched.push(recorded.copierId);
        }
        return this.record(projectId, { type: 'RecordCopiersSwitched', data: { ...target, switched }, metadata });
      }
      case 'closePositions': {
        let state: MaintenanceWindows | null = null;
        for (const account of window!.affectedAccountIds) {
          if (window!.closedFor.includes(account)) continue;
          const closed = await this.closePositions(featureId, key, account, closeStrategyOf(setting!));
          if (closed === null) return null;
          state = await this.record(projectId, { type: 'RecordPositionsClosed', data: { ...target, closedAccountId: account, closed }, metadata });
        }
        return state;
      }
      case 'completeEntry':
        return this.record(projectId, { type: 'CompleteMaintenanceEntry', data: target, metadata });
      case 'exit': {
        const restored: string[] = [];
        for (const recorded of window!.copierStates) {
          if (await this.updateCopier(projectId, recorded, { active: recorded.active, monitorOnly: recorded.monitorOnly }, metadata))
            restored.push(recorded.copierId);
        }
        return this.record(projectId, { type: 'ExitMaintenanceWindow', data: { ...target, restored }, metadata });
      }
    }
  }

  /**
   * The accounts of the project among `ids` (null: all of the project's, oldest first) that exist, are
   * not deleted and match the window's accountType and broker, in the order given.
   */
  private async affectedAccounts(projectId: string, ids: readonly string[] | null, s: MaintenanceWindowSettings): Promise<string[]> {
    let query = this.deps.db
      .selectFrom('accounts')
      .select(['id', 'account_type_id', 'login_server'])
      .where('project_id', '=', projectId)
      .where('account_status_id', '<>', AccountStatus.Deleted);
    if (ids !== null) query = query.where('id', 'in', [...new Set(ids)]);
    const rows = await query.orderBy('created').orderBy('id').execute();
    const found = rows.filter((r) => accountMatches(s, { accountTypeId: r.account_type_id, loginServer: r.login_server })).map((r) => r.id);
    if (ids === null) return found;
    const matching = new Set(found);
    return [...new Set(ids)].filter((id) => matching.has(id));
  }

  /** The mode of every copier to or from the affected accounts. */
  private async copierStates(projectId: string, accounts: readonly string[]): Promise<RecordedCopierState[]> {
    if (accounts.length === 0) return [];
    const rows = await this.deps.db
      .selectFrom('copiers')
      .select(['id', 'to_account_id', 'settings'])
      .where('project_id', '=', projectId)
      .where((eb) => eb.or([eb('to_account_id', 'in', [...accounts]), eb('from_account_id', 'in', [...accounts])]))
      .orderBy('created')
      .orderBy('id')
      .execute();
    return rows.map((r) => {
      const settings = r.settings as CopierSettings;
      return { copierId: r.id, toAccountId: r.to_account_id, active: settings.active, monitorOnly: settings.monitorOnly };
    });
  }

  /** Sets a copier's mode; false when the copier is gone (deleted meanwhile). */
  private async updateCopier(projectId: string, copier: RecordedCopierState, changes: Partial<CopierSettings>, metadata: CommandMetadata): Promise<boolean> {
    try {
      const result = await handleCommand(this.deps.store, copierStream(copier.copierId), copierDecider, {
        type: 'UpdateCopier',
        data: { copierId: copier.copierId, projectId, toAccountId: copier.toAccountId, changes },
        metadata,
      });
      if (result.position) await this.deps.waitForReadModels(result.position, 5000);
      return true;
    } catch (error) {
      if (error instanceof DomainError && error.kind === 'notFound') return false;
      throw error;
    }
  }

  /**
   * Closes what the strategy closes on one account: its open positions and pending orders (CLOSE_ALL), or
   * those the copy engine opened there (CLOSE_COPIED). The number closed; null when the account is not
   * connected or the venue refused one (tried again next tick).
   */
  private async closePositions(
    featureId: string,
    key: string,
    accountId: string,
    strategy: MaintenanceWindowSettings['closePositionStrategy'],
  ): Promise<number | null> {
    if (strategy === 'NONE') return 0;
    const connection = this.deps.connections.connection(accountId);
    if (!connection) return null;
    let book = await connection.positions();
    if (strategy === 'CLOSE_COPIED') {
      const copies = await this.deps.db
        .selectFrom('copies')
        .select('slave_position_id')
        .where('slave_account_id', '=', accountId)
        .where('status', '=', 'open')
        .execute();
      const ids = new Set(copies.map((c) => c.slave_position_id));
      book = book.filter((p) => ids.has(p.id));
    }
    let closed = 0;
    for (const item of book) {
      const requestId = uuidv5(`${featureId}/${key}/${accountId}/${item.id}`, MAINTENANCE_NAMESPACE);
      try {
        if (item.kind === 'position') await connection.closePosition(item.id, undefined, requestId);
        else await connection.cancelOrder(item.id, requestId);
        closed += 1;
      } catch (error) {
        if (error instanceof VenueError && (error.code === '[POSITION_NOT_FOUND]' || error.code === '[ORDER_NOT_FOUND]')) continue;
        if (error instanceof VenueError) {
          this.deps.log.info(`maintenance window ${featureId}: closing #${item.id} of account ${accountId} refused (${error.code}); trying again`);
          return null;
        }
        throw error;
      }
    }
    return closed;
  }
}
