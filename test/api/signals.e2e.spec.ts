// Signal providers and followers over HTTP (issue 19): a provider in project A (the default project),
// a follower in project B. The follower's account copies the provider's trades with its own overrides
// limited to allowedOverrideFields; B's key sees nothing else of A; A sees its followers only through
// /signals; removal of a follower is refused while the provider holds positions; fees only go down;
// the provider's members and bounds (logo, detailedDescription, creation-only members).
import { expect } from 'chai';
import { createOtherProject, startTestService, type TestService, validAccount } from '../support/service.js';
import { eventually, featureBody, marketHoursClock, openPosition, pinQuotes, type PositionBody, startedAccount } from '../support/trading.js';

const B = '99999999-9999-4999-8999-999999999997';
const B_KEY = 'other-project-key-signals-0123456789';
const asB = { key: B_KEY };

/** A PNG's first bytes: signature and IHDR with the given size (all the logo check reads), padded. */
const png = (width: number, height: number, padding = 0): string => {
  const head = Buffer.alloc(33 + padding);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(head, 0);
  head.writeUInt32BE(13, 8);
  head.write('IHDR', 12, 'latin1');
  head.writeUInt32BE(width, 16);
  head.writeUInt32BE(height, 20);
  return head.toString('base64');
};

const provider = (members: Record<string, unknown> = {}) =>
  featureBody({ type: 'FeatureSignalProviderDTO', name: 'Alpha signals', copier: { multiplier: 2, maxLotSize: 5 }, ...members });

describe('signal providers and followers end to end', function () {
  this.timeout(60_000);
  let t: TestService;
  let logins = 0;

  /** A started account of project B. */
  const startedInB = async (alias: string, overrides: Record<string, unknown> = {}) => {
    logins += 1;
    const created = await t.call('POST', '/accounts', {
      ...asB,
      body: validAccount({ alias, loginServer: 'Sim-Demo', loginAccountNumber: `${process.pid}9${logins}${alias}`.slice(0, 64), ...overrides }),
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(200);
    const started = await t.call('POST', `/accounts/${created.body.id}/actions/start`, asB);
    expect(started.status).to.be.oneOf([200, 204]);
    return created.body.id as string;
  };

  const bookOfB = async (accountId: string): Promise<PositionBody[]> => {
    const res = await t.call('GET', `/accounts/${accountId}/positions`, asB);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body as PositionBody[];
  };
  const bookWhere = (accountId: string, test: (book: PositionBody[]) => boolean, what: string) =>
    eventually(
      async () => {
        const book = await bookOfB(accountId);
        return test(book) ? book : undefined;
      },
      5000,
      what,
    );

  const addProvider = async (accountId: string, members: Record<string, unknown> = {}) => {
    const res = await t.call('POST', `/accounts/${accountId}/features`, { body: provider(members) });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body as { id: string; setting: Record<string, unknown> };
  };

  before(async () => {
    t = await startTestService({ clock: marketHoursClock() });
    await createOtherProject(t, B, B_KEY);
    await pinQuotes(t, { EURUSD: [1.085, 1.0851] });
  });
  after(() => t?.stop());

  describe('FeatureSignalProviderDTO', () => {
    it('is attached with the reference members and defaults; read-only members are the service’s', async () => {
      const account = await startedAccount(t, 'provider-defaults');
      const added = await addProvider(account, { verified: true, subscribers: ['someone'], logo: png(64, 64) });
      expect(added.setting).to.deep.include({
        name: 'Alpha signals',
        monthlySubscriptionFee: 20,
        profitSharingFee: 0,
        billingModel: 'MONTHLY_PROFIT',
        isPublic: false,
        makeVisibleInMarketplace: false,
        verified: false,
        accessAllowed: true,
        subscribers: [],
      });
      expect(added.setting.copier).to.deep.include({ multiplier: 2, maxLotSize: 5, scaleType: { id: 4, name: 'No scaling' } });
    });

    it('refuses a logo that is not square, too large or no PNG or JPEG, and a detailedDescription above 20,000 characters; nothing is stored', async () => {
      const account = await startedAccount(t, 'provider-bounds');
      for (const logo of [png(64, 32), png(64, 64, 262_200), Buffer.from('GIF89a....').toString('base64'), 'not base64!']) {
        const res = await t.call('POST', `/accounts/${account}/features`, { body: provider({ logo }) });
        expect(res.status, JSON.stringify(res.body).slice(0, 300)).to.equal(400);
      }
      const long = await t.call('POST', `/accounts/${account}/features`, { body: provider({ detailedDescription: 'x'.repeat(20_001) }) });
      expect(long.status).to.equal(400);
      expect((await t.call('GET', `/accounts/${account}/features`)).body).to.deep.equal([]);
      const ok = await t.call('POST', `/accounts/${account}/features`, {
        body: provider({ detailedDescription: 'x'.repeat(20_000), logo: `data:image/png;base64,${png(128, 128)}` }),
        beyondReference: 'spec 1.2.6: detailedDescription up to 20,000 characters (the reference says 10,000)',
      });
      expect(ok.status).to.equal(200);
      expect((ok.body.setting.detailedDescription as string).length).to.equal(20_000);
    });

    it('fees only go down after creation; creation-only members do not change', async () => {
      const account = await startedAccount(t, 'provider-fees');
      const added = await addProvider(account, { monthlySubscriptionFee: 50, profitSharingFee: 20 });
      const put = (members: Record<string, unknown>) =>
        t.call('PUT', `/accounts/${account}/features/${added.id}`, { body: provider({ monthlySubscriptionFee: 50, profitSharingFee: 20, ...members }) });
      const raised = await put({ monthlySubscriptionFee: 60 });
      expect(raised.status).to.equal(409);
      expect(raised.body.error).to.equal('[SIGNAL_FEE_RAISE_NOT_ALLOWED]');
      expect((await put({ profitSharingFee: 25 })).body.error).to.equal('[SIGNAL_FEE_RAISE_NOT_ALLOWED]');
      const lowered = await put({ monthlySubscriptionFee: 30, profitSharingFee: 10 });
      expect(lowered.status, JSON.stringify(lowered.body)).to.equal(200);
      expect(lowered.body.setting).to.deep.include({ monthlySubscriptionFee: 30, profitSharingFee: 10 });
      const back = await t.call('PUT', `/accounts/${account}/features/${added.id}`, { body: provider({ monthlySubscriptionFee: 50, profitSharingFee: 10 }) });
      expect(back.status).to.equal(409);
      const immutable = await t.call('PUT', `/accounts/${account}/features/${added.id}`, {
        body: provider({ monthlySubscriptionFee: 30, profitSharingFee: 10, isPublic: true }),
      });
      expect(immutable.status).to.equal(400);
      expect(immutable.body.error).to.equal('[SIGNAL_PROVIDER_MEMBER_IMMUTABLE]');
      expect((await t.call('GET', `/accounts/${account}/features/${added.id}`)).body.setting).to.deep.include({
        monthlySubscriptionFee: 30,
        profitSharingFee: 10,
        isPublic: false,
      });
    });
  });

  describe('a follower in another project', () => {
    let source: string;
    let follower: string;
    let providerId: string;
    let followerId: string;

    before(async () => {
      source = await startedAccount(t, 'signal-source');
      providerId = (
        await addProvider(source, {
          makeVisibleInMarketplace: true,
          allowOverrideCopierSetting: true,
          allowedOverrideFields: ['multiplier'],
          copier: { multiplier: 2, maxLotSize: 0.3 },
        })
      ).id;
      follower = await startedInB('signal-follower');
    });

    it('B lists the provider with its public members only, never its account', async () => {
      const list = await t.call('GET', `/projects/${B}/signals`, asB);
      expect(list.status).to.equal(200);
      const seen = (list.body as { id: string; accountId?: string; setting: Record<string, unknown> }[]).find((p) => p.id === providerId);
      expect(seen, 'the provider is listed').to.not.equal(undefined);
      expect(seen).to.not.have.property('accountId');
      expect(JSON.stringify(seen)).to.not.include(source);
      expect(seen!.setting).to.deep.include({ name: 'Alpha signals', accessAllowed: true, subscribers: [] });
    });

    it('refuses overrides outside allowedOverrideFields, and a private provider; nothing is stored', async () => {
      const forbidden = await t.call('POST', `/accounts/${follower}/features`, {
        ...asB,
        body: featureBody({ type: 'FeatureSignalFollowerDTO', signalProviderId: providerId, copier: { maxLotSize: 10 } }),
      });
      expect(forbidden.status).to.equal(400);
      expect(forbidden.body.error).to.equal('[SIGNAL_OVERRIDE_NOT_ALLOWED]');
      const hidden = await addProvider(await startedAccount(t, 'signal-private'));
      const unknown = await t.call('POST', `/accounts/${follower}/features`, {
        ...asB,
        body: featureBody({ type: 'FeatureSignalFollowerDTO', signalProviderId: hidden.id }),
      });
      expect(unknown.status).to.equal(404);
      expect(unknown.body.error).to.equal('[SIGNAL_PROVIDER_NOT_FOUND]');
      expect((await t.call('GET', `/accounts/${follower}/features`, asB)).body).to.deep.equal([]);
    });

    it("copies the provider's trades with the follower's own allowed override", async () => {
      const res = await t.call('POST', `/accounts/${follower}/features`, {
        ...asB,
        body: featureBody({ type: 'FeatureSignalFollowerDTO', signalProviderId: providerId, copier: { multiplier: 3 } }),
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      followerId = res.body.id as string;
      expect(res.body.setting).to.deep.include({ signalProviderId: providerId, signalProviderName: 'Alpha signals', suspended: false, active: true });
      await openPosition(t, source, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.05 });
      await openPosition(t, source, { symbol: 'EURUSD', orderType: 'Sell', volume: 0.2 });
      // multiplier 3 (the follower's, allowed); maxLotSize 0.3 (the provider's) caps 0.6.
      const book = await bookWhere(follower, (b) => b.length === 2, 'two copies');
      expect(book.map((p) => [p.orderType, p.volume]).sort()).to.deep.equal(
        [
          ['Buy', 0.15],
          ['Sell', 0.3],
        ].sort(),
      );
    });

    it("B's key sees nothing else of A: not the provider's account, its positions, nor the /signals operations", async () => {
      for (const path of [`/accounts/${source}`, `/accounts/${source}/positions`, `/accounts/${source}/features`, `/signals/${providerId}/accounts`]) {
        const res = await t.call('GET', path, asB);
        expect(res.status, path).to.equal(404);
      }
      const accounts = (await t.call('GET', '/accounts', asB)).body as { id: string }[];
      expect(accounts.map((a) => a.id)).to.not.include(source);
      // The follower's copier is reached through its feature only: its project's copier routes do not list it.
      expect((await t.call('GET', `/accounts/${follower}/copiers`, asB)).body).to.deep.equal([]);
      expect((await t.call('GET', `/accounts/${follower}/copiers/${followerId}`, asB)).status).to.equal(404);
    });

    it('the provider sees its followers through /signals only', async () => {
      expect((await t.call('GET', `/accounts/${follower}`)).status).to.equal(404);
      const accounts = await t.call('GET', `/signals/${providerId}/accounts`);
      expect(accounts.status).to.equal(200);
      expect((accounts.body as { id: string }[]).map((a) => a.id)).to.deep.equal([follower]);
      const positions = await t.call('GET', `/signals/${providerId}/accounts/${follower}/positions`);
      expect(positions.status).to.equal(200);
      expect(positions.body).to.have.length(2);
      const feature = await t.call('GET', `/signals/${providerId}/accounts/${follower}/followerFeature`);
      expect(feature.body.id).to.equal(followerId);
      // Not an account of another follower, nor one that follows nobody.
      expect((await t.call('GET', `/signals/${providerId}/accounts/${source}/positions`)).status).to.equal(404);
    });

    it('a follower is not removed while the provider holds positions; once it holds none, it is', async () => {
      const refused = await t.call('DELETE', `/signals/${providerId}/accounts/${follower}/followerFeature`);
      expect(refused.status).to.equal(409);
      expect(refused.body.error).to.equal('[SIGNAL_PROVIDER_HAS_OPEN_POSITIONS]');
      expect((await t.call('POST', `/accounts/${source}/actions/closeAllPositions`)).status).to.equal(204);
      await bookWhere(follower, (b) => b.length === 0, 'the copies closed with the provider');
      const removed = await t.call('DELETE', `/signals/${providerId}/accounts/${follower}/followerFeature`);
      expect(removed.status, JSON.stringify(removed.body)).to.equal(200);
      expect((await t.call('GET', `/signals/${providerId}/accounts`)).body).to.deep.equal([]);
      expect((await t.call('GET', `/accounts/${follower}/features`, asB)).body).to.deep.equal([]);
      await openPosition(t, source, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.01 });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await bookOfB(follower), 'no longer copied').to.deep.equal([]);
    });
  });
});
