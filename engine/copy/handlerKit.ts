// What every copy handler shares (handlers.ts, retries.ts, managementTicks.ts): the read models, the
// venues and the clock, the inputs and the outcomes, and the few steps each of them takes the same
// way: the execution context of a copier, and a skip with its reason for the account's log.
import type { Kysely } from 'kysely';
import type { CopierSettings } from '../../domain/copier/settings.js';
import type { CopyEvent, CopySkipReason, CopySource } from '../../domain/copy/events.js';
import type { ReadModels } from '../../projections/schema.js';
import type { AccountSessions } from '../venues/connections.js';
import type { ExecutionContext } from './executor.js';
import type { CopierRow, CopyInputs } from './inputs.js';
import type { Outcomes } from './outcomes.js';

export interface HandlerDeps {
  readonly db: Kysely<ReadModels>;
  readonly connections: AccountSessions;
  readonly clock: () => Date;
}

export class HandlerKit {
  constructor(
    readonly deps: HandlerDeps,
    readonly inputs: CopyInputs,
    readonly outcomes: Outcomes,
  ) {}

  /** How the executor places this copier's actions; `retry` false: a refused open is not resent (a retry itself, management). */
  executionContext(
    copier: CopierRow,
    masterAccountId: string,
    source: CopySource,
    masterEventAt: string | null,
    slave: Awaited<ReturnType<CopyInputs['slave']>> | null,
    retry = true,
  ): ExecutionContext {
    const settings = copier.settings as CopierSettings;
    return {
      copierId: copier.id,
      masterAccountId,
      slaveAccountId: copier.to_account_id,
      source,
      slave: slave && slave.ok ? slave.connection : (null as never),
      slaveMarginMode: slave && slave.ok ? slave.info.marginMode : 'hedging',
      openRetry: retry && settings.openRetry ? { timeoutInMinutes: settings.openRetryTimeoutInMinutes } : null,
      masterEventAt,
      now: this.deps.clock,
    };
  }

  /** A skip with its reason, so the account log says why the trade was not copied. */
  skipped(copier: CopierRow, masterAccountId: string, source: CopySource, masterPositionId: string, reason: CopySkipReason, message: string): CopyEvent {
    const at = this.deps.clock().toISOString();
    const data = { copierId: copier.id, masterAccountId, slaveAccountId: copier.to_account_id, source, at, masterPositionId, reason, message, wouldHave: [] };
    return { type: 'TradeSkipped', data };
  }

  /** Records that the cause was not copied for this copier, and why (a reason a user can read). */
  appendSkip(
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
}
