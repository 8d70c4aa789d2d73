// A signal provider's earnings and covered follower costs end to end (GET /signals/{signalProviderId}/
// earnings, /followerCosts), from events through the earnings read model, and again after a rebuild.
// The events are those the signal area records (a provider's and a follower's feature events, the
// follower copier's CopyExecuted, the follower account's PositionClosed), appended here with the times
// of a month on a virtual clock, so that the figures are the hand calculation's below.
//
// January 2026 (31 days). The provider charges 31 a month (1.00 a day) and 20 % profit sharing, lowered
// on 21 January 12:00 to 15.5 (0.50 a day) and 10 %; it covers follower costs, one account per project.
//   follower 1 (project X), from 11 January 09:00, stays: days 11..31 = 21, 10 at 1.00 + 11 at 0.50 = 15.50;
//     trades 100.25, -40.10 (commission and swap included), 60 = 120.15 at 10 % = 12.015 -> 12.02; total 27.52.
//   follower 2 (project Y), 5 January 00:00 to 20 January 23:00: 16 days at 1.00 = 16.00; trades 30 + 10 = 40
//     at 20 % (in force when it left) = 8.00; a trade closed after it left is not its provider's; total 24.00.
//   follower 3 (project X), from 25 January: 7 days = 3.50; no trade; not covered (X's one covered account is follower 1).
// Earnings: subscriptions 35.00, profit sharing 20.02, total 55.02; February 2 x 15.50 = 31.00.
// Follower costs at 0.50 a day: follower 2 16 days = 8.00, follower 1 21 days = 10.50: 18.50; February: follower 1, 28 days = 14.00.
import { expect } from 'chai';
import { featureStream } from '../../domain/feature/events.js';
import { copiesStream } from '../../domain/copy/events.js';
import { positionsStream } from '../../domain/positions/events.js';
import { DEFAULT_PROJECT_ID } from '../../domain/project/decider.js';
import { settle } from '../../app/services.js';
import { allProjections } from '../../projections/all.js';
import { rebuildProjection } from '../../projections/rebuild.js';
import { startTestService, type TestService } from '../support/service.js';
import { movableClock } from '../support/trading.js';

const uuid = () => crypto.randomUUID();

describe('signal provider earnings and follower costs: a month of trades', function () {
  this.timeout(60_000);
  // The service's clock: mid-February, so January is a whole month behind and February under way.
  const clock = movableClock(Date.parse('2026-02-28T12:00:00.000Z'));
  let t: TestService;
  const provider = uuid();
  const providerAccount = uuid();
  const followers = [
    { id: uuid(), account: uuid(), project: uuid(), subscribed: '2026-01-11T09:00:00.000Z', removed: null as string | null },
    { id: uuid(), account: uuid(), project: uuid(), subscribed: '2026-01-05T00:00:00.000Z', removed: '2026-01-20T23:00:00.000Z' as string | null },
    { id: uuid(), account: uuid(), project: '', subscribed: '2026-01-25T10:00:00.000Z', removed: null as string | null },
  ];
  followers[2]!.project = followers[0]!.project;

  const providerSetting = (monthlySubscriptionFee: number, profitSharingFee: number) => ({
    type: 'FeatureSignalProviderDTO',
    name: 'Alpha',
    makeVisibleInMarketplace: false,
    billingModel: 'MONTHLY_PROFIT',
    coverFollowerCosts: true,
    maxCoveredAccountsPerProject: 1,
    monthlySubscriptionFee,
    profitSharingFee,
  });

  const append = (stream: string, type: string, data: unknown) => t.service.services.store.appendToStream(stream, { id: uuid(), type, data });

  /** A copy the follower's copier opened, and its close with profit, swap and commission. */
  const copiedTrade = async (follower: (typeof followers)[number], closeTime: string, profit: number, swap = 0, commission = 0) => {
    const positionId = uuid();
    await append(copiesStream(follower.id), 'CopyExecuted', {
      copierId: follower.id,
      masterAccountId: providerAccount,
      slaveAccountId: follower.account,
      source: { eventId: uuid(), position: '0:0', type: 'PositionOpened' },
      at: closeTime,
      action: { type: 'open' },
      result: { type: 'opened', slavePositionId: positionId, kind: 'position', price: 1, volume: 0.1, time: closeTime },
      masterEventAt: closeTime,
    });
    await append(positionsStream(follower.account), 'PositionClosed', {
      accountId: follower.account,
      at: closeTime,
      trade: {
        tradeId: uuid(),
        positionId,
        symbol: 'EURUSD',
        orderType: 'Buy',
        volume: 0.1,
        openPrice: 1,
        openTime: closeTime,
        closePrice: 1,
        closeTime,
        profit,
        swap,
        commission,
        reason: 'Client',
        comment: null,
        magicNumber: null,
        clientOrderId: null,
      },
    });
  };

  const earnings = async () => {
    const res = await t.call('GET', `/signals/${provider}/earnings`);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body;
  };
  const costs = async (query = '') => {
    const res = await t.call('GET', `/signals/${provider}/followerCosts${query}`);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body;
  };

  before(async () => {
    t = await startTestService({ clock });
    await append(featureStream(provider), 'FeatureAdded', {
      featureId: provider,
      scope: { kind: 'account', accountId: providerAccount },
      projectId: DEFAULT_PROJECT_ID,
      setting: providerSetting(31, 20),
      at: '2026-01-01T00:00:00.000Z',
    });
    for (const f of followers) {
      await append(featureStream(f.id), 'FeatureAdded', {
        featureId: f.id,
        scope: { kind: 'account', accountId: f.account },
        projectId: f.project,
        setting: { type: 'FeatureSignalFollowerDTO', signalProviderId: provider, active: true, monitorOnly: false },
        at: f.subscribed,
      });
    }
    const [f1, f2] = followers as [(typeof followers)[number], (typeof followers)[number]];
    await copiedTrade(f2, '2026-01-06T10:00:00.000Z', 30);
    await copiedTrade(f1, '2026-01-12T10:00:00.000Z', 101, -0.35, -0.4); // 100.25
    await copiedTrade(f1, '2026-01-15T10:00:00.000Z', -40, 0, -0.1); // -40.10
    await copiedTrade(f2, '2026-01-19T10:00:00.000Z', 10);
    await append(featureStream(f2.id), 'FeatureRemoved', { featureId: f2.id, scope: { kind: 'account', accountId: f2.account }, at: f2.removed });
    await append(featureStream(provider), 'FeatureUpdated', {
      featureId: provider,
      scope: { kind: 'account', accountId: providerAccount },
      setting: providerSetting(15.5, 10),
      at: '2026-01-21T12:00:00.000Z',
    });
    await copiedTrade(f2, '2026-01-21T10:00:00.000Z', 999); // after follower 2 left
    await copiedTrade(f1, '2026-01-28T10:00:00.000Z', 60);
    await settle(t.service.services);
  });
  after(() => t?.stop());

  const january = {
    year: 2026,
    month: 1,
    subscriptionAmount: 35,
    profitSharingAmount: 20.02,
    total: 55.02,
  };

  it('gives the earnings of the hand calculation, month by month, with each follower’s charge', async () => {
    const body = await earnings();
    expect(body.billingModel).to.equal('MONTHLY_PROFIT');
    const [jan, feb] = body.months;
    expect(jan).to.deep.include(january);
    const [f1, f2, f3] = followers;
    expect(
      jan.followers.map((f: { followerId: string; daysActive: number; subscriptionAmount: number; profitSharingAmount: number; total: number }) => [
        f.followerId,
        f.daysActive,
        f.subscriptionAmount,
        f.profitSharingAmount,
        f.total,
      ]),
    ).to.deep.equal([
      [f2!.id, 16, 16, 8, 24],
      [f1!.id, 21, 15.5, 12.02, 27.52],
      [f3!.id, 7, 3.5, 0, 3.5],
    ]);
    expect(jan.followers[1]).to.deep.include({ closedTradeResult: 120.15, profitBase: 120.15, profitSharingFee: 10 });
    // February: followers 1 and 3 all month at the lowered fee, 15.5 each; no trade
    expect(feb).to.deep.include({ year: 2026, month: 2, subscriptionAmount: 31, profitSharingAmount: 0, total: 31 });
    expect(body.summary).to.deep.equal({ subscriptionAmount: 66, profitSharingAmount: 20.02, total: 86.02, activeFollowers: 2 });
  });

  it('gives the covered follower costs: daily rate x days active, the followers that cost nothing left out', async () => {
    const body = await costs();
    expect(body).to.deep.include({ coverFollowerCosts: true, maxCoveredAccountsPerProject: 1, total: 32.5 });
    const [f1, f2] = followers;
    expect(body.months).to.deep.equal([
      {
        year: 2026,
        month: 1,
        total: 18.5,
        followers: [
          { followerId: f2!.id, accountId: f2!.account, daysActive: 16, appliedDailyRate: 0.5, amount: 8 },
          { followerId: f1!.id, accountId: f1!.account, daysActive: 21, appliedDailyRate: 0.5, amount: 10.5 },
        ],
      },
      { year: 2026, month: 2, total: 14, followers: [{ followerId: f1!.id, accountId: f1!.account, daysActive: 28, appliedDailyRate: 0.5, amount: 14 }] },
    ]);
    expect((await costs('?year=2026&month=2')).months.map((m: { month: number }) => m.month)).to.deep.equal([2]);
    const half = await t.call('GET', `/signals/${provider}/followerCosts?year=2026`);
    expect([half.status, half.body.error]).to.deep.equal([400, '[VALIDATION_FAILED]']);
  });

  it('reproduces every figure after a rebuild of the earnings read model', async () => {
    const before = { earnings: await earnings(), costs: await costs() };
    const { db, store } = t.service.services;
    await rebuildProjection(
      db,
      store,
      allProjections.find((p) => p.name === 'earnings')!,
    );
    expect({ earnings: await earnings(), costs: await costs() }).to.deep.equal(before);
  });

  it('is the provider project’s own: another provider id is not found', async () => {
    const res = await t.call('GET', `/signals/${uuid()}/earnings`);
    expect([res.status, res.body.error]).to.deep.equal([404, '[SIGNAL_PROVIDER_NOT_FOUND]']);
  });
});
