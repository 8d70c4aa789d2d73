// A signal provider's earnings and covered follower costs driven end to end (issue 19 "a month of trades
// gives the earnings and follower costs a hand calculation gives"): a provider in project A, followers in
// projects B and C subscribing through the API, the master's trades placed through the trading API and
// copied by the copy engine at the simulated venue, all on a virtual clock over January 2026; the figures
// read through GET /signals/{id}/earnings and /followerCosts, then again after a rebuild of the read model.
// (earnings.e2e appends the same kinds of events straight into the store for the finer rules.)
//
// The operator's price list (PRICE_LIST): a covered follower-day costs 0.75 EUR.
// The provider: 31 a month (1.00 a day in January), 20 % profit sharing, MONTHLY_PROFIT, covering follower
// costs for one account per project; fees lowered on 21 January 12:00 to 15.5 (0.50 a day) and 10 %.
// Trades (EURUSD, pinned quotes, commission 7 a lot at the open, no swap: each closes within the hour):
//   8 January: Buy 0.1 at 1.10010, closed at 1.11010: +100.00 - 0.70 = 99.30 on each follower then;
//   26 January: Sell 0.2 at 1.11000, closed at 1.11210: -42.00 - 1.40 = -43.40 on each follower then.
// Followers (a day counts when the subscription covers any part of it, at the fee in force at its end):
//   C1 (project C) 5 January, removed by the provider 20 January: 16 days x 1.00 = 16.00; trades 99.30 at
//     20 % (in force when it left) = 19.86; total 35.86.
//   B1 (project B) 7 January: 14 x 1.00 + 11 x 0.50 = 19.50; trades 99.30 - 43.40 = 55.90 at 10 % (at the
//     month's end) = 5.59; total 25.09.
//   B2 (project B) 8 January: 13 x 1.00 + 11 x 0.50 = 18.50; trades 55.90 -> 5.59; total 24.09.
//   January: subscriptions 54.00, profit sharing 31.04, total 85.04.
//   February, read on 3 February: B1 and B2, 3 days x 15.5 / 28 = 1.6607 -> 1.66 each: 3.32.
// Follower costs (covered: C1, the first of C, and B1, the first of B; B2 is not):
//   January: C1 16 x 0.75 = 12.00, B1 25 x 0.75 = 18.75: 30.75; February: B1 3 x 0.75 = 2.25; total 33.00.
import { expect } from 'chai';
import { allProjections } from '../../projections/all.js';
import { rebuildProjection } from '../../projections/rebuild.js';
import { createOtherProject, startTestService, type TestService, validAccount } from '../support/service.js';
import { eventually, featureBody, movableClock, openPosition, pinQuotes, type PositionBody, startedAccount } from '../support/trading.js';

const B = '99999999-9999-4999-8999-999999999993';
const B_KEY = 'other-project-key-earnings-b-0123456789';
const C = '99999999-9999-4999-8999-999999999992';
const C_KEY = 'other-project-key-earnings-c-0123456789';

const terms = (monthlySubscriptionFee: number, profitSharingFee: number) =>
  featureBody({
    type: 'FeatureSignalProviderDTO',
    name: 'Monthly signals',
    makeVisibleInMarketplace: true,
    billingModel: 'MONTHLY_PROFIT',
    coverFollowerCosts: true,
    maxCoveredAccountsPerProject: 1,
    monthlySubscriptionFee,
    profitSharingFee,
    copier: { multiplier: 1 },
  });

describe('signal provider earnings and follower costs driven through the API and the copy engine', function () {
  this.timeout(180_000);
  const clock = movableClock(Date.parse('2026-01-02T10:00:00.000Z'));
  /** Moves the virtual clock forward to `iso` (it keeps ticking in real time from there). */
  const moveTo = (iso: string) => {
    const ahead = Date.parse(iso) - clock().getTime();
    expect(ahead, `the clock is before ${iso}`).to.be.greaterThan(0);
    clock.advance(ahead);
  };
  let t: TestService;
  let source: string;
  let providerId: string;
  const accounts: Record<'C1' | 'B1' | 'B2', string> = { C1: '', B1: '', B2: '' };
  const followerIds: Record<'C1' | 'B1' | 'B2', string> = { C1: '', B1: '', B2: '' };
  const keyOf = { C1: C_KEY, B1: B_KEY, B2: B_KEY } as const;
  let logins = 0;

  const startedIn = async (key: string, alias: string) => {
    logins += 1;
    const created = await t.call('POST', '/accounts', {
      key,
      body: validAccount({ alias, loginServer: 'Sim-Demo', loginAccountNumber: `${process.pid}7${logins}${alias}`.slice(0, 64) }),
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(200);
    expect((await t.call('POST', `/accounts/${created.body.id}/actions/start`, { key })).status).to.be.oneOf([200, 204]);
    return created.body.id as string;
  };
  const subscribe = async (who: 'C1' | 'B1' | 'B2') => {
    accounts[who] = await startedIn(keyOf[who], `earnings-${who}`);
    const res = await t.call('POST', `/accounts/${accounts[who]}/features`, {
      key: keyOf[who],
      body: featureBody({ type: 'FeatureSignalFollowerDTO', signalProviderId: providerId }),
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    followerIds[who] = res.body.id as string;
  };
  const books = (who: readonly ('C1' | 'B1' | 'B2')[], count: number, what: string) =>
    Promise.all(
      who.map((w) =>
        eventually(
          async () => {
            const res = await t.call('GET', `/accounts/${accounts[w]}/positions`, { key: keyOf[w] });
            const book = res.body as PositionBody[];
            return book.length === count ? book : undefined;
          },
          10_000,
          `${what} on ${w}`,
        ),
      ),
    );
  /** The master opens at `open` quotes, the followers copy, and it closes an hour later at `close` quotes. */
  const masterTrade = async (
    who: readonly ('C1' | 'B1' | 'B2')[],
    orderType: 'Buy' | 'Sell',
    volume: number,
    open: readonly [number, number],
    close: readonly [number, number],
  ) => {
    await pinQuotes(t, { EURUSD: open });
    const positionId = await openPosition(t, source, { symbol: 'EURUSD', orderType, volume });
    const copies = await books(who, 1, 'the copy');
    for (const [book] of copies) expect([book!.orderType, book!.volume]).to.deep.equal([orderType, volume]);
    clock.advance(3600_000);
    await pinQuotes(t, { EURUSD: close });
    expect((await t.call('DELETE', `/accounts/${source}/positions/${positionId}`)).status).to.equal(204);
    await books(who, 0, 'the copy closed');
  };
  const earnings = async () => {
    const res = await t.call('GET', `/signals/${providerId}/earnings`);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body;
  };
  const costs = async () => {
    const res = await t.call('GET', `/signals/${providerId}/followerCosts`);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body;
  };

  before(async () => {
    t = await startTestService({ clock, env: { PRICE_LIST: JSON.stringify({ currency: 'EUR', followerDaily: '0.75' }) } });
    await createOtherProject(t, B, B_KEY);
    await createOtherProject(t, C, C_KEY);
    await pinQuotes(t, { EURUSD: [1.1, 1.1001] });

    source = await startedAccount(t, 'earnings-source');
    const added = await t.call('POST', `/accounts/${source}/features`, { body: terms(31, 20) });
    expect(added.status, JSON.stringify(added.body)).to.equal(200);
    providerId = added.body.id as string;

    moveTo('2026-01-05T10:00:00.000Z');
    await subscribe('C1');
    moveTo('2026-01-07T10:00:00.000Z');
    await subscribe('B1');
    moveTo('2026-01-08T09:00:00.000Z');
    await subscribe('B2');
    moveTo('2026-01-08T10:00:00.000Z');
    await masterTrade(['C1', 'B1', 'B2'], 'Buy', 0.1, [1.1, 1.1001], [1.1101, 1.1102]);

    moveTo('2026-01-20T10:00:00.000Z');
    const removed = await t.call('DELETE', `/signals/${providerId}/accounts/${accounts.C1}/followerFeature`);
    expect(removed.status, JSON.stringify(removed.body)).to.equal(200);
    moveTo('2026-01-21T12:00:00.000Z');
    const lowered = await t.call('PUT', `/accounts/${source}/features/${providerId}`, { body: terms(15.5, 10) });
    expect(lowered.status, JSON.stringify(lowered.body)).to.equal(200);

    moveTo('2026-01-26T10:00:00.000Z');
    await masterTrade(['B1', 'B2'], 'Sell', 0.2, [1.11, 1.1101], [1.112, 1.1121]);
    moveTo('2026-02-03T10:00:00.000Z');
  });
  after(() => t?.stop());

  it('each follower’s copies closed with the results of the hand calculation', async () => {
    const results = async (who: 'C1' | 'B1') => {
      const res = await t.call('GET', `/accounts/${accounts[who]}/history/positions?start=2026-01-01T00:00:00.000Z&stop=2026-02-01T00:00:00.000Z`, {
        key: keyOf[who],
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      return (res.body as { profit: number; swap: number; commission: number }[]).map((p) => [p.profit, p.swap, p.commission]);
    };
    expect(await results('C1')).to.deep.equal([[100, 0, -0.7]]);
    expect((await results('B1')).sort()).to.deep.equal(
      [
        [100, 0, -0.7],
        [-42, 0, -1.4],
      ].sort(),
    );
  });

  it('answers the earnings of the hand calculation, month by month, with each follower’s charge', async () => {
    const body = await earnings();
    expect(body).to.deep.include({ signalProviderId: providerId, billingModel: 'MONTHLY_PROFIT' });
    const [jan, feb, ...more] = body.months;
    expect(more).to.deep.equal([]);
    expect(jan).to.deep.include({ year: 2026, month: 1, subscriptionAmount: 54, profitSharingAmount: 31.04, total: 85.04 });
    const row = (f: Record<string, number | string>) => [
      f.followerId,
      f.accountId,
      f.daysActive,
      f.subscriptionAmount,
      f.closedTradeResult,
      f.profitSharingFee,
      f.profitSharingAmount,
      f.total,
    ];
    expect(jan.followers.map(row)).to.deep.equal([
      [followerIds.C1, accounts.C1, 16, 16, 99.3, 20, 19.86, 35.86],
      [followerIds.B1, accounts.B1, 25, 19.5, 55.9, 10, 5.59, 25.09],
      [followerIds.B2, accounts.B2, 24, 18.5, 55.9, 10, 5.59, 24.09],
    ]);
    expect(feb).to.deep.include({ year: 2026, month: 2, subscriptionAmount: 3.32, profitSharingAmount: 0, total: 3.32 });
    expect(feb.followers.map(row)).to.deep.equal([
      [followerIds.B1, accounts.B1, 3, 1.66, 0, 10, 0, 1.66],
      [followerIds.B2, accounts.B2, 3, 1.66, 0, 10, 0, 1.66],
    ]);
    expect(body.summary).to.deep.equal({ subscriptionAmount: 57.32, profitSharingAmount: 31.04, total: 88.36, activeFollowers: 2 });
  });

  it('answers the covered follower costs at the price list’s daily rate and currency; the follower not covered is not listed', async () => {
    expect(await costs()).to.deep.equal({
      signalProviderId: providerId,
      coverFollowerCosts: true,
      maxCoveredAccountsPerProject: 1,
      currency: 'EUR',
      total: 33,
      months: [
        {
          year: 2026,
          month: 1,
          total: 30.75,
          followers: [
            { followerId: followerIds.C1, accountId: accounts.C1, daysActive: 16, appliedDailyRate: 0.75, amount: 12 },
            { followerId: followerIds.B1, accountId: accounts.B1, daysActive: 25, appliedDailyRate: 0.75, amount: 18.75 },
          ],
        },
        {
          year: 2026,
          month: 2,
          total: 2.25,
          followers: [{ followerId: followerIds.B1, accountId: accounts.B1, daysActive: 3, appliedDailyRate: 0.75, amount: 2.25 }],
        },
      ],
    });
  });

  it('gives the same figures after a rebuild of the earnings read model; the followers’ keys read none of them', async () => {
    const before = { earnings: await earnings(), costs: await costs() };
    const { db, store } = t.service.services;
    await rebuildProjection(
      db,
      store,
      allProjections.find((p) => p.name === 'earnings')!,
    );
    expect({ earnings: await earnings(), costs: await costs() }).to.deep.equal(before);
    for (const key of [B_KEY, C_KEY]) {
      for (const path of ['earnings', 'followerCosts']) {
        const res = await t.call('GET', `/signals/${providerId}/${path}`, { key });
        expect([res.status, res.body.error], path).to.deep.equal([404, '[SIGNAL_PROVIDER_NOT_FOUND]']);
      }
    }
  });
});
