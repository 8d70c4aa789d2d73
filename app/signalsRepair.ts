// The repair of a signal follower's write left half-done (issue 19). A follower's feature and its copier
// are written in one appendToStreams call (app/signals.ts writeFollower): one transaction on PostgreSQL,
// but two appends on EventStoreDB, which has no transaction across streams (store/port.ts). The order
// makes a half write harmless to the copying — a subscription appends the feature first, a removal the
// copier first, so nothing is ever copied that the follower cannot see — but a crash between the two
// appends leaves a live follower feature without a live copier:
//   - a subscription: the copier stream does not exist. Finished: the copier is created as subscribing
//     would have created it (the provider's current settings, the follower's stored ones), when the
//     checks between aggregates still pass (app/signals.ts checkFollowerCopier: both accounts there, the
//     broker allowed, no cycle); otherwise undone (the feature is removed, as if it never subscribed).
//     minimumBalance is not asked again: it was checked before the first append.
//   - a removal: the copier stream ends with CopierDeleted. Finished: the feature is removed.
//   - a change (the follower's PUT, the provider's suspension: feature first, then copier) or a change of
//     the provider (its feature, then each follower's copier, one append each, so a crash or a refusal
//     part-way leaves the later followers behind, on PostgreSQL too): the live copier does not hold what
//     the follower's and the provider's current settings give (domain/signal/follower.ts
//     followerCopierSettings) and was not written since the later of the two features' last changes.
//     Finished: the copier is updated with the members it lacks. A copier's own
//     rules refusing them leave it as it is (reported once per copier revision; the provider or the
//     follower changes its settings).
// SignalFollowerRepair (a LeasedLoop: one instance at a time) looks every 5 s. Candidates come from the
// read models (a live signal_followers row without a copiers row, or whose copiers row lacks members);
// each is then confirmed from the event
// store, inside the provider's turn (the advisory lock every follower write of that provider holds across
// both of its appends, so a write in flight is never taken for a half-done one), and only once both
// streams have been quiet for GRACE_MS on the service's clock (a writer still retrying its own call with
// the same event ids finishes it first). Each fix is appended at the revision it was decided on, with
// event ids derived from the follower and that revision: run twice (two rounds, two instances, a retried
// append), it is stored once. The events carry the correlation id `signal-follower-repair` and the
// command RepairSignalFollower in the audit trail.
import { v5 as uuidv5 } from 'uuid';
import { copierDecider } from '../domain/copier/decider.js';
import { copierStream, type CopierEvent } from '../domain/copier/events.js';
import type { CopierSettings } from '../domain/copier/settings.js';
import { featureDecider } from '../domain/feature/decider.js';
import { featureStream, type FeatureEvent } from '../domain/feature/events.js';
import { type RequestContext, systemContext } from '../domain/shared/command.js';
import { DomainError } from '../domain/shared/errors.js';
import { sameJson } from '../domain/shared/json.js';
import { followerCopierSettings, SIGNAL_FOLLOWER, type SignalFollowerSettings } from '../domain/signal/follower.js';
import { SIGNAL_PROVIDER, type SignalProviderSettings } from '../domain/signal/provider.js';
import { findSignalProvider } from '../projections/signals/queries.js';
import { type ConflictRetryPolicy, EVENT_ID_NAMESPACE, foldStream, handleCommand } from '../store/commandHandler.js';
import { LeasedLoop } from '../store/postgres/leasedLoop.js';
import type { Leases } from '../store/postgres/leases.js';
import { comparePositions, type Position, type RecordedEvent } from '../store/port.js';
import { COPIER_GRAPH_TURN } from './commands/createCopier.js';
import { commandMetadata, oneAtATime, type Services, settle } from './services.js';
import { checkFollowerCopier, followerCopierCreation, providerTurn, SIGNAL_READ_MODELS } from './signals.js';

export const SIGNAL_FOLLOWER_REPAIR_LEASE = 'signals:follower-repair';
/** How long both streams of a half-done follower write must have been quiet before the repair acts. */
export const SIGNAL_FOLLOWER_REPAIR_GRACE_MS = 30_000;
const REPAIR_CORRELATION = 'signal-follower-repair';
/** A conflict means another writer got there: the next round decides again on what it wrote. */
const NO_RETRY: ConflictRetryPolicy = { maxAttempts: 1, budgetMs: 0, baseMs: 0, capMs: 0 };

/** What one follower's repair did. */
export type RepairOutcome = 'subscriptionFinished' | 'subscriptionUndone' | 'removalFinished' | 'updateFinished' | 'updateRefused' | 'nothing' | 'notYet';

export interface RepairRound {
  readonly followerId: string;
  readonly outcome: RepairOutcome;
  /** The refusal that undid a subscription, or that a copier's rules gave the members it lacks. */
  readonly reason?: string;
  /** updateRefused: the copier's revision the refusal was decided on. */
  readonly revision?: string;
}

interface Folded<S> {
  readonly state: S;
  readonly revision: bigint | null;
  /** When the stream's last event happened (its `at`, the writer's clock). */
  readonly lastAt: number | null;
  /** Where the stream's last event is in the store's order. */
  readonly lastPosition: Position | null;
}

/** A stream folded from the store, with the time of its last event. */
const fold = async <E extends FeatureEvent | CopierEvent, S>(services: Services, stream: string, evolve: (s: S, e: E) => S, initial: S): Promise<Folded<S>> => {
  let lastAt: number | null = null;
  let lastPosition: Position | null = null;
  const seen = (event: RecordedEvent) => {
    const at = (event.data as { at?: string }).at;
    lastAt = at ? Date.parse(at) : event.created.getTime();
    lastPosition = event.position;
    return true;
  };
  const { state, revision } = await foldStream(services.store, stream, evolve, { state: initial, revision: null }, seen);
  return { state, revision, lastAt, lastPosition };
};

/** The live follower features without a live copier, as the read models see them (confirmed from the store). */
const candidates = async (services: Services, limit: number): Promise<{ id: string; provider_id: string }[]> =>
  services.db
    .selectFrom('signal_followers as f')
    .leftJoin('copiers as c', 'c.id', 'f.id')
    .select(['f.id', 'f.provider_id'])
    .where('f.removed', 'is', null)
    .where('c.id', 'is', null)
    .orderBy('f.updated')
    .limit(limit)
    .execute();

/** The members of `expected` the copier's settings do not hold (what an UpdateCopier would change). */
const lacking = (current: CopierSettings | null | undefined, expected: CopierSettings): Partial<CopierSettings> =>
  Object.fromEntries(
    Object.entries(expected).filter(([key, value]) => value !== undefined && !sameJson((current as Record<string, unknown> | null | undefined)?.[key], value)),
  );

/** The live followers whose live copier, as the read models see them, lacks members their and their provider's settings give. */
const driftCandidates = async (services: Services, limit: number): Promise<{ id: string; provider_id: string }[]> => {
  const rows = await services.db
    .selectFrom('signal_followers as f')
    .innerJoin('copiers as c', 'c.id', 'f.id')
    .innerJoin('signal_providers as p', 'p.id', 'f.provider_id')
    .select(['f.id', 'f.provider_id', 'f.settings as follower', 'p.settings as provider', 'c.settings as copier'])
    .where('f.removed', 'is', null)
    .where('p.removed', 'is', null)
    .orderBy('f.updated')
    .execute();
  const drifted = rows.filter(
    (r) =>
      Object.keys(lacking(r.copier as CopierSettings, followerCopierSettings(r.provider as SignalProviderSettings, r.follower as SignalFollowerSettings)))
        .length > 0,
  );
  return drifted.slice(0, limit).map((r) => ({ id: r.id, provider_id: r.provider_id }));
};

/** Repairs one follower, in its provider's turn; answers what it did. */
export const repairSignalFollower = async (services: Services, followerId: string, providerId: string): Promise<RepairRound> =>
  oneAtATime(services, providerTurn(providerId), async (): Promise<RepairRound> => {
    const feature = await fold(services, featureStream(followerId), featureDecider.evolve, featureDecider.initialState);
    const copier = await fold(services, copierStream(followerId), copierDecider.evolve, copierDecider.initialState);
    const setting = feature.state.setting;
    const live = feature.state.exists && !feature.state.removed && setting?.type === SIGNAL_FOLLOWER && feature.state.scope?.kind === 'account';
    if (!live) return { followerId, outcome: 'nothing' };
    const quiet = (...streams: Folded<unknown>[]) =>
      services.clock().getTime() - Math.max(...streams.map((f) => f.lastAt ?? 0)) >= SIGNAL_FOLLOWER_REPAIR_GRACE_MS;
    const context: RequestContext = systemContext(REPAIR_CORRELATION);
    if (copier.state.exists && !copier.state.deleted) {
      // A change stopped part-way: the copier lacks members of the follower's or the provider's settings.
      const provider = await fold(services, featureStream(providerId), featureDecider.evolve, featureDecider.initialState);
      const ps = provider.state;
      if (!ps.exists || ps.removed || ps.setting?.type !== SIGNAL_PROVIDER) return { followerId, outcome: 'nothing' };
      const { type: _p, ...providerMembers } = ps.setting;
      const { type: _f, ...followerMembers } = setting!;
      const expected = followerCopierSettings(providerMembers as unknown as SignalProviderSettings, followerMembers as unknown as SignalFollowerSettings);
      // Only a copier not written since the last change of either feature was left behind: one written
      // after (a maintenance window's or a project-wide mode change, which do not take the provider's
      // turn) holds what its writer chose, as it would after a write that was not stopped.
      const behind = [feature, provider].some((f) => f.lastPosition && (!copier.lastPosition || comparePositions(f.lastPosition, copier.lastPosition) > 0));
      const changes = lacking(copier.state.settings, expected);
      if (!behind || Object.keys(changes).length === 0) return { followerId, outcome: 'nothing' };
      if (!quiet(feature, copier, provider)) return { followerId, outcome: 'notYet' };
      const { projectId: copierProject, toAccountId } = copier.state;
      try {
        await handleCommand(
          services.store,
          copierStream(followerId),
          copierDecider,
          {
            type: 'UpdateCopier',
            data: { copierId: followerId, projectId: copierProject!, toAccountId: toAccountId!, changes },
            metadata: commandMetadata(services, context),
          },
          {
            known: { state: copier.state, revision: copier.revision },
            commandId: uuidv5(`${REPAIR_CORRELATION}:${followerId}:update:${copier.revision}`, EVENT_ID_NAMESPACE),
            retry: NO_RETRY,
          },
        );
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        return { followerId, outcome: 'updateRefused', reason: error.code, revision: String(copier.revision) };
      }
      await settle(services, SIGNAL_READ_MODELS);
      return { followerId, outcome: 'updateFinished' };
    }
    if (!quiet(feature, copier)) return { followerId, outcome: 'notYet' };
    const scope = feature.state.scope!;
    const accountId = scope.kind === 'account' ? scope.accountId : '';
    const projectId = feature.state.projectId;
    /** The feature's removal, decided on the state just read (at its revision). */
    const removeFeature = (kind: 'undo' | 'removal') =>
      handleCommand(
        services.store,
        featureStream(followerId),
        featureDecider,
        { type: 'RemoveFeature', data: { featureId: followerId, projectId, scope }, metadata: commandMetadata(services, context) },
        { known: feature, commandId: uuidv5(`${REPAIR_CORRELATION}:${followerId}:${kind}:${feature.revision}`, EVENT_ID_NAMESPACE), retry: NO_RETRY },
      );
    if (copier.state.deleted) {
      await removeFeature('removal');
      await settle(services, SIGNAL_READ_MODELS);
      return { followerId, outcome: 'removalFinished' };
    }
    const { type: _type, ...members } = setting!;
    const settings = members as unknown as SignalFollowerSettings;
    // The checks (a cycle among them) and the copier's write in the copy network's turn, as a subscription's.
    return oneAtATime(services, COPIER_GRAPH_TURN, async (): Promise<RepairRound> => {
      const provider = await findSignalProvider(services.db, providerId);
      let refusal: string | null = provider ? null : '[SIGNAL_PROVIDER_NOT_FOUND]';
      if (provider) {
        try {
          await checkFollowerCopier(services, provider, accountId, projectId);
        } catch (error) {
          if (!(error instanceof DomainError)) throw error;
          refusal = error.code;
        }
      }
      if (refusal || !provider) {
        await removeFeature('undo');
        await settle(services, SIGNAL_READ_MODELS);
        return { followerId, outcome: 'subscriptionUndone', reason: refusal ?? undefined };
      }
      const creation = followerCopierCreation(services, provider, { featureId: followerId, projectId, accountId, settings }, context);
      await handleCommand(services.store, copierStream(followerId), copierDecider, creation, {
        known: { state: copier.state, revision: copier.revision },
        commandId: uuidv5(`${REPAIR_CORRELATION}:${followerId}:subscription`, EVENT_ID_NAMESPACE),
        retry: NO_RETRY,
      });
      await settle(services, SIGNAL_READ_MODELS);
      return { followerId, outcome: 'subscriptionFinished' };
    });
  });

/** The leased job. */
export class SignalFollowerRepair {
  private readonly loop: LeasedLoop;
  /** The refused updates reported already (follower:copier revision): each is logged once. */
  private readonly refusals = new Set<string>();

  constructor(
    private readonly services: Services,
    leases: Leases,
    lookMs = 5000,
  ) {
    this.loop = new LeasedLoop({
      leases,
      lease: SIGNAL_FOLLOWER_REPAIR_LEASE,
      everyMs: lookMs,
      rounds: services.jobRounds,
      round: async () => void (await this.runOnce()),
      failed: (error) => services.log.warn(`signal follower repair: a round failed (tried again at the next): ${String(error)}`),
    });
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** One round: every half-done follower write found is repaired (or left for a later round while in its grace). */
  async runOnce(limit = 50): Promise<RepairRound[]> {
    const done: RepairRound[] = [];
    const found = [...(await candidates(this.services, limit)), ...(await driftCandidates(this.services, limit))];
    for (const { id, provider_id: providerId } of found) {
      const round = await repairSignalFollower(this.services, id, providerId);
      if (round.outcome === 'updateRefused') {
        const key = `${id}:${round.revision}`;
        if (!this.refusals.has(key)) {
          this.refusals.add(key);
          this.services.log.warn(`signal follower repair: ${id} copier refuses its settings (${round.reason}); left as it is until they change`);
        }
      } else if (round.outcome !== 'nothing' && round.outcome !== 'notYet') {
        this.services.log.info(`signal follower repair: ${id} ${round.outcome}${round.reason ? ` (${round.reason})` : ''}`);
      }
      done.push(round);
    }
    return done;
  }
}
