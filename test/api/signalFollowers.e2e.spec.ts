// Signal followers over HTTP, what signals.e2e leaves out (issue 19): a follower's feature and copier are
// written together (a crash at the copier's write stores neither, for a subscription and a removal);
// minimumBalance at subscription; and the provider's /signals views of its followers: close-all for every
// follower, a follower account's logs, audit logs and performance metrics, and the follower-scope features
// (/accounts/{accountId}/signalFollowers/{signalFollowerId}/features) acting on the copied trades.
// The provider is in project A (the default project), followers in projects B and C.
import { expect } from 'chai';
import type { AppendResult, EventData, EventStore, StreamAppend } from '../../store/port.js';
import { createOtherProject, startTestService, type TestService, validAccount } from '../support/service.js';
import { eventually, featureBody, marketHoursClock, openPosition, pinQuotes, type LogEntry, type PositionBody, startedAccount } from '../support/trading.js';

const B = '99999999-9999-4999-8999-999999999995';
const B_KEY = 'other-project-key-followers-b-0123456789';
const C = '99999999-9999-4999-8999-999999999994';
const C_KEY = 'other-project-key-followers-c-0123456789';

const provider = (members: Record<string, unknown> = {}) =>
  featureBody({ type: 'FeatureSignalProviderDTO', name: 'Followed signals', makeVisibleInMarketplace: true, copier: { multiplier: 1 }, ...members });
const follow = (providerId: string, members: Record<string, unknown> = {}) =>
  featureBody({ type: 'FeatureSignalFollowerDTO', signalProviderId: providerId, ...members });

describe('signal followers: atomic writes, minimumBalance and the provider’s views end to end', function () {
  this.timeout(90_000);
  let t: TestService;
  let logins = 0;

  /** A started account of another project. */
  const startedIn = async (key: string, alias: string, start = true, loginServer = 'Sim-Demo') => {
    logins += 1;
    const created = await t.call('POST', '/accounts', {
      key,
      body: validAccount({ alias, loginServer, loginAccountNumber: `${process.pid}8${logins}${alias}`.slice(0, 64) }),
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(200);
    if (start) expect((await t.call('POST', `/accounts/${created.body.id}/actions/start`, { key })).status).to.be.oneOf([200, 204]);
    return created.body.id as string;
  };
  const bookOf = async (key: string | undefined, accountId: string): Promise<PositionBody[]> => {
    const res = await t.call('GET', `/accounts/${accountId}/positions`, key ? { key } : {});
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body as PositionBody[];
  };
  const bookWhere = (key: string | undefined, accountId: string, test: (book: PositionBody[]) => boolean, what: string) =>
    eventually(
      async () => {
        const book = await bookOf(key, accountId);
        return test(book) ? book : undefined;
      },
      8000,
      what,
    );
  const addProvider = async (accountId: string, members: Record<string, unknown> = {}, key?: string) => {
    const res = await t.call('POST', `/accounts/${accountId}/features`, { ...(key ? { key } : {}), body: provider(members) });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.id as string;
  };
  const subscribe = async (key: string, accountId: string, providerId: string, members: Record<string, unknown> = {}) => {
    const res = await t.call('POST', `/accounts/${accountId}/features`, { key, body: follow(providerId, members) });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.id as string;
  };
  /** The follower copiers the read model holds for an account (the follower's project routes do not list them). */
  const followerCopiers = async (accountId: string) =>
    (await t.service.services.db.selectFrom('copiers').select(['id', 'signal_provider_id']).where('to_account_id', '=', accountId).execute()).map((r) => r.id);

  /**
   * The process "crashes" when it writes a copier stream: that append fails, as if the process died there.
   * Appends that do not touch a copier stream go through. Shadowed on the store itself (it may be a Proxy
   * whose target's methods the class holds), restored by the returned function.
   */
  const crashAtCopierWrite = (): (() => void) => {
    const store = t.service.services.store;
    const proto = Object.getPrototypeOf(store) as EventStore;
    const crash = () => new Error('simulated crash at the copier write');
    const isCopier = (name: string) => name.startsWith('copier-');
    store.appendToStream = async function (this: EventStore, name: string, events: EventData | readonly EventData[], options?: never): Promise<AppendResult> {
      if (isCopier(name)) throw crash();
      return proto.appendToStream.call(this, name, events, options);
    };
    store.appendToStreams = async function (this: EventStore, appends: readonly StreamAppend[]) {
      if (appends.some((a) => isCopier(a.streamName))) throw crash();
      return proto.appendToStreams.call(this, appends);
    };
    return () => {
      delete (store as { appendToStream?: unknown }).appendToStream;
      delete (store as { appendToStreams?: unknown }).appendToStreams;
    };
  };

  before(async () => {
    t = await startTestService({ clock: marketHoursClock() });
    await createOtherProject(t, B, B_KEY);
    await createOtherProject(t, C, C_KEY);
    await pinQuotes(t, { EURUSD: [1.085, 1.0851] });
  });
  after(() => t?.stop());

  describe('a follower’s feature and copier are one write', () => {
    let source: string;
    let providerId: string;
    let account: string;

    before(async () => {
      source = await startedAccount(t, 'atomic-source');
      providerId = await addProvider(source);
      account = await startedIn(B_KEY, 'atomic-follower');
    });

    it('a crash at the copier’s write of a subscription stores neither the feature nor the copier; subscribing again works', async () => {
      const restore = crashAtCopierWrite();
      let failed;
      try {
        failed = await t.call('POST', `/accounts/${account}/features`, { key: B_KEY, body: follow(providerId) });
      } finally {
        restore();
      }
      expect(failed.status, JSON.stringify(failed.body)).to.be.at.least(500);
      expect((await t.call('GET', `/accounts/${account}/features`, { key: B_KEY })).body, 'no follower feature').to.deep.equal([]);
      expect(await followerCopiers(account), 'no follower copier').to.deep.equal([]);
      expect((await t.call('GET', `/signals/${providerId}/accounts`)).body).to.deep.equal([]);

      const followerId = await subscribe(B_KEY, account, providerId);
      expect(await followerCopiers(account)).to.deep.equal([followerId]);
      await openPosition(t, source, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.02 });
      await bookWhere(B_KEY, account, (b) => b.length === 1, 'the copy');
      expect((await t.call('POST', `/accounts/${source}/actions/closeAllPositions`)).status).to.equal(204);
      await bookWhere(B_KEY, account, (b) => b.length === 0, 'the copy closed');
    });

    it('a crash at the copier’s write of a removal leaves the follower and its copier; removing again removes both', async () => {
      const [feature] = (await t.call('GET', `/accounts/${account}/features`, { key: B_KEY })).body as { id: string }[];
      const restore = crashAtCopierWrite();
      let failed;
      try {
        failed = await t.call('DELETE', `/signals/${providerId}/accounts/${account}/followerFeature`);
      } finally {
        restore();
      }
      expect(failed.status, JSON.stringify(failed.body)).to.be.at.least(500);
      expect(((await t.call('GET', `/accounts/${account}/features`, { key: B_KEY })).body as { id: string }[]).map((f) => f.id)).to.deep.equal([feature!.id]);
      expect(await followerCopiers(account)).to.deep.equal([feature!.id]);

      const removed = await t.call('DELETE', `/signals/${providerId}/accounts/${account}/followerFeature`);
      expect(removed.status, JSON.stringify(removed.body)).to.equal(200);
      expect((await t.call('GET', `/accounts/${account}/features`, { key: B_KEY })).body).to.deep.equal([]);
      expect(await followerCopiers(account)).to.deep.equal([]);
    });

    it('subscribing and leaving write the feature and copier events in one transaction each', async () => {
      const followerId = await subscribe(B_KEY, account, providerId);
      const subscribed = await eventsOf(followerId);
      expect(subscribed.map((e) => e.type).sort()).to.deep.equal(['CopierCreated', 'FeatureAdded']);
      expect(new Set(subscribed.map((e) => e.commit)).size, 'one transaction').to.equal(1);
      expect((await t.call('DELETE', `/accounts/${account}/features/${followerId}`, { key: B_KEY })).status).to.equal(200);
      const left = (await eventsOf(followerId)).filter((e) => e.type === 'CopierDeleted' || e.type === 'FeatureRemoved');
      expect(left.map((e) => e.type).sort()).to.deep.equal(['CopierDeleted', 'FeatureRemoved']);
      expect(new Set(left.map((e) => e.commit)).size, 'one transaction').to.equal(1);
    });

    /** The events of a follower's feature and copier streams, with their transaction. */
    const eventsOf = async (followerId: string) => {
      const out: { type: string; commit: bigint }[] = [];
      for (const stream of [`feature-${followerId}`, `copier-${followerId}`]) {
        for await (const { event } of t.service.services.store.readStream(stream)) out.push({ type: event.type, commit: event.position.commit });
      }
      return out;
    };
  });

  describe('minimumBalance', () => {
    it('refuses a follower account whose balance is below it, or whose balance cannot be read; nothing is stored', async () => {
      const source = await startedAccount(t, 'rich-source');
      const demanding = await addProvider(source, { minimumBalance: 20_000 });
      const modest = await addProvider(await startedAccount(t, 'modest-source'), { minimumBalance: 10_000 });
      const account = await startedIn(B_KEY, 'ten-thousand');
      const below = await t.call('POST', `/accounts/${account}/features`, { key: B_KEY, body: follow(demanding) });
      expect([below.status, below.body.error], JSON.stringify(below.body)).to.deep.equal([409, '[SIGNAL_MINIMUM_BALANCE_NOT_MET]']);
      expect(below.body.message).to.match(/at least 20000.*holds 10000/);
      const stopped = await startedIn(B_KEY, 'not-started', false);
      const unknown = await t.call('POST', `/accounts/${stopped}/features`, { key: B_KEY, body: follow(modest) });
      expect([unknown.status, unknown.body.error], JSON.stringify(unknown.body)).to.deep.equal([409, '[ACCOUNT_NOT_CONNECTED]']);
      for (const id of [account, stopped]) {
        expect((await t.call('GET', `/accounts/${id}/features`, { key: B_KEY })).body).to.deep.equal([]);
        expect(await followerCopiers(id)).to.deep.equal([]);
      }
      // The demo balance (10,000) meets a minimum of 10,000.
      await subscribe(B_KEY, account, modest);
    });

    it('converts a GBP follower’s balance for an EUR provider through USD, as its copies’ rate does (no EURGBP quoted)', async () => {
      // The simulated venue quotes GBPUSD and EURUSD but no EURGBP: 10,000 GBP = 13,020 USD = 11,999.45 EUR.
      await pinQuotes(t, { GBPUSD: [1.3019, 1.3021] });
      const euros = await startedAccount(t, 'euro-source', { loginServer: 'Simulated-EUR-Demo' });
      const above = await addProvider(euros, { minimumBalance: 12_000 });
      const within = await addProvider(await startedAccount(t, 'euro-source-2', { loginServer: 'Simulated-EUR-Demo' }), { minimumBalance: 11_999 });
      const pounds = await startedIn(B_KEY, 'pounds', true, 'Simulated-GBP-Demo');
      const below = await t.call('POST', `/accounts/${pounds}/features`, { key: B_KEY, body: follow(above) });
      expect([below.status, below.body.error], JSON.stringify(below.body)).to.deep.equal([409, '[SIGNAL_MINIMUM_BALANCE_NOT_MET]']);
      expect(below.body.message).to.match(/at least 12000 EUR.*holds 10000 GBP \(11999\.45 EUR\)/);
      expect((await t.call('GET', `/accounts/${pounds}/features`, { key: B_KEY })).body).to.deep.equal([]);
      expect(await followerCopiers(pounds)).to.deep.equal([]);
      const followerId = await subscribe(B_KEY, pounds, within);
      expect(await followerCopiers(pounds)).to.deep.equal([followerId]);
    });
  });

  describe('cycles across projects', () => {
    it('refuses a follow, and a copier, that would close a cycle through followers of other projects; nothing is stored', async () => {
      // a (project A) -> b (B follows a) -> c (C follows b) -> b3 (B follows c)
      const a = await startedAccount(t, 'cycle-a');
      const onA = await addProvider(a, { allowReselling: true });
      const b = await startedIn(B_KEY, 'cycle-b', false);
      await subscribe(B_KEY, b, onA);
      const onB = await addProvider(b, { name: 'Resold by b', allowReselling: true }, B_KEY);
      const c = await startedIn(C_KEY, 'cycle-c', false);
      await subscribe(C_KEY, c, onB);
      const onC = await addProvider(c, { name: 'Resold by c', allowReselling: true }, C_KEY);
      const b3 = await startedIn(B_KEY, 'cycle-b3', false);
      await subscribe(B_KEY, b3, onC);

      for (const providerId of [onB, onC]) {
        const refused = await t.call('POST', `/accounts/${a}/features`, { body: follow(providerId) });
        expect([refused.status, refused.body.error], JSON.stringify(refused.body)).to.deep.equal([409, '[COPIER_CYCLE]']);
      }
      expect(await followerCopiers(a)).to.deep.equal([]);
      // A copier of project B from b3 to b: b -> c is project C's, c -> b3 project B's (regression: the walk
      // stayed within the project and let this cycle through).
      const copier = await t.call('POST', `/accounts/${b}/copiers`, { key: B_KEY, body: { fromAccountId: b3 } });
      expect([copier.status, copier.body.error], JSON.stringify(copier.body)).to.deep.equal([409, '[COPIER_CYCLE]']);
      expect(
        (await t.service.services.db.selectFrom('copiers').select('from_account_id').where('to_account_id', '=', b).execute()).map((r) => r.from_account_id),
      ).to.deep.equal([a]);
    });

    /** The masters of `accountId`'s copiers (follower copiers included), as the read model holds them. */
    const mastersOf = async (accountId: string) =>
      (await t.service.services.db.selectFrom('copiers').select('from_account_id').where('to_account_id', '=', accountId).execute()).map(
        (r) => r.from_account_id,
      );
    /** Two writes sent together: one is written, the other refused with [COPIER_CYCLE]; answers which was written. */
    const exactlyOneRefused = async (
      writes: [() => Promise<{ status: number; body: Record<string, unknown> }>, () => Promise<{ status: number; body: Record<string, unknown> }>],
    ) => {
      const answers = await Promise.all(writes.map((write) => write()));
      const seen = answers.map((r) => [r.status, r.body.error ?? null]);
      expect(seen, JSON.stringify(answers.map((r) => r.body))).to.deep.include.members([[409, '[COPIER_CYCLE]']]);
      expect(answers.map((r) => r.status).sort(), JSON.stringify(answers.map((r) => r.body))).to.deep.equal([200, 409]);
      return answers[0]!.status === 200 ? 0 : 1;
    };

    // a1 (A) -> b1 (B follows a1) and b2 (B) -> a2 (A follows b2) are stored; a copier of B from b1 to b2 and
    // one of A from a2 to a1 would close a1 -> b1 -> b2 -> a2 -> a1 together, each walk missing the other's link.
    it('two copiers of different projects sent together, closing one cycle between them: exactly one is refused', async () => {
      const a1 = await startedAccount(t, 'race-a1');
      const b1 = await startedIn(B_KEY, 'race-b1', false);
      await subscribe(B_KEY, b1, await addProvider(a1, { name: 'Race a1', allowReselling: true }));
      const b2 = await startedIn(B_KEY, 'race-b2', false);
      const onB2 = await addProvider(b2, { name: 'Race b2', allowReselling: true }, B_KEY);
      const a2 = await startedAccount(t, 'race-a2');
      expect((await t.call('POST', `/accounts/${a2}/features`, { body: follow(onB2) })).status).to.equal(200);
      const written = await exactlyOneRefused([
        () => t.call('POST', `/accounts/${b2}/copiers`, { key: B_KEY, body: { fromAccountId: b1 } }),
        () => t.call('POST', `/accounts/${a1}/copiers`, { body: { fromAccountId: a2 } }),
      ]);
      expect([await mastersOf(b2), await mastersOf(a1)]).to.deep.equal(written === 0 ? [[b1], []] : [[], [a2]]);
    });

    it('a follow and a copier of another project sent together, closing one cycle between them: exactly one is refused', async () => {
      // a1 (A) -> b1 (B follows a1) and a2 -> a1 (a copier of A) are stored; b1 -> b2 (a copier of B) and
      // b2 -> a2 (A follows b2: the provider's turn, not a project's) would close the cycle together.
      const a1 = await startedAccount(t, 'race2-a1');
      const b1 = await startedIn(B_KEY, 'race2-b1', false);
      await subscribe(B_KEY, b1, await addProvider(a1, { name: 'Race2 a1', allowReselling: true }));
      const a2 = await startedAccount(t, 'race2-a2');
      expect((await t.call('POST', `/accounts/${a1}/copiers`, { body: { fromAccountId: a2 } })).status).to.equal(200);
      const b2 = await startedIn(B_KEY, 'race2-b2', false);
      const onB2 = await addProvider(b2, { name: 'Race2 b2', allowReselling: true }, B_KEY);
      const written = await exactlyOneRefused([
        () => t.call('POST', `/accounts/${b2}/copiers`, { key: B_KEY, body: { fromAccountId: b1 } }),
        () => t.call('POST', `/accounts/${a2}/features`, { body: follow(onB2) }),
      ]);
      expect([await mastersOf(b2), await mastersOf(a2)]).to.deep.equal(written === 0 ? [[b1], []] : [[], [b2]]);
    });
  });

  describe('allowReselling', () => {
    it('a follower of a provider that does not allow reselling cannot be a provider, nor a provider follow it; allowed with true', async () => {
      const closed = await addProvider(await startedAccount(t, 'closed-source'), { allowReselling: false });
      const open = await addProvider(await startedAccount(t, 'open-source'), { allowReselling: true });
      const account = await startedIn(B_KEY, 'reseller');
      await subscribe(B_KEY, account, closed);
      const resell = await t.call('POST', `/accounts/${account}/features`, { key: B_KEY, body: provider({ name: 'Resold signals' }) });
      expect([resell.status, resell.body.error], JSON.stringify(resell.body)).to.deep.equal([409, '[SIGNAL_RESELLING_NOT_ALLOWED]']);

      const reseller = await startedIn(C_KEY, 'open-reseller');
      await subscribe(C_KEY, reseller, open);
      const resold = await t.call('POST', `/accounts/${reseller}/features`, { key: C_KEY, body: provider({ name: 'Resold open signals' }) });
      expect(resold.status, JSON.stringify(resold.body)).to.equal(200);
      // The other way round: a provider account subscribing to the closed signal.
      const refused = await t.call('POST', `/accounts/${reseller}/features`, { key: C_KEY, body: follow(closed) });
      expect([refused.status, refused.body.error], JSON.stringify(refused.body)).to.deep.equal([409, '[SIGNAL_RESELLING_NOT_ALLOWED]']);
    });
  });

  describe('the provider’s views of its followers', () => {
    let source: string;
    let providerId: string;
    let inB: string;
    let inC: string;
    let followerB: string;

    before(async () => {
      source = await startedAccount(t, 'views-source');
      providerId = await addProvider(source);
      inB = await startedIn(B_KEY, 'views-b');
      inC = await startedIn(C_KEY, 'views-c');
      followerB = await subscribe(B_KEY, inB, providerId);
      await subscribe(C_KEY, inC, providerId);
    });

    it('a follower-scope feature filters what the follower copies, for that follower only', async () => {
      const base = `/accounts/${inB}/signalFollowers/${followerB}/features`;
      const added = await t.call('POST', base, { key: B_KEY, body: featureBody({ type: 'FeatureCopierFilterDTO', minLotSize: 0.1 }) });
      expect(added.status, JSON.stringify(added.body)).to.equal(200);
      const featureId = added.body.id as string;
      expect(((await t.call('GET', base, { key: B_KEY })).body as { id: string }[]).map((f) => f.id)).to.deep.equal([featureId]);
      expect((await t.call('GET', `${base}/${featureId}`, { key: B_KEY })).body.setting).to.deep.include({ minLotSize: 0.1 });
      // Another project's key, or the follower's id on another account: not found.
      expect((await t.call('GET', base, { key: C_KEY })).status).to.equal(404);
      expect((await t.call('GET', `/accounts/${inC}/signalFollowers/${followerB}/features`, { key: C_KEY })).status).to.equal(404);
      // An account feature does not attach to a follower.
      const wrong = await t.call('POST', base, { key: B_KEY, body: follow(providerId) });
      expect([wrong.status, wrong.body.error]).to.deep.equal([400, '[FEATURE_SCOPE_NOT_ALLOWED]']);

      await openPosition(t, source, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.05 });
      await openPosition(t, source, { symbol: 'EURUSD', orderType: 'Sell', volume: 0.2 });
      await bookWhere(C_KEY, inC, (b) => b.length === 2, 'both trades copied to C');
      const inBook = await bookWhere(B_KEY, inB, (b) => b.length === 1, 'only the 0.2 lot trade copied to B');
      expect(inBook.map((p) => [p.orderType, p.volume])).to.deep.equal([['Sell', 0.2]]);

      const changed = await t.call('PUT', `${base}/${featureId}`, { key: B_KEY, body: featureBody({ type: 'FeatureCopierFilterDTO', minLotSize: 0.5 }) });
      expect(changed.status, JSON.stringify(changed.body)).to.equal(200);
      expect(changed.body.setting).to.deep.include({ minLotSize: 0.5 });
    });

    it('reads a follower account’s logs, audit logs and performance metrics through /signals, for its followers only', async () => {
      const logs = await eventually(
        async () => {
          const res = await t.call('GET', `/signals/${providerId}/accounts/${inB}/logs?limit=1000`);
          expect(res.status, JSON.stringify(res.body)).to.equal(200);
          const entries = res.body as LogEntry[];
          return entries.some((l) => l.code === 'LOT_FILTERED') ? entries : undefined;
        },
        5000,
        'the LOT_FILTERED skip in the follower’s log',
      );
      expect(logs.every((l) => l.copierId === null || l.copierId === followerB)).to.equal(true);

      const audit = await t.call('GET', `/signals/${providerId}/accounts/${inB}/auditLogs?limit=1000`);
      expect(audit.status, JSON.stringify(audit.body)).to.equal(200);
      const actions = (audit.body as { action: string }[]).map((l) => l.action);
      expect(actions).to.include.members(['FeatureAdded', 'CopierCreated']);

      const metrics = await t.call('GET', `/signals/${providerId}/accounts/${inC}/performanceMetrics`);
      expect(metrics.status, JSON.stringify(metrics.body)).to.equal(200);
      const own = await t.call('GET', `/accounts/${inC}/performanceMetrics`, { key: C_KEY });
      expect(metrics.body, 'what the follower’s own project reads').to.deep.equal(own.body);

      // Not the provider's own account, nor another provider's follower; not with the follower's key.
      for (const path of ['logs', 'auditLogs', 'performanceMetrics']) {
        expect((await t.call('GET', `/signals/${providerId}/accounts/${source}/${path}`)).status, path).to.equal(404);
        expect((await t.call('GET', `/signals/${providerId}/accounts/${inB}/${path}`, { key: B_KEY })).status, path).to.equal(404);
      }
    });

    it('closes every position of every follower, and none of the provider’s', async () => {
      await bookWhere(C_KEY, inC, (b) => b.length === 2, 'C holds two copies');
      await bookWhere(B_KEY, inB, (b) => b.length === 1, 'B holds one copy');
      const res = await t.call('POST', `/signals/${providerId}/closeAllPositions`);
      expect(res.status, JSON.stringify(res.body)).to.equal(204);
      expect(await bookOf(C_KEY, inC)).to.deep.equal([]);
      expect(await bookOf(B_KEY, inB)).to.deep.equal([]);
      expect(await bookOf(undefined, source)).to.have.length(2);
      // Another project's key may not: the provider is not found for it.
      expect((await t.call('POST', `/signals/${providerId}/closeAllPositions`, { key: B_KEY })).status).to.equal(404);
      expect((await t.call('POST', `/accounts/${source}/actions/closeAllPositions`)).status).to.equal(204);
    });
  });
});
