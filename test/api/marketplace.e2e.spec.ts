// The marketplace end to end (spec: GET /marketplace, the reference's MarketplaceDTO): signal providers
// that chose makeVisibleInMarketplace, of any project, ranked by the score their performance metrics
// compute; the others hidden; a listed provider's history only while it makes it public.
import { expect } from 'chai';
import { brandById, registerCustomer } from '../../app/customers.js';
import { createCustomerProject } from '../../app/customersProjects.js';
import { DEFAULT_PROJECT_ID } from '../../domain/project/decider.js';
import { systemContext } from '../../domain/shared/command.js';
import { createOtherProject, startTestService, type TestService } from '../support/service.js';
import { eventually, featureBody, marketHoursClock, openPosition, pinQuotes, startedAccount } from '../support/trading.js';

const OTHER = '99999999-9999-4999-8999-999999999996';
const OTHER_KEY = 'other-project-key-marketplace-012345';

const provider = (name: string, members: Record<string, unknown> = {}) =>
  featureBody({ type: 'FeatureSignalProviderDTO', name, copier: { multiplier: 1 }, makeVisibleInMarketplace: true, ...members });

describe('marketplace: visible signal providers ranked by score', function () {
  this.timeout(60_000);
  let t: TestService;

  before(async () => {
    t = await startTestService({ clock: marketHoursClock() });
    await createOtherProject(t, OTHER, OTHER_KEY);
  });
  after(() => t?.stop());

  it('answers an empty MarketplaceDTO while no provider chose to be visible', async () => {
    const res = await t.call('GET', '/marketplace');
    expect([res.status, res.body]).to.deep.equal([200, { signals: [] }]);
  });

  it('answers 404 [SIGNAL_PROVIDER_NOT_FOUND] for the history of a provider not listed', async () => {
    const res = await t.call('GET', `/marketplace/${crypto.randomUUID()}/history/positions?start=2020-01-01T00:00:00Z&stop=2030-01-01T00:00:00Z`);
    expect([res.status, res.body.error]).to.deep.equal([404, '[SIGNAL_PROVIDER_NOT_FOUND]']);
  });

  it('ranks the visible providers of every project by score, hides the invisible, and shows public data only', async () => {
    // Oldest first: the quiet provider would come first on a tie, so the order below is the score's.
    const quiet = await startedAccount(t, 'market-quiet');
    const winner = await startedAccount(t, 'market-winner');
    const hidden = await startedAccount(t, 'market-hidden');
    const add = async (account: string, body: ReturnType<typeof provider>) => {
      const res = await t.call('POST', `/accounts/${account}/features`, { body });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      return res.body.id as string;
    };
    const quietId = await add(quiet, provider('Quiet signals'));
    await add(hidden, provider('Hidden signals', { makeVisibleInMarketplace: false }));

    // The winner closes three trades in profit, and only then becomes a provider: its score reads the
    // history from before (the marketplace read model keeps every account's).
    for (let i = 0; i < 3; i += 1) {
      await pinQuotes(t, { EURUSD: [1.085, 1.0851] });
      const id = await openPosition(t, winner, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.1 });
      await pinQuotes(t, { EURUSD: [1.095, 1.0951] });
      expect((await t.call('DELETE', `/accounts/${winner}/positions/${id}`)).status).to.equal(204);
    }
    const winnerId = await add(winner, provider('Winner signals', { makeHistoryPublic: true }));
    const listed = await eventually(
      async () => {
        const res = await t.call('GET', '/marketplace', { key: OTHER_KEY });
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        const names = res.body.signals.map((s: { setting: { name: string } }) => s.setting.name);
        return names.length === 2 && names[0] === 'Winner signals' ? res.body.signals : undefined;
      },
      10_000,
      'the winner ranked first',
    );
    expect(listed.map((s: { id: string }) => s.id)).to.deep.equal([winnerId, quietId]);
    expect(listed[0].score).to.be.greaterThan(listed[1].score);
    // The same score and breakdown as the account's own performance metrics over its whole history
    // (what the marketplace computed per request before its read model).
    for (const [entry, account] of [
      [listed[0], winner],
      [listed[1], quiet],
    ] as const) {
      const metrics = await t.call('GET', `/accounts/${account}/performanceMetrics`);
      expect(metrics.status, JSON.stringify(metrics.body)).to.equal(200);
      expect({ score: entry.score, scoreBreakdown: entry.scoreBreakdown }).to.deep.equal({
        score: metrics.body.score,
        scoreBreakdown: metrics.body.scoreBreakdown,
      });
    }
    expect(listed[0].scoreBreakdown.totalTradesScore).to.be.greaterThan(0);
    expect(listed.map((s: { rank: number }) => s.rank)).to.deep.equal([1, 2]);
    // Another project sees no account, copier or project of the providers.
    const text = JSON.stringify(listed);
    for (const id of [quiet, winner, hidden]) expect(text).not.to.include(id);
    expect(text).not.to.include('Hidden signals');

    const history = await t.call('GET', `/marketplace/${winnerId}/history/positions?start=2020-01-01T00:00:00Z&stop=2030-01-01T00:00:00Z`, { key: OTHER_KEY });
    expect(history.status, JSON.stringify(history.body)).to.equal(200);
    expect(history.body).to.have.length(3);
    const notPublic = await t.call('GET', `/marketplace/${quietId}/history/positions?start=2020-01-01T00:00:00Z&stop=2030-01-01T00:00:00Z`, {
      key: OTHER_KEY,
    });
    expect([notPublic.status, notPublic.body.error]).to.deep.equal([403, '[SIGNAL_HISTORY_NOT_PUBLIC]']);
  });

  it("applies the caller's white label: showScoreOnMarketplace hides the score, publicMarketplace false keeps the brand's providers to itself", async () => {
    // The providers above are the default project's; it becomes a brand (its white label's defaults:
    // showScoreOnMarketplace false, publicMarketplace true).
    const base = `/projects/${DEFAULT_PROJECT_ID}/features`;
    const brand = (members: Record<string, unknown> = {}) =>
      featureBody({
        type: 'FeatureWhiteLabelDTO',
        name: 'Acme',
        logo: 'https://cdn.acme.test/l.svg',
        subdomain: 'trade.acme.test',
        stripeApiKey: 'sk_test_marketplace',
        ...members,
      });
    const added = await t.call('POST', base, { body: brand() });
    expect(added.status, JSON.stringify(added.body)).to.equal(200);
    const names = (signals: { setting: { name: string } }[]) => signals.map((s) => s.setting.name);
    const own = (await t.call('GET', '/marketplace')).body.signals as Record<string, unknown>[];
    expect(own.map((s) => s.rank)).to.deep.equal([1, 2]);
    expect(names(own as never)).to.deep.equal(['Winner signals', 'Quiet signals']);
    for (const s of own) expect(s).not.to.have.any.keys('score', 'scoreBreakdown');
    // A project without a white label (the operator's) still sees the scores.
    const other = (await t.call('GET', '/marketplace', { key: OTHER_KEY })).body.signals as Record<string, unknown>[];
    expect(other.map((s) => typeof s.score)).to.deep.equal(['number', 'number']);

    const changed = await t.call('PUT', `${base}/${added.body.id}`, { body: brand({ publicMarketplace: false, showScoreOnMarketplace: true }) });
    expect(changed.status, JSON.stringify(changed.body)).to.equal(200);
    const ownAgain = (await t.call('GET', '/marketplace')).body.signals as Record<string, unknown>[];
    expect(names(ownAgain as never)).to.deep.equal(['Winner signals', 'Quiet signals']);
    expect(ownAgain.map((s) => typeof s.score)).to.deep.equal(['number', 'number']);
    expect((await t.call('GET', '/marketplace', { key: OTHER_KEY })).body).to.deep.equal({ signals: [] });
    const winnerId = ownAgain[0]!.id as string;
    const range = 'start=2020-01-01T00:00:00Z&stop=2030-01-01T00:00:00Z';
    const hidden = await t.call('GET', `/marketplace/${winnerId}/history/positions?${range}`, { key: OTHER_KEY });
    expect([hidden.status, hidden.body.error]).to.deep.equal([404, '[SIGNAL_PROVIDER_NOT_FOUND]']);
    expect((await t.call('GET', `/marketplace/${winnerId}/history/positions?${range}`)).status).to.equal(200);

    // A customer of the brand, and the customer's project: it inherits the brand's settings (the brand's
    // private marketplace lists the brand's providers to it, with the scores the brand shows).
    const services = t.service.services;
    const acme = (await brandById(services, added.body.id as string))!;
    const customer = await registerCustomer(services, acme, 'carol@acme.test', systemContext('marketplace-spec'));
    const who = { sessionId: 'none', customerId: customer.customerId, brandFeatureId: acme.featureId, email: customer.email };
    const { key: customerKey } = await createCustomerProject(services, who, 'Carol trading', systemContext('marketplace-spec'));
    const seenByCustomer = await t.call('GET', '/marketplace', { key: customerKey.key });
    expect(seenByCustomer.status, JSON.stringify(seenByCustomer.body)).to.equal(200);
    expect(names(seenByCustomer.body.signals)).to.deep.equal(['Winner signals', 'Quiet signals']);
    expect(seenByCustomer.body.signals.map((s: { score?: unknown }) => typeof s.score)).to.deep.equal(['number', 'number']);
    expect((await t.call('GET', `/marketplace/${winnerId}/history/positions?${range}`, { key: customerKey.key })).status).to.equal(200);
    // The brand hides the scores again: its customer's project follows.
    const hiding = await t.call('PUT', `${base}/${added.body.id}`, { body: brand({ publicMarketplace: false, showScoreOnMarketplace: false }) });
    expect(hiding.status, JSON.stringify(hiding.body)).to.equal(200);
    const hidden2 = (await t.call('GET', '/marketplace', { key: customerKey.key })).body.signals as Record<string, unknown>[];
    expect(names(hidden2 as never)).to.deep.equal(['Winner signals', 'Quiet signals']);
    for (const s of hidden2) expect(s).not.to.have.any.keys('score', 'scoreBreakdown');
    // A provider in the customer's project is the brand's too: kept from other projects, listed to the brand's project.
    const carolAccount = await t.call('POST', '/accounts', {
      key: customerKey.key,
      body: {
        loginServer: 'Sim-Demo',
        loginAccountNumber: `${process.pid}carol`,
        loginAccountPassword: 'secret-password',
        type: { id: 1 },
        region: { id: 2 },
        alias: 'Carol',
      },
    });
    expect(carolAccount.status, JSON.stringify(carolAccount.body)).to.equal(200);
    const carolProvider = await t.call('POST', `/accounts/${carolAccount.body.id}/features`, { key: customerKey.key, body: provider('Carol signals') });
    expect(carolProvider.status, JSON.stringify(carolProvider.body)).to.equal(200);
    expect(names((await t.call('GET', '/marketplace')).body.signals)).to.include('Carol signals');
    expect((await t.call('GET', '/marketplace', { key: OTHER_KEY })).body).to.deep.equal({ signals: [] });
  });
});
