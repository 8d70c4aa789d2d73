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
// SignalFollowerRepair (a LeasedLoop: one instance at a time) looks every 5 s. Candidates come from the
// read models (a live signal_followers row without a copiers row); each is then confirmed from the event
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
import { featureDecider } from '../domain/feature/decider.js';
import { featureStream, type FeatureEvent } from '../domain/feature/events.js';
import { type RequestContext, systemContext } from '../domain/shared/command.js';
import { DomainError } from '../domain/shared/errors.js';
import { SIGNAL_FOLLOWER, type SignalFollowerSettings } from '../domain/signal/follower.js';
import { findSignalProvider } from '../projections/signals/queries.js';
import { type ConflictRetryPolicy, EVENT_ID_NAMESPACE, foldStream, handleCommand } from '../store/commandHandler.js';
import { LeasedLoop } from '../store/postgres/leasedLoop.js';
import type { Leases } from '../store/postgres/leases.js';
import type { RecordedEvent } from '../store/port.js';
import { commandMetadata, oneAtATime, type Services, settle } from './services.js';
import { checkFollowerCopier, followerCopierCreation, providerTurn, SIGNAL_READ_MODELS } from './signals.js';

export const SIGNAL_FOLLOWER_REPAIR_LEASE = 'signals:follower-repair';
/** How long both streams of a half-done follower write must have been quiet before the repair acts. */
export const SIGNAL_FOLLOWER_REPAIR_GRACE_MS = 30_000;
const REPAIR_CORRELATION = 'signal-follower-repair';
/** A conflict means another writer got there: the next round decides again on what it wrote. */
const NO_RETRY: ConflictRetryPolicy = { maxAttempts: 1, budgetMs: 0, baseMs: 0, capMs: 0 };

/** What one follower's repair did. */
export type RepairOutcome = 'subscriptionFinished' | 'subscriptionUndone' | 'removalFinished' | 'nothing' | 'notYet';

export interface RepairRound {
  readonly followerId: string;
  readonly outcome: RepairOutcome;
  /** The refusal that undid a subscription. */
  readonly reason?: string;
}

interface Folded<S> {
  readonly state: S;
  readonly revision: bigint | null;
  /** When the stream's last event happened (its `at`, the writer's clock). */
  readonly lastAt: number | null;
}

/** A stream folded from the store, with the time of its last event. */
const fold = async <E extends FeatureEvent | CopierEvent, S>(services: Services, stream: string, evolve: (s: S, e: E) => S, initial: S): Promise<Folded<S>> => {
  let lastAt: number | null = null;
  const seen = (event: RecordedEvent) => {
    const at = (event.data as { at?: string }).at;
    lastAt = at ? Date.parse(at) : event.created.getTime();
    return true;
  };
  const { state, revision } = await foldStream(services.store, stream, evolve, { state: initial, revision: null }, seen);
  return { state, revision, lastAt };
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

/** Repairs one follower, in its provider's turn; answers what it did. */
export const repairSignalFollower = async (services: Services, followerId: string, providerId: string): Promise<RepairRound> =>
  oneAtATime(services, providerTurn(providerId), async (): Promise<RepairRound> => {
    const feature = await fold(services, featureStream(followerId), featureDecider.evolve, featureDecider.initialState);
    const copier = await fold(services, copierStream(followerId), copierDecider.evolve, copierDecider.initialState);
    const setting = feature.state.setting;
    const live = feature.state.exists && !feature.state.removed && setting?.type === SIGNAL_FOLLOWER && feature.state.scope?.kind === 'account';
    if (!live || (copier.state.exists && !copier.state.deleted)) return { followerId, outcome: 'nothing' };
    const quietSince = Math.max(feature.lastAt ?? 0, copier.lastAt ?? 0);
    if (services.clock().getTime() - quietSince < SIGNAL_FOLLOWER_REPAIR_GRACE_MS) return { followerId, outcome: 'notYet' };
    const context: RequestContext = systemContext(REPAIR_CORRELATION);
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

/** The leased job. */
export class SignalFollowerRepair {
  private readonly loop: LeasedLoop;

  constructor(
    private readonly services: Services,
    leases: Leases,
    lookMs = 5000,
  ) {
    this.loop = new LeasedLoop({
      leases,
      lease: SIGNAL_FOLLOWER_REPAIR_LEASE,
      everyMs: lookMs,
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
    for (const { id, provider_id: providerId } of await candidates(this.services, limit)) {
      const round = await repairSignalFollower(this.services, id, providerId);
      if (round.outcome !== 'nothing' && round.outcome !== 'notYet') {
        this.services.log.info(`signal follower repair: ${id} ${round.outcome}${round.reason ? ` (${round.reason})` : ''}`);
      }
      done.push(round);
    }
    return done;
  }
}
