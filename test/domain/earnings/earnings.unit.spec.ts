// A signal provider's earnings and follower costs over a month of trades, against a hand calculation
// (domain/earnings/earnings.ts states the rules).
import { expect } from 'chai';
import {
  followerCosts,
  type FollowerPeriod,
  type FollowerTrade,
  monthsBetween,
  providerEarnings,
  type ProviderTerms,
} from '../../../domain/earnings/earnings.js';

const JAN = { year: 2026, month: 1 };
const FEB = { year: 2026, month: 2 };
const MAR = { year: 2026, month: 3 };

// Created on 1 January at 31 a month (1.00 a day in January) and 20 %; lowered on 21 January 12:00 to 15.5 and 10 %.
const terms: ProviderTerms = {
  billingModel: 'MONTHLY_PROFIT',
  coverFollowerCosts: true,
  maxCoveredAccountsPerProject: 1,
  fees: [
    { at: '2026-01-01T00:00:00.000Z', monthlySubscriptionFee: '31', profitSharingFee: '20' },
    { at: '2026-01-21T12:00:00.000Z', monthlySubscriptionFee: '15.5', profitSharingFee: '10' },
  ],
};

const f1: FollowerPeriod = { followerId: 'f1', projectId: 'p1', accountId: 'a1', subscribed: '2026-01-11T09:00:00.000Z', removed: null };
const f2: FollowerPeriod = { followerId: 'f2', projectId: 'p2', accountId: 'a2', subscribed: '2026-01-05T00:00:00.000Z', removed: '2026-01-20T23:00:00.000Z' };
const f3: FollowerPeriod = { followerId: 'f3', projectId: 'p1', accountId: 'a3', subscribed: '2026-01-15T00:00:00.000Z', removed: '2026-01-15T00:00:00.000Z' };

const trade = (followerId: string, closeTime: string, result: string): FollowerTrade => ({ followerId, closeTime, result });

const trades = [
  trade('f1', '2026-01-10T12:00:00.000Z', '500'), // before it subscribed: not shared
  trade('f1', '2026-01-12T10:00:00.000Z', '100.25'),
  trade('f1', '2026-01-15T10:00:00.000Z', '-40.1'),
  trade('f1', '2026-01-28T10:00:00.000Z', '60'),
  trade('f2', '2026-01-06T10:00:00.000Z', '30'),
  trade('f2', '2026-01-19T10:00:00.000Z', '10'),
  trade('f2', '2026-01-21T10:00:00.000Z', '999'), // after it left: not shared
];

describe('earnings of a signal provider', () => {
  it('a month of trades gives what the hand calculation gives', () => {
    const [january] = providerEarnings(terms, [f1, f2], trades, [JAN]);
    // f1: days 11..31 = 21; days 11..20 at 31 / 31 = 1.00, days 21..31 at 15.5 / 31 = 0.50 (lowered on the 21st):
    //     10 + 5.5 = 15.50. Trades 100.25 - 40.10 + 60 = 120.15 at 10 % (in force at the month's end) = 12.015 -> 12.02.
    // f2: days 5..20 = 16 at 1.00 = 16.00. Trades 30 + 10 = 40 at 20 % (in force when it left on the 20th) = 8.00.
    expect(january).to.deep.equal({
      year: 2026,
      month: 1,
      subscriptionAmount: '31.50',
      profitSharingAmount: '20.02',
      total: '51.52',
      followers: [
        {
          followerId: 'f1',
          accountId: 'a1',
          daysActive: 21,
          subscriptionAmount: '15.50',
          closedTradeResult: '120.15',
          highWaterMark: '0',
          profitBase: '120.15',
          profitSharingFee: '10',
          profitSharingAmount: '12.02',
          total: '27.52',
        },
        {
          followerId: 'f2',
          accountId: 'a2',
          daysActive: 16,
          subscriptionAmount: '16.00',
          closedTradeResult: '40',
          highWaterMark: '0',
          profitBase: '40',
          profitSharingFee: '20',
          profitSharingAmount: '8.00',
          total: '24.00',
        },
      ],
    });
  });

  it('a losing month shares nothing and is not carried over with MONTHLY_PROFIT; HIGH_WATERMARK charges only above the former peak', () => {
    const follower: FollowerPeriod = { followerId: 'f', projectId: 'p', accountId: 'a', subscribed: '2026-01-01T00:00:00.000Z', removed: null };
    const results = [
      trade('f', '2026-01-10T00:00:00.000Z', '100'),
      trade('f', '2026-02-10T00:00:00.000Z', '-60'),
      trade('f', '2026-03-10T00:00:00.000Z', '80'),
    ];
    const fees = [{ at: '2026-01-01T00:00:00.000Z', monthlySubscriptionFee: '0', profitSharingFee: '50' }];
    const sharing = (billingModel: ProviderTerms['billingModel']) =>
      providerEarnings({ billingModel, coverFollowerCosts: false, maxCoveredAccountsPerProject: 0, fees }, [follower], results, [JAN, FEB, MAR]).map((m) => [
        m.followers[0]!.profitBase,
        m.profitSharingAmount,
      ]);
    // monthly: 100 -> 50; -60 -> 0; 80 -> 40
    expect(sharing('MONTHLY_PROFIT')).to.deep.equal([
      ['100', '50.00'],
      ['0', '0.00'],
      ['80', '40.00'],
    ]);
    // high-water mark: cumulative 100 (peak 0) -> 50; 40 (peak 100) -> 0; 120 (peak 100) -> 20 x 50 % = 10
    expect(sharing('HIGH_WATERMARK')).to.deep.equal([
      ['100', '50.00'],
      ['0', '0.00'],
      ['20', '10.00'],
    ]);
  });

  it('lists the months from the first to the last, across a year', () => {
    expect(monthsBetween('2025-11-30T23:00:00.000Z', '2026-02-01T00:00:00.000Z')).to.deep.equal([
      { year: 2025, month: 11 },
      { year: 2025, month: 12 },
      { year: 2026, month: 1 },
      { year: 2026, month: 2 },
    ]);
  });
});

describe('follower costs a signal provider covers', () => {
  it('daily rate x days active, for the covered followers of each project; those that cost nothing are not listed', () => {
    // maxCoveredAccountsPerProject 1: f2 (p2) and the first of p1, f1 (subscribed before f3); f3 is not covered.
    const costs = followerCosts(terms, [f1, f2, f3], [JAN, FEB], '0.50');
    expect(costs).to.deep.equal([
      {
        year: 2026,
        month: 1,
        total: '18.50',
        followers: [
          { followerId: 'f2', accountId: 'a2', projectId: 'p2', daysActive: 16, dailyRate: '0.5', amount: '8.00' },
          { followerId: 'f1', accountId: 'a1', projectId: 'p1', daysActive: 21, dailyRate: '0.5', amount: '10.50' },
        ],
      },
      {
        year: 2026,
        month: 2,
        total: '14.00',
        followers: [{ followerId: 'f1', accountId: 'a1', projectId: 'p1', daysActive: 28, dailyRate: '0.5', amount: '14.00' }],
      },
    ]);
  });

  it('counts the month under way up to today, and the rate as the price list gives it', () => {
    const costs = followerCosts(terms, [f1], [FEB], '0.125', '2026-02-03T10:00:00.000Z');
    expect(costs).to.deep.equal([
      {
        year: 2026,
        month: 2,
        total: '0.38',
        followers: [{ followerId: 'f1', accountId: 'a1', projectId: 'p1', daysActive: 3, dailyRate: '0.125', amount: '0.38' }],
      },
    ]);
    const [february] = providerEarnings(terms, [f1], [], [FEB], '2026-02-03T10:00:00.000Z');
    // 3 days x 15.5 / 28 = 1.6607...
    expect(february).to.deep.include({ subscriptionAmount: '1.66', total: '1.66' });
    expect(february!.followers[0]).to.deep.include({ daysActive: 3 });
  });

  it('is empty unless the provider covers its followers costs', () => {
    expect(followerCosts({ ...terms, coverFollowerCosts: false }, [f1, f2], [JAN, FEB], '0.50')).to.deep.equal([]);
  });
});
