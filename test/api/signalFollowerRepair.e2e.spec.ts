// The repair of a follower write left half-done between its two appends (issue 19; app/signalsRepair.ts).
// EventStoreDB appends a multi-stream call one entry after the other (store/port.ts); this spec forces
// that path on the PostgreSQL store (every appendToStreams of the service becomes one appendToStream per
// entry, in order, as store/esdb/eventStoreDb.ts does), so it runs in CI without an EventStoreDB server,
// and its test seam stops a call after its first entry: what a crash between the two appends leaves.
// Then the leased repair (and concurrent direct calls of it, to show a fix is stored once) finishes the
// subscription or the removal, or undoes a subscription whose account went away.
import { expect } from 'chai';
import { commandMetadata } from '../../app/services.js';
import { SIGNAL_FOLLOWER_REPAIR_GRACE_MS, repairSignalFollower } from '../../app/signalsRepair.js';
import { copierDecider } from '../../domain/copier/decider.js';
import { systemContext } from '../../domain/shared/command.js';
import { handleCommand } from '../../store/commandHandler.js';
import { StreamNotFoundError } from '../../store/errors.js';
import type { AppendResult, EventStore, RecordedEvent, StreamAppend } from '../../store/port.js';
import { createOtherProject, startTestService, type TestService, validAccount } from '../support/service.js';
import { eventually, featureBody, movableClock, openPosition, pinQuotes, type PositionBody, startedAccount } from '../support/trading.js';

const B = '99999999-9999-4999-8999-999999999993';
const B_KEY = 'other-project-key-repair-b-0123456789';

const follow = (providerId: string) => featureBody({ type: 'FeatureSignalFollowerDTO', signalProviderId: providerId });

describe('signal followers: a write stopped between its two appends is repaired once (two-append path forced)', function () {
  this.timeout(90_000);
  const clock = movableClock();
  let t: TestService;
  /** The seam: the next follower write (appendToStreams) stops after its first entry, as a crash there would. */
  let stopAfterFirstEntry = false;
  /** The other seam: the next append to this stream fails before it is stored (a crash part-way through a provider's change). */
  let failStream: string | null = null;
  const failHere = (stream: string) => {
    if (stream !== failStream) return;
    failStream = null;
    throw new Error(`simulated crash before the append to ${stream}`);
  };
  let logins = 0;

  const events = async (stream: string): Promise<RecordedEvent[]> => {
    const out: RecordedEvent[] = [];
    try {
      for await (const { event } of t.service.services.store.readStream(stream)) out.push(event);
    } catch (error) {
      if (!(error instanceof StreamNotFoundError)) throw error;
    }
    return out;
  };
  const types = async (stream: string) => (await events(stream)).map((e) => e.type);
  const followerCopiers = async (accountId: string) =>
    (await t.service.services.db.selectFrom('copiers').select('id').where('to_account_id', '=', accountId).execute()).map((r) => r.id);
  const featuresOf = async (accountId: string) =>
    ((await t.call('GET', `/accounts/${accountId}/features`, { key: B_KEY })).body as { id: string }[]).map((f) => f.id);
  const followerAccount = async (alias: string) => {
    logins += 1;
    const created = await t.call('POST', '/accounts', {
      key: B_KEY,
      body: validAccount({ alias, loginServer: 'Sim-Demo', loginAccountNumber: `${process.pid}7${logins}${alias}`.slice(0, 64) }),
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(200);
    expect((await t.call('POST', `/accounts/${created.body.id}/actions/start`, { key: B_KEY })).status).to.be.oneOf([200, 204]);
    return created.body.id as string;
  };
  const addProvider = async (accountId: string) => {
    const body = featureBody({ type: 'FeatureSignalProviderDTO', name: 'Repaired signals', makeVisibleInMarketplace: true, copier: { multiplier: 1 } });
    const res = await t.call('POST', `/accounts/${accountId}/features`, { body });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.id as string;
  };
  /** A subscription stopped after its feature's append: answers the follower feature's id. */
  const halfSubscribe = async (accountId: string, providerId: string): Promise<string> => {
    stopAfterFirstEntry = true;
    const failed = await t.call('POST', `/accounts/${accountId}/features`, { key: B_KEY, body: follow(providerId) });
    expect(failed.status, JSON.stringify(failed.body)).to.be.at.least(500);
    const [followerId] = await eventually(
      async () => {
        const ids = await featuresOf(accountId);
        return ids.length === 1 ? ids : undefined;
      },
      8000,
      'the half-written follower feature',
    );
    return followerId!;
  };
  /** A follower subscribed in full: answers the follower feature's id. */
  const subscribe = async (accountId: string, providerId: string): Promise<string> => {
    const res = await t.call('POST', `/accounts/${accountId}/features`, { key: B_KEY, body: follow(providerId) });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.id as string;
  };
  const copierSettings = async (copierId: string) =>
    (await t.service.services.db.selectFrom('copiers').select('settings').where('id', '=', copierId).executeTakeFirstOrThrow()).settings as Record<
      string,
      unknown
    >;
  /** Three direct repairs at once, beside the service's own leased round: answers their outcomes. */
  const repairConcurrently = async (followerId: string, providerId: string) =>
    (await Promise.all([1, 2, 3].map(() => repairSignalFollower(t.service.services, followerId, providerId)))).map((r) => r.outcome);

  before(async () => {
    t = await startTestService({ clock });
    await createOtherProject(t, B, B_KEY);
    await pinQuotes(t, { EURUSD: [1.085, 1.0851] });
    // The two-append path (store/esdb/eventStoreDb.ts appendToStreams), on the service's PostgreSQL store.
    const store = t.service.services.store;
    const proto = Object.getPrototypeOf(store) as EventStore;
    store.appendToStreams = async function (this: EventStore, appends: readonly StreamAppend[]): Promise<readonly AppendResult[]> {
      // Only a follower write (a feature stream and a copier stream): the engine's multi-stream appends of
      // the same moments (a copy's outcomes) must not take the seam meant for the call under test.
      const followerWrite =
        appends.length === 2 && appends.some((a) => a.streamName.startsWith('feature-')) && appends.some((a) => a.streamName.startsWith('copier-'));
      const stop = stopAfterFirstEntry && followerWrite;
      if (stop) stopAfterFirstEntry = false;
      const results: AppendResult[] = [];
      for (const [i, entry] of appends.entries()) {
        if (stop && i === 1) throw new Error('simulated crash between the two appends');
        failHere(entry.streamName);
        results.push(await proto.appendToStream.call(this, entry.streamName, entry.events, { expectedRevision: entry.expectedRevision ?? 'any' }));
      }
      return results;
    };
    store.appendToStream = async function (this: EventStore, ...args: Parameters<EventStore['appendToStream']>) {
      failHere(args[0]);
      return proto.appendToStream.apply(this, args);
    };
  });
  after(async () => {
    if (t) delete (t.service.services.store as { appendToStreams?: unknown }).appendToStreams;
    if (t) delete (t.service.services.store as { appendToStream?: unknown }).appendToStream;
    await t?.stop();
  });

  it('a subscription stopped after its feature is finished (its copier created, once) and copies', async () => {
    const source = await startedAccount(t, 'repair-source');
    const providerId = await addProvider(source);
    const account = await followerAccount('repair-follower');
    const followerId = await halfSubscribe(account, providerId);
    expect(await types(`copier-${followerId}`), 'no copier stored').to.deep.equal([]);
    expect(await followerCopiers(account)).to.deep.equal([]);
    // Within the grace nothing is done: a writer retrying its own call finishes it first.
    expect((await repairSignalFollower(t.service.services, followerId, providerId)).outcome).to.equal('notYet');

    clock.advance(SIGNAL_FOLLOWER_REPAIR_GRACE_MS + 1000);
    const outcomes = await repairConcurrently(followerId, providerId);
    expect(outcomes.filter((o) => o === 'subscriptionFinished').length, outcomes.join()).to.be.at.most(1);
    await eventually(async () => ((await followerCopiers(account)).length === 1 ? true : undefined), 15_000, 'the copier');
    const copierEvents = await events(`copier-${followerId}`);
    expect(copierEvents.map((e) => e.type)).to.deep.equal(['CopierCreated']);
    expect(copierEvents[0]!.metadata).to.deep.include({ correlationId: 'signal-follower-repair' });
    expect((copierEvents[0]!.data as { signalProviderId: string; fromAccountId: string }).fromAccountId).to.equal(source);
    expect(await repairConcurrently(followerId, providerId)).to.deep.equal(['nothing', 'nothing', 'nothing']);
    expect(await types(`feature-${followerId}`)).to.deep.equal(['FeatureAdded']);

    await openPosition(t, source, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.02 });
    await eventually(
      async () => {
        const res = await t.call('GET', `/accounts/${account}/positions`, { key: B_KEY });
        return (res.body as PositionBody[]).length === 1 ? true : undefined;
      },
      8000,
      'the copy on the follower',
    );
    expect((await t.call('POST', `/accounts/${source}/actions/closeAllPositions`)).status).to.equal(204);
    await eventually(
      async () => (((await t.call('GET', `/accounts/${account}/positions`, { key: B_KEY })).body as PositionBody[]).length === 0 ? true : undefined),
      8000,
      'the copy closed',
    );

    // ---- a removal stopped after its copier's append: finished (the feature removed, once)
    stopAfterFirstEntry = true;
    const failed = await t.call('DELETE', `/signals/${providerId}/accounts/${account}/followerFeature`);
    expect(failed.status, JSON.stringify(failed.body)).to.be.at.least(500);
    expect(await types(`copier-${followerId}`)).to.deep.equal(['CopierCreated', 'CopierDeleted']);
    expect(await types(`feature-${followerId}`), 'the feature still there').to.deep.equal(['FeatureAdded']);
    expect((await repairSignalFollower(t.service.services, followerId, providerId)).outcome).to.equal('notYet');

    clock.advance(SIGNAL_FOLLOWER_REPAIR_GRACE_MS + 1000);
    const removals = await repairConcurrently(followerId, providerId);
    expect(removals.filter((o) => o === 'removalFinished').length, removals.join()).to.be.at.most(1);
    await eventually(async () => ((await featuresOf(account)).length === 0 ? true : undefined), 15_000, 'the feature removed');
    expect(await types(`feature-${followerId}`)).to.deep.equal(['FeatureAdded', 'FeatureRemoved']);
    expect((await t.call('GET', `/signals/${providerId}/accounts`)).body).to.deep.equal([]);
    expect(await followerCopiers(account)).to.deep.equal([]);
  });

  it('a subscription stopped after its feature whose account was deleted meanwhile is undone', async () => {
    const source = await startedAccount(t, 'undo-source');
    const providerId = await addProvider(source);
    const account = await followerAccount('undo-follower');
    const followerId = await halfSubscribe(account, providerId);
    const deleted = await t.call('DELETE', `/accounts/${account}`, { key: B_KEY });
    expect(deleted.status, JSON.stringify(deleted.body)).to.be.oneOf([200, 204]);

    clock.advance(SIGNAL_FOLLOWER_REPAIR_GRACE_MS + 1000);
    await eventually(
      async () => (((await t.call('GET', `/signals/${providerId}/accounts`)).body as unknown[]).length === 0 ? true : undefined),
      15_000,
      'the subscription undone',
    );
    expect(await types(`feature-${followerId}`)).to.deep.equal(['FeatureAdded', 'FeatureRemoved']);
    expect(await types(`copier-${followerId}`)).to.deep.equal([]);
    expect((await repairSignalFollower(t.service.services, followerId, providerId)).outcome).to.equal('nothing');
  });

  it("a follower's change stopped after its feature is finished: its copier takes the change, once", async () => {
    const source = await startedAccount(t, 'change-source');
    const providerId = await addProvider(source);
    const account = await followerAccount('change-follower');
    const followerId = await subscribe(account, providerId);
    expect(await copierSettings(followerId)).to.include({ monitorOnly: false });

    stopAfterFirstEntry = true;
    const body = featureBody({ type: 'FeatureSignalFollowerDTO', signalProviderId: providerId, monitorOnly: true });
    const failed = await t.call('PUT', `/accounts/${account}/features/${followerId}`, { key: B_KEY, body });
    expect(failed.status, JSON.stringify(failed.body)).to.be.at.least(500);
    expect(await types(`feature-${followerId}`)).to.deep.equal(['FeatureAdded', 'FeatureUpdated']);
    expect(await types(`copier-${followerId}`), 'the copier left behind').to.deep.equal(['CopierCreated']);
    expect((await repairSignalFollower(t.service.services, followerId, providerId)).outcome).to.equal('notYet');

    clock.advance(SIGNAL_FOLLOWER_REPAIR_GRACE_MS + 1000);
    const outcomes = await repairConcurrently(followerId, providerId);
    expect(outcomes.filter((o) => o === 'updateFinished').length, outcomes.join()).to.be.at.most(1);
    await eventually(async () => ((await copierSettings(followerId)).monitorOnly === true ? true : undefined), 15_000, 'the copier monitoring only');
    const copierEvents = await events(`copier-${followerId}`);
    expect(copierEvents.map((e) => e.type)).to.deep.equal(['CopierCreated', 'CopierUpdated']);
    expect(copierEvents[1]!.metadata).to.deep.include({ correlationId: 'signal-follower-repair' });
    expect((copierEvents[1]!.data as { changes: unknown }).changes).to.deep.equal({ monitorOnly: true });
    expect(await repairConcurrently(followerId, providerId)).to.deep.equal(['nothing', 'nothing', 'nothing']);

    // A copier changed after the features by a writer outside the provider's turn (a maintenance window
    // deactivating it) is not taken back.
    const services = t.service.services;
    await handleCommand(services.store, `copier-${followerId}`, copierDecider, {
      type: 'UpdateCopier',
      data: { copierId: followerId, projectId: B, toAccountId: account, changes: { active: false } },
      metadata: commandMetadata(services, systemContext('maintenance-window-spec')),
    });
    clock.advance(SIGNAL_FOLLOWER_REPAIR_GRACE_MS + 1000);
    expect(await repairConcurrently(followerId, providerId)).to.deep.equal(['nothing', 'nothing', 'nothing']);
    expect(await types(`copier-${followerId}`)).to.deep.equal(['CopierCreated', 'CopierUpdated', 'CopierUpdated']);
  });

  it("a provider's change stopped part-way across its followers is finished for the ones left behind, once", async () => {
    const source = await startedAccount(t, 'provider-change-source');
    const providerId = await addProvider(source);
    const first = await subscribe(await followerAccount('provider-change-first'), providerId);
    const second = await subscribe(await followerAccount('provider-change-second'), providerId);
    expect(await copierSettings(second)).to.include({ multiplier: 1 });

    // The provider's feature and the first follower's copier are stored; the second copier's append fails.
    failStream = `copier-${second}`;
    const body = featureBody({ type: 'FeatureSignalProviderDTO', name: 'Repaired signals', makeVisibleInMarketplace: true, copier: { multiplier: 2 } });
    const failed = await t.call('PUT', `/accounts/${source}/features/${providerId}`, { body });
    expect(failed.status, JSON.stringify(failed.body)).to.be.at.least(500);
    expect(failStream, 'the seam was taken').to.equal(null);
    expect(await types(`feature-${providerId}`)).to.deep.equal(['FeatureAdded', 'FeatureUpdated']);
    expect(await types(`copier-${first}`)).to.deep.equal(['CopierCreated', 'CopierUpdated']);
    expect(await types(`copier-${second}`), 'the second copier left behind').to.deep.equal(['CopierCreated']);
    expect((await repairSignalFollower(t.service.services, second, providerId)).outcome).to.equal('notYet');

    clock.advance(SIGNAL_FOLLOWER_REPAIR_GRACE_MS + 1000);
    const outcomes = await repairConcurrently(second, providerId);
    expect(outcomes.filter((o) => o === 'updateFinished').length, outcomes.join()).to.be.at.most(1);
    await eventually(
      async () => ((await copierSettings(second)).multiplier === 2 ? true : undefined),
      15_000,
      "the second copier at the provider's multiplier",
    );
    const copierEvents = await events(`copier-${second}`);
    expect(copierEvents.map((e) => e.type)).to.deep.equal(['CopierCreated', 'CopierUpdated']);
    expect((copierEvents[1]!.data as { changes: unknown }).changes).to.deep.equal({ multiplier: 2 });
    expect(copierEvents[1]!.metadata).to.deep.include({ correlationId: 'signal-follower-repair' });
    // The first follower was in step: nothing to do, nothing written.
    expect(await repairConcurrently(first, providerId)).to.deep.equal(['nothing', 'nothing', 'nothing']);
    expect(await types(`copier-${first}`)).to.deep.equal(['CopierCreated', 'CopierUpdated']);
    expect(await repairConcurrently(second, providerId)).to.deep.equal(['nothing', 'nothing', 'nothing']);
  });
});
