// Days, weeks and months in the service's time zone, across daylight-saving changes.
import { expect } from 'chai';
import { boundOf, hourOf, nextPeriodStart, periodLabel, periodStart, weekdayOf } from '../../../domain/analytics/periods.js';

describe('Periods in the service time zone', () => {
  it('labels by the local date, not the UTC one', () => {
    // 23:30 UTC on Saturday 28 March 2026 is 00:30 on Sunday 29 March in Berlin (CET, +1).
    expect(periodLabel('day', '2026-03-28T23:30:00Z', 'Europe/Berlin')).to.equal('2026-03-29');
    expect(periodLabel('day', '2026-03-28T23:30:00Z', 'UTC')).to.equal('2026-03-28');
    expect(weekdayOf('2026-03-28T23:30:00Z', 'Europe/Berlin')).to.equal('SUNDAY');
    expect(periodLabel('week', '2026-03-29T12:00:00Z', 'Europe/Berlin')).to.equal('2026-W13');
    expect(periodLabel('month', '2026-03-31T22:30:00Z', 'Europe/Berlin')).to.equal('2026-04');
  });

  it('has a 23-hour day when the clocks go forward and a 25-hour day when they go back', () => {
    const spring = periodStart('day', '2026-03-29T12:00:00Z', 'Europe/Berlin');
    const springEnd = nextPeriodStart('day', '2026-03-29T12:00:00Z', 'Europe/Berlin');
    expect(spring).to.equal('2026-03-28T23:00:00.000Z');
    expect(springEnd).to.equal('2026-03-29T22:00:00.000Z');
    expect((Date.parse(springEnd) - Date.parse(spring)) / 3_600_000).to.equal(23);
    const autumn = periodStart('day', '2026-10-25T12:00:00Z', 'Europe/Berlin');
    const autumnEnd = nextPeriodStart('day', '2026-10-25T12:00:00Z', 'Europe/Berlin');
    expect((Date.parse(autumnEnd) - Date.parse(autumn)) / 3_600_000).to.equal(25);
    // 01:30 UTC is 03:30 CEST after the spring change.
    expect(hourOf('2026-03-29T01:30:00Z', 'Europe/Berlin')).to.equal(3);
  });

  it('starts weeks on Monday and months on the first, local time', () => {
    expect(periodStart('week', '2026-11-22T12:00:00Z', 'America/New_York')).to.equal('2026-11-16T05:00:00.000Z');
    expect(periodStart('month', '2026-11-22T12:00:00Z', 'America/New_York')).to.equal('2026-11-01T04:00:00.000Z');
  });

  it('reads a date bound as the whole local day, and a date-time as given', () => {
    expect(boundOf('2026-03-29', false, 'Europe/Berlin')).to.equal('2026-03-28T23:00:00.000Z');
    expect(boundOf('2026-03-29', true, 'Europe/Berlin')).to.equal('2026-03-29T21:59:59.999Z');
    expect(boundOf('2026-03-29T10:00:00+02:00', false, 'UTC')).to.equal('2026-03-29T08:00:00.000Z');
  });
});
