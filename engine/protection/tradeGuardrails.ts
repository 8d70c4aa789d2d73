// The guardrail monitor (FeatureTradeGuardrailsDTO, domain/tradeGuardrail): every second, for each
// account with a trade guardrail on it or on one of its copiers, it reads the account's book at the
// venue, asks the rule which open positions break a guard, records those decisions in the account's
// `guardrails-<accountId>` stream, closes each decided position and records the outcome, which the
// account's log shows with its reason.
//
// It runs under a lease (store/postgres/leases.ts): of several instances of the service one watches the
// guardrails at a time. No position is closed twice: a decision is recorded once per position (the
// decider, deterministic event ids), the close carries a client request id derived from the account and
// the position (the venue answers a repeat with the first result and closes nothing), and a decision
// whose outcome a crash kept from being recorded is taken up again after the restart, with that id
// (closing.ts: the close and the loop that records its outcome, shared with the protection monitor).
import type { Kysely } from 'kysely';
import { v5 as uuidv5 } from 'uuid';
import { membersOf } from '../../domain/feature/definition.js';
import type { FeatureSetting } from '../../domain/feature/events.js';
import { systemContext } from '../../domain/shared/command.js';
import { type CloseOutcome, type GuardrailCommand, guardrailDecider, type GuardrailState } from '../../domain/tradeGuardrail/decider.js';
import { type GuardrailDecision, type GuardrailEvent, guardrailEventKey, guardrailStream } from '../../domain/tradeGuardrail/events.js';
import { TRADE_GUARDRAILS_DEFAULTS, TRADE_GUARDRAILS_TYPE, type TradeGuardrailsSettings } from '../../domain/tradeGuardrail/feature.js';
import { guardrailCloses, type WatchedPosition } from '../../domain/tradeGuardrail/rules.js';
import { KeptRead, type ReadModelMarks } from '../../projections/keptRead.js';
import type { ReadModels } from '../../projections/schema.js';
import { CachedAggregates } from '../../store/cachedAggregates.js';
import type { Leases } from '../../store/postgres/leases.js';
import type { EventStore, Position } from '../../store/port.js';
import type { JobRounds } from '../../store/postgres/jobRounds.js';
import { LeasedLoop } from '../../store/postgres/leasedLoop.js';
import { isDatabaseUnavailable, Recovery, type RecoveryLog } from '../../store/recovery.js';
import type { AccountConnections } from '../venues/connections.js';
import type { OpenPosition } from '../venues/port.js';
import { finishDecidedCloses, type VenueCloseOutcome } from './closing.js';

/** Fixed forever: the ids of the guardrail's events and the client ids of its closes derive from it. */
export const GUARDRAIL_NAMESPACE = '3f7d2a91-6c4e-4b18-9e05-8a1c2d7b6e40';
export const TRADE_GUARDRAILS_LEASE = 'trade-guardrails';
const TICK_MS = 1000;
const READ_MODEL_WAIT_MS = 5000;

export interface TradeGuardrailDeps {
  readonly store: EventStore;
  readonly db: Kysely<ReadModels>;
  readonly connections: AccountConnections;
  readonly leases: Leases;
  readonly clock: () => Date;
  readonly waitForReadModels: (position: Position, timeoutMs: number) => Promise<boolean>;
  readonly log: RecoveryLog;
  /** Where its rounds are recorded for /ready (store/postgres/jobRounds.ts); left out: not watched. */
  readonly rounds?: JobRounds;
  /** Read-model marks (ProjectionRunner.version): the guardrail features are read again only when they may have changed. */
  readonly readModelMarks?: ReadModelMarks;
}

interface FeatureRow {
  readonly id: string;
  readonly accountId: string;
  readonly copierId: string | null;
  readonly settings: TradeGuardrailsSettings;
}

/** The client request id of the guardrail's close of a position: the same for every attempt. */
export const guardrailCloseId = (accountId: string, positionId: string): string => uuidv5(`close/${accountId}/${positionId}`, GUARDRAIL_NAMESPACE);

/** A position's close as the guardrail records it (a closed position always has its price and result). */
const guardrailOutcome = (outcome: VenueCloseOutcome): CloseOutcome =>
  outcome.type === 'closed' ? { type: 'closed', closePrice: outcome.closePrice ?? 0, result: outcome.result ?? 0 } : outcome;

export class TradeGuardrailMonitor {
  private readonly loop: LeasedLoop;
  private readonly aggregates: CachedAggregates<GuardrailCommand, GuardrailEvent, GuardrailState>;
  private readonly recovery: Recovery;
  /** Every guardrail feature, read again once the features read model moved. */
  private readonly features: KeptRead<readonly FeatureRow[]>;

  constructor(private readonly deps: TradeGuardrailDeps) {
    this.features = new KeptRead(['features'], () => this.readFeatures(), deps.readModelMarks);
    this.aggregates = new CachedAggregates({
      store: deps.store,
      decider: guardrailDecider,
      streamOf: guardrailStream,
      eventKey: guardrailEventKey,
      namespace: GUARDRAIL_NAMESPACE,
      correlationOf: (accountId) => `guardrails:${accountId}`,
      waitForReadModels: deps.waitForReadModels,
      readModelWaitMs: READ_MODEL_WAIT_MS,
    });
    this.recovery = new Recovery('the trade guardrail monitor', deps.log, { action: 'checks again at the next tick' });
    this.loop = new LeasedLoop({
      leases: deps.leases,
      lease: TRADE_GUARDRAILS_LEASE,
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

  /** Every guardrail feature on an account or a copier, oldest first. */
  private async readFeatures(): Promise<FeatureRow[]> {
    const rows = await this.deps.db
      .selectFrom('features')
      .select(['id', 'account_id', 'copier_id', 'scope_kind', 'setting'])
      .where('type', '=', TRADE_GUARDRAILS_TYPE)
      .where('scope_kind', 'in', ['account', 'copier'])
      .orderBy('created')
      .orderBy('id')
      .execute();
    return rows.flatMap((row) =>
      row.account_id
        ? [
            {
              id: row.id,
              accountId: row.account_id,
              copierId: row.scope_kind === 'copier' ? row.copier_id : null,
              settings: { ...TRADE_GUARDRAILS_DEFAULTS, ...membersOf<Partial<TradeGuardrailsSettings>>(row.setting as FeatureSetting) },
            },
          ]
        : [],
    );
  }

  /** One look at every account with a guardrail (or a close still to finish). */
  async tick(): Promise<void> {
    const byAccount = new Map<string, FeatureRow[]>();
    for (const feature of await this.features.get()) byAccount.set(feature.accountId, [...(byAccount.get(feature.accountId) ?? []), feature]);
    for (const [accountId, cached] of this.aggregates.entries())
      if (Object.keys(cached.state.pending).length > 0 && !byAccount.has(accountId)) byAccount.set(accountId, []);
    for (const [accountId, features] of byAccount) {
      await this.check(accountId, features).catch((error: unknown) => {
        this.aggregates.forget(accountId);
        if (isDatabaseUnavailable(error)) throw error;
        this.deps.log.error(`trade guardrail check of account ${accountId} failed`, error);
      });
    }
  }

  private async check(accountId: string, features: readonly FeatureRow[]): Promise<void> {
    const connection = this.deps.connections.connection(accountId);
    if (!connection) return;
    const cached = await this.aggregates.load(accountId);
    const now = this.deps.clock().toISOString();
    const book = (await connection.positions()).filter((p): p is OpenPosition => p.kind === 'position');
    const watched = book.map((p): WatchedPosition => ({
      positionId: p.id,
      symbol: p.symbol,
      side: p.orderType === 'buy' ? 'Buy' : 'Sell',
      volume: p.volume,
      openTime: p.openTime,
      outside: p.clientOrderId === null,
    }));
    const decisions: GuardrailDecision[] = [];
    const pending = new Set(Object.keys(cached.state.pending));
    // The most specific scope applies (as for every feature set at several scopes): a copier's own
    // guardrail watches its copies, the account's watches every other position of the account.
    const copiesOf = new Map<string, Set<string>>();
    for (const feature of features) if (feature.copierId !== null) copiesOf.set(feature.id, await this.openCopiesOf(accountId, feature.copierId));
    const ownedByCopiers = new Set([...copiesOf.values()].flatMap((ids) => [...ids]));
    for (const feature of features) {
      const copies = copiesOf.get(feature.id);
      const positions = watched.filter(
        (p) => !pending.has(p.positionId) && (copies === undefined ? !ownedByCopiers.has(p.positionId) : copies.has(p.positionId)),
      );
      for (const close of guardrailCloses(feature.settings, positions, now)) {
        decisions.push({ accountId, featureId: feature.id, copierId: feature.copierId, ...close.position, rule: close.rule, reason: close.reason });
      }
    }
    if (decisions.length > 0)
      await this.aggregates.record(accountId, cached, {
        type: 'DecideGuardrailCloses',
        data: { accountId, closes: decisions },
        metadata: this.metadata(accountId),
      });
    await finishDecidedCloses(
      connection,
      Object.values(cached.state.pending),
      (decision) => ({ kind: 'position', id: decision.positionId, requestId: guardrailCloseId(decision.accountId, decision.positionId) }),
      (decision, outcome) =>
        this.aggregates.record(accountId, cached, {
          type: 'RecordGuardrailClose',
          data: { accountId, positionId: decision.positionId, outcome: guardrailOutcome(outcome) },
          metadata: this.metadata(accountId),
        }),
    );
  }

  /** The slave positions a copier holds open on the account (the copies read model). */
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

  private metadata(accountId: string) {
    return { now: this.deps.clock().toISOString(), context: systemContext(`guardrails:${accountId}`) };
  }
}
