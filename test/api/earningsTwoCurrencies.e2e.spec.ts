// Money across two currencies end to end (issues 19 and 23): a white-label customer's signal provider
// trades on an EUR account (server Simulated-EUR-Demo); the operator's own USD account (Simulated-Demo)
// follows it, sized by balance; the copy engine, the earnings, the follower costs and the payout export
// each keep their currency, on a virtual clock over January 2026.
//
// EURUSD pinned at 1.2499 / 1.2501 (mid 1.25): one USD is 0.80 EUR (the rate the copy engine reads).
// Provider: 10,000 EUR; 31 EUR a month (1.00 a day in January), 20 % profit sharing, MONTHLY_PROFIT,
//   covering its followers' costs (the price list's 0.50 USD a follower-day).
// Follower: 10,000 USD = 8,000 EUR, subscribed 10 January 10:00 (22 days of January).
// 12 January 10:00 the provider buys 1 lot at 1.2501 (commission 7 EUR: balance 9,993); the follower's
//   copy is 1 x 8,000 / 9,993 = 0.8005... -> 0.80 lots at 1.2501 (commission 5.60 USD). 11:00, closed at
//   the bid 1.2599: (1.2599 - 1.2501) x 100,000 x 0.80 = 784.00 - 5.60 = 778.40 USD on the follower,
//   x 0.80 = 622.72 EUR.
// January earnings, in EUR: subscription 22 x 1.00 = 22.00; profit sharing 622.72 x 20 % = 124.544 ->
//   124.54; total 146.54. Follower costs, in USD: 22 x 0.50 = 11.00. The payout of January: 146.54 EUR.
import { expect } from 'chai';
import { DEFAULT_PROJECT_ID } from '../../domain/project/decider.js';
import { allProjections } from '../../projections/all.js';
import { rebuildProjection } from '../../projections/rebuild.js';
import { type FakeSmtp, startFakeSmtp } from '../support/fakeSmtp.js';
import { startTestService, type TestService, validAccount } from '../support/service.js';
import { eventually, featureBody, movableClock, pinQuotes, type PositionBody, positionRequest } from '../support/trading.js';

const BRAND = 'trade.two-currencies.test';

describe('money in two currencies: an EUR signal provider, a USD follower', function () {
  this.timeout(240_000);
  const clock = movableClock(Date.parse('2026-01-05T10:00:00.000Z'));
  const moveTo = (iso: string) => {
    const ahead = Date.parse(iso) - clock().getTime();
    expect(ahead, `the clock is before ${iso}`).to.be.greaterThan(0);
    clock.advance(ahead);
  };
  let t: TestService;
  let smtp: FakeSmtp;
  let brand: string;
  let projectKey: string;
  let source: string;
  let follower: string;
  let providerId: string;
  let followerId: string;

  const started = async (key: string | undefined, loginServer: string, loginAccountNumber: string) => {
    const created = await t.call('POST', '/accounts', { ...(key ? { key } : {}), body: validAccount({ loginServer, loginAccountNumber, alias: loginServer }) });
    expect(created.status, JSON.stringify(created.body)).to.equal(200);
    const start = await t.call('POST', `/accounts/${created.body.id}/actions/start`, key ? { key } : {});
    expect(start.status, JSON.stringify(start.body)).to.be.oneOf([200, 204]);
    return created.body.id as string;
  };
  const book = (count: number, what: string) =>
    eventually(
      async () => {
        const res = await t.call('GET', `/accounts/${follower}/positions`);
        return (res.body as PositionBody[]).length === count ? (res.body as PositionBody[]) : undefined;
      },
      20_000,
      what,
    );
  const earnings = async () => {
    const res = await t.call('GET', `/signals/${providerId}/earnings`, { key: projectKey });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body;
  };
  const costs = async () => {
    const res = await t.call('GET', `/signals/${providerId}/followerCosts?year=2026&month=1`, { key: projectKey });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body;
  };
  const payouts = async () => {
    const res = await t.call('GET', `/projects/${DEFAULT_PROJECT_ID}/features/${brand}/whitelabel/payouts?year=2026&month=1`);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body;
  };

  before(async () => {
    smtp = await startFakeSmtp();
    t = await startTestService({
      clock,
      env: { SMTP_URL: smtp.url, SMTP_FROM: 'ops@operator.test', PRICE_LIST: JSON.stringify({ currency: 'USD', followerDaily: '0.50' }) },
    });
    await pinQuotes(t, { EURUSD: [1.2499, 1.2501] });
    const added = await t.call('POST', `/projects/${DEFAULT_PROJECT_ID}/features`, {
      body: featureBody({ type: 'FeatureWhiteLabelDTO', name: 'Two currencies', logo: 'https://cdn.two.test/logo.svg', subdomain: BRAND, stripeApiKey: '' }),
    });
    expect(added.status, JSON.stringify(added.body)).to.equal(200);
    brand = added.body.id;
    const asked = await t.call('POST', `/whitelabel/${BRAND}/customers/code`, { key: null, body: { email: 'eve@two.test' } });
    const session = await t.call('POST', `/whitelabel/${BRAND}/customers/session`, {
      key: null,
      body: { codeId: asked.body.codeId, code: await smtp.codeFor('eve@two.test') },
    });
    expect(session.status, JSON.stringify(session.body)).to.equal(200);
    const project = await t.call('POST', '/customer/projects', {
      key: null,
      headers: { authorization: `Bearer ${session.body.token}` },
      body: { name: 'Eve EUR' },
    });
    expect(project.status, JSON.stringify(project.body)).to.equal(201);
    projectKey = project.body.key;

    source = await started(projectKey, 'Simulated-EUR-Demo', `${process.pid}81`);
    const provider = await t.call('POST', `/accounts/${source}/features`, {
      key: projectKey,
      body: featureBody({
        type: 'FeatureSignalProviderDTO',
        name: 'Eve in euros',
        makeVisibleInMarketplace: true,
        billingModel: 'MONTHLY_PROFIT',
        coverFollowerCosts: true,
        monthlySubscriptionFee: 31,
        profitSharingFee: 20,
        copier: { multiplier: 1, scaleType: { id: 1 } },
      }),
    });
    expect(provider.status, JSON.stringify(provider.body)).to.equal(200);
    providerId = provider.body.id;

    moveTo('2026-01-10T10:00:00.000Z');
    follower = await started(undefined, 'Simulated-Demo', `${process.pid}82`);
    const followed = await t.call('POST', `/accounts/${follower}/features`, {
      body: featureBody({ type: 'FeatureSignalFollowerDTO', signalProviderId: providerId }),
    });
    expect(followed.status, JSON.stringify(followed.body)).to.equal(200);
    followerId = followed.body.id;

    moveTo('2026-01-12T10:00:00.000Z');
    const opened = await t.call('POST', `/accounts/${source}/positions`, {
      key: projectKey,
      body: positionRequest({ symbol: 'EURUSD', orderType: 'Buy', volume: 1 }),
    });
    expect(opened.status, JSON.stringify(opened.body)).to.equal(204);
    const [copy] = await book(1, 'the copy');
    expect([copy!.orderType, copy!.volume, copy!.openPrice]).to.deep.equal(['Buy', 0.8, 1.2501]);
    clock.advance(3600_000);
    await pinQuotes(t, { EURUSD: [1.2599, 1.2601] });
    const closed = await t.call('DELETE', `/accounts/${source}/positions/${opened.headers.get('x-position-id')}`, { key: projectKey });
    expect(closed.status, JSON.stringify(closed.body)).to.equal(204);
    await book(0, 'the copy closed');
    moveTo('2026-02-01T10:00:00.000Z');
  });
  after(async () => {
    await t?.stop();
    await smtp?.close();
  });

  it('the two accounts report and record their currencies', async () => {
    const info = async (id: string, key?: string) => (await t.call('GET', `/accounts/${id}/information`, key ? { key } : {})).body.currency;
    expect([await info(source, projectKey), await info(follower)]).to.deep.equal(['EUR', 'USD']);
    const recorded = await eventually(
      async () => {
        const rows = await t.service.services.db.selectFrom('accounts').select(['id', 'currency']).where('id', 'in', [source, follower]).execute();
        return rows.every((r) => r.currency !== null) && rows.length === 2 ? rows : undefined;
      },
      10_000,
      'both currencies recorded',
    );
    expect(Object.fromEntries(recorded.map((r) => [r.id, r.currency]))).to.deep.equal({ [source]: 'EUR', [follower]: 'USD' });
  });

  it("the follower's copy was sized by the two balances in one currency, and closed in its own", async () => {
    const res = await t.call('GET', `/accounts/${follower}/history/positions?start=2026-01-01T00:00:00.000Z&stop=2026-02-01T00:00:00.000Z`);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect((res.body as { volume: number; profit: number; commission: number }[]).map((p) => [p.volume, p.profit, p.commission])).to.deep.equal([
      [0.8, 784, -5.6],
    ]);
  });

  it("earnings are in the provider's EUR, the follower's USD result converted at the copy's rate", async () => {
    const body = await earnings();
    expect(body).to.deep.include({ signalProviderId: providerId, currency: 'EUR' });
    const [jan] = body.months;
    expect(jan).to.deep.include({ year: 2026, month: 1, subscriptionAmount: 22, profitSharingAmount: 124.54, total: 146.54 });
    expect(jan.followers).to.have.length(1);
    const [charge] = jan.followers;
    expect(charge).to.deep.include({
      followerId,
      accountId: follower,
      daysActive: 22,
      subscriptionAmount: 22,
      profitSharingFee: 20,
      profitSharingAmount: 124.54,
      total: 146.54,
    });
    expect(charge.closedTradeResult).to.be.closeTo(622.72, 1e-9);
  });

  it("follower costs stay in the price list's currency", async () => {
    const body = await costs();
    expect(body).to.deep.include({ currency: 'USD', total: 11 });
    expect(body.months[0].followers).to.deep.equal([{ followerId, accountId: follower, daysActive: 22, appliedDailyRate: 0.5, amount: 11 }]);
  });

  it("the payout of January is the provider's earnings in EUR", async () => {
    const [payout, ...more] = await payouts();
    expect(more).to.deep.equal([]);
    expect(payout).to.deep.include({
      signalProviderId: providerId,
      accountId: source,
      subscriptionAmount: 22,
      profitSharingAmount: 124.54,
      total: 146.54,
      currency: 'EUR',
    });
    expect(payout.currencyType).to.deep.include({ id: 2 });
  });

  it('keeps every figure with the provider stopped, and after a rebuild of the accounts and earnings read models', async () => {
    const before = { earnings: await earnings(), costs: await costs(), payouts: await payouts() };
    const stop = await t.call('POST', `/accounts/${source}/actions/stop`, { key: projectKey });
    expect(stop.status, JSON.stringify(stop.body)).to.be.oneOf([200, 204]);
    expect({ earnings: await earnings(), costs: await costs(), payouts: await payouts() }).to.deep.equal(before);
    const { db, store } = t.service.services;
    for (const name of ['accounts', 'earnings'])
      await rebuildProjection(
        db,
        store,
        allProjections.find((p) => p.name === name)!,
      );
    expect({ earnings: await earnings(), costs: await costs(), payouts: await payouts() }).to.deep.equal(before);
  });
});
