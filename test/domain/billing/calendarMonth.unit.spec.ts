// Money months and days in a time zone (domain/shared/calendarMonth.ts): usage (domain/billing/usage.ts)
// and a signal provider's earnings and follower costs (domain/earnings/earnings.ts) count the calendar
// days of the service's TIME_ZONE, 23 or 25 hours long when the clocks change.
import { expect } from 'chai';
import { usageLines, type Prices } from '../../../domain/billing/usage.js';
import { followerCosts, monthsBetween, providerEarnings, type ProviderTerms } from '../../../domain/earnings/earnings.js';
import { daysOfMonth, endOfDayIn, monthEndIn, monthIn, monthStartIn } from '../../../domain/shared/calendarMonth.js';

const HOUR = 3_600_000;
const PRICES: Prices = { currency: 'USD', accountDaily: () => '1.00', featureDaily: () => null, aiTierDaily: () => null, followerDaily: '0.50' };
const account = (created: string, deleted: string | null = null) => ({
  accountId: 'a1',
  projectId: 'p1',
  alias: null,
  created,
  deleted,
  types: [{ at: created, accountTypeId: 1 }],
});
const usage = (created: string, deleted: string | null, month: { year: number; month: number }, zone: string) =>
  usageLines({ accounts: [account(created, deleted)], features: [], coveredFollowers: [] }, PRICES, month, zone).map((l) => l.quantity);

describe('calendar months in TIME_ZONE', () => {
  it("gives a month's bounds and days in the zone, a day of 23 hours when the clocks go forward", () => {
    const march = { year: 2026, month: 3 };
    expect(new Date(monthStartIn(march, 'Europe/London')).toISOString()).to.equal('2026-03-01T00:00:00.000Z');
    expect(new Date(monthEndIn(march, 'Europe/London')).toISOString()).to.equal('2026-03-31T23:00:00.000Z');
    const days = daysOfMonth(march, 'Europe/London');
    expect(days).to.have.length(31);
    expect(days.filter((d) => d.end - d.start !== 24 * HOUR).map((d) => [new Date(d.start).toISOString(), (d.end - d.start) / HOUR])).to.deep.equal([
      ['2026-03-29T00:00:00.000Z', 23],
    ]);
    expect(monthIn('2026-01-31T12:00:00.000Z', 'Pacific/Auckland')).to.deep.equal({ year: 2026, month: 2 });
    expect(monthIn('2026-01-31T12:00:00.000Z', 'UTC')).to.deep.equal({ year: 2026, month: 1 });
    expect(new Date(endOfDayIn(Date.parse('2026-02-28T10:30:00.000Z'), 'Pacific/Auckland')).toISOString()).to.equal('2026-02-28T11:00:00.000Z');
  });

  it('meters usage on the days of the zone: an account created late on 31 January UTC is February in Auckland', () => {
    const created = '2026-01-31T12:00:00.000Z';
    expect(usage(created, null, { year: 2026, month: 1 }, 'UTC')).to.deep.equal([1]);
    expect(usage(created, null, { year: 2026, month: 1 }, 'Pacific/Auckland')).to.deep.equal([]);
    expect(usage(created, null, { year: 2026, month: 2 }, 'Pacific/Auckland')).to.deep.equal([28]);
    // deleted 1 March 10:00 UTC (23:00 in Auckland): one March day in either zone; at 12:00 UTC (2 March 01:00 there) two in Auckland
    expect(usage(created, '2026-03-01T10:00:00.000Z', { year: 2026, month: 3 }, 'Pacific/Auckland')).to.deep.equal([1]);
    expect(usage(created, '2026-03-01T10:00:00.000Z', { year: 2026, month: 3 }, 'UTC')).to.deep.equal([1]);
    expect(usage(created, '2026-03-01T12:00:00.000Z', { year: 2026, month: 3 }, 'Pacific/Auckland')).to.deep.equal([2]);
  });

  it("counts a provider's earnings and covered follower-days on the zone's days and months", () => {
    const terms: ProviderTerms = {
      billingModel: 'MONTHLY_PROFIT',
      coverFollowerCosts: true,
      maxCoveredAccountsPerProject: 0,
      fees: [{ at: '2026-01-01T00:00:00.000Z', monthlySubscriptionFee: '28', profitSharingFee: '10' }],
    };
    const follower = { followerId: 'f1', accountId: 'acc', projectId: 'p2', subscribed: '2026-01-31T12:00:00.000Z', removed: null };
    // a trade closed 31 January 20:00 UTC: February in Auckland
    const trades = [{ followerId: 'f1', closeTime: '2026-01-31T20:00:00.000Z', result: '100' }];
    const feb = { year: 2026, month: 2 };
    const jan = { year: 2026, month: 1 };
    const [utcJan] = providerEarnings(terms, [follower], trades, [jan], undefined, 'UTC');
    expect([utcJan!.subscriptionAmount, utcJan!.profitSharingAmount]).to.deep.equal(['0.90', '10.00']);
    const [nzJan, nzFeb] = providerEarnings(terms, [follower], trades, [jan, feb], undefined, 'Pacific/Auckland');
    expect(nzJan!.followers).to.deep.equal([]);
    expect([nzFeb!.subscriptionAmount, nzFeb!.profitSharingAmount, nzFeb!.followers[0]!.daysActive]).to.deep.equal(['28.00', '10.00', 28]);
    expect(followerCosts(terms, [follower], [jan, feb], '0.50', undefined, 'Pacific/Auckland').map((m) => [m.month, m.total])).to.deep.equal([[2, '14.00']]);
    expect(monthsBetween('2026-01-31T12:00:00.000Z', '2026-02-28T12:00:00.000Z', 'Pacific/Auckland')).to.deep.equal([feb, { year: 2026, month: 3 }]);
  });
});
