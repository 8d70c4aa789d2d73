// The economic calendar's events (domain/calendar) and the formats its sources read (engine/calendar/formats.ts).
import { expect } from 'chai';
import { calendarEventDecider } from '../../../domain/calendar/decider.js';
import { type CalendarEntry, countryAndCurrency, eventIdOf, impactsFrom, numericValue } from '../../../domain/calendar/entry.js';
import type { CalendarEvent } from '../../../domain/calendar/events.js';
import { systemContext } from '../../../domain/shared/command.js';
import { formatOf, parseCalendar } from '../../../engine/calendar/formats.js';
import { sampleWeekAt } from '../../../app/calendarSync.js';
import { givenDecider } from '../givenDecider.js';

const given = givenDecider(calendarEventDecider);
const AT = '2026-01-05T10:00:00.000Z';
const eventId = '11111111-1111-4111-8111-111111111111';
const nfp: CalendarEntry = {
  title: 'Non-Farm Employment Change',
  country: 'US',
  currency: 'USD',
  impact: 'HIGH',
  time: '2026-01-09T13:30:00.000Z',
  allDay: false,
  forecast: '175K',
  previous: '199K',
  actual: null,
};
const importing = (entry: CalendarEntry, source = 'feed:x') => ({
  type: 'ImportCalendarEvent' as const,
  data: { eventId, entry, source },
  metadata: { now: AT, context: systemContext('t') },
});
const published: CalendarEvent = { type: 'CalendarEventPublished', data: { eventId, entry: nfp, source: 'file:a.csv', at: AT } };

describe('calendar event: every change a source brings is a revision', () => {
  it('the first import publishes the event', () => given([]).when(importing(nfp, 'file:a.csv')).then([published]));

  it('the same import again changes nothing', () => given([published]).when(importing(nfp)).then([]));

  it('a changed forecast becomes a revision naming the member, from and to', () =>
    given([published])
      .when(importing({ ...nfp, forecast: '180K' }))
      .then([
        {
          type: 'CalendarEventRevised',
          data: { eventId, entry: { ...nfp, forecast: '180K' }, changes: [{ member: 'forecast', from: '175K', to: '180K' }], source: 'feed:x', at: AT },
        },
      ]));

  it('a source without the actual keeps the actual published before', () => {
    const released = { ...nfp, actual: '216K' };
    given([
      published,
      { type: 'CalendarEventRevised', data: { eventId, entry: released, changes: [{ member: 'actual', from: null, to: '216K' }], source: 'feed:x', at: AT } },
    ])
      .when(importing(nfp))
      .then([]);
  });

  it('an entry without a title is refused', () =>
    given([])
      .when(importing({ ...nfp, title: ' ' }))
      .thenRefuses('[VALIDATION_FAILED]', 'validation'));
});

describe('calendar entries: identity, numbers, places', () => {
  it('the same currency, title and UTC day is the same event; another day another', () => {
    expect(eventIdOf(nfp)).to.equal(eventIdOf({ ...nfp, title: ' non-farm  employment change', time: '2026-01-09T15:00:00Z' }));
    expect(eventIdOf(nfp)).not.to.equal(eventIdOf({ ...nfp, time: '2026-02-06T13:30:00Z' }));
    expect(eventIdOf(nfp, eventId)).to.equal(eventId);
  });

  it('reads figures with their suffixes', () => {
    expect([
      numericValue('0.3%'),
      numericValue('-1.2'),
      numericValue('215K'),
      numericValue('1.5M'),
      numericValue('<0.1'),
      numericValue(''),
      numericValue('n/a'),
    ]).to.deep.equal([0.3, -1.2, 215_000, 1_500_000, 0.1, null, null]);
  });

  it('a currency code, a country code or a euro-area member give country and currency', () => {
    expect(countryAndCurrency('USD', null)).to.deep.equal({ country: 'US', currency: 'USD' });
    expect(countryAndCurrency('DE', null)).to.deep.equal({ country: 'DE', currency: 'EUR' });
    expect(countryAndCurrency('All', null)).to.deep.equal({ country: 'WW', currency: 'ALL' });
    expect(countryAndCurrency('XX', null)).to.equal(null);
  });

  it('an impact is a minimum', () => expect(impactsFrom('MEDIUM')).to.deep.equal(['MEDIUM', 'HIGH']));
});

describe('calendar formats', () => {
  it('reads the weekly feed JSON (currency codes in country, dates with offsets)', () => {
    const body = JSON.stringify([
      { title: 'CPI m/m', country: 'USD', date: '2026-01-13T08:30:00-05:00', impact: 'High', forecast: '0.3%', previous: '0.2%' },
      { title: 'Bank Holiday', country: 'JPY', date: '2026-01-12T00:00:00-05:00', impact: 'Holiday', forecast: '', previous: '' },
      { title: 'Nowhere', country: 'XXX', date: '2026-01-12T00:00:00-05:00', impact: 'Low' },
    ]);
    const parsed = parseCalendar(formatOf('ff_calendar_thisweek.json', body), body);
    expect(parsed.entries.map((e) => e.entry)).to.deep.equal([
      {
        title: 'CPI m/m',
        country: 'US',
        currency: 'USD',
        impact: 'HIGH',
        time: '2026-01-13T13:30:00.000Z',
        allDay: false,
        forecast: '0.3%',
        previous: '0.2%',
        actual: null,
      },
      {
        title: 'Bank Holiday',
        country: 'JP',
        currency: 'JPY',
        impact: 'HOLIDAY',
        time: '2026-01-12T05:00:00.000Z',
        allDay: false,
        forecast: null,
        previous: null,
        actual: null,
      },
    ]);
    expect(parsed.skipped).to.deep.equal(['event 3: Nowhere: unknown country or currency (XXX)']);
  });

  it('reads the weekly feed XML, its times UTC, "All Day" all day', () => {
    const body = `<?xml version="1.0" encoding="windows-1252"?>
<weeklyevents>
  <event><title>Official Cash Rate</title><country>NZD</country><date><![CDATA[01-14-2026]]></date><time><![CDATA[1:00am]]></time><impact><![CDATA[High]]></impact><forecast><![CDATA[2.25%]]></forecast><previous><![CDATA[2.25%]]></previous><url>https://example/x</url></event>
  <event><title>Bank Holiday</title><country>CNY</country><date><![CDATA[01-15-2026]]></date><time><![CDATA[All Day]]></time><impact><![CDATA[Holiday]]></impact><forecast /><previous /></event>
  <event><title>CPI y/y</title><country>GBP</country><date><![CDATA[01-14-2026]]></date><time><![CDATA[12:30pm]]></time><impact><![CDATA[Medium]]></impact><forecast>3.1%</forecast><previous>3.2%</previous></event>
</weeklyevents>`;
    const entries = parseCalendar(formatOf('ff_calendar_thisweek.xml', body), body).entries.map((e) => e.entry);
    expect(entries.map((e) => [e.currency, e.time, e.allDay, e.impact, e.forecast])).to.deep.equal([
      ['NZD', '2026-01-14T01:00:00.000Z', false, 'HIGH', '2.25%'],
      ['CNY', '2026-01-15T00:00:00.000Z', true, 'HOLIDAY', null],
      ['GBP', '2026-01-14T12:30:00.000Z', false, 'MEDIUM', '3.1%'],
    ]);
  });

  it('reads CSV with any of its column names, a date without offset as UTC', () => {
    const body =
      'Date,Event,Currency,Impact,Forecast,Previous,Actual\n2026-01-09 13:30,Non-Farm Employment Change,USD,High,175K,199K,\n2026-01-09,Holiday,CAD,Holiday,,,\n,No date,USD,Low,,,\n';
    const parsed = parseCalendar('csv', body);
    expect(parsed.entries.map((e) => [e.entry.title, e.entry.time, e.entry.allDay])).to.deep.equal([
      ['Non-Farm Employment Change', '2026-01-09T13:30:00.000Z', false],
      ['Holiday', '2026-01-09T00:00:00.000Z', true],
    ]);
    expect(parsed.skipped).to.have.length(1);
  });

  it('reads iCal: currency from the summary, figures from the description, the UID as id', () => {
    const body = [
      'BEGIN:VCALENDAR',
      'VERSION:2.0',
      'PRODID:-//test//EN',
      'BEGIN:VEVENT',
      'UID:ecb-2026-01-22@example',
      'DTSTAMP:20260101T000000Z',
      'DTSTART:20260122T131500Z',
      'SUMMARY:EUR: Main Refinancing Rate',
      'DESCRIPTION:Impact: High\\nForecast: 2.15%\\nPrevious: 2.15%',
      'END:VEVENT',
      'BEGIN:VEVENT',
      'UID:us-holiday@example',
      'DTSTAMP:20260101T000000Z',
      'DTSTART;VALUE=DATE:20260119',
      'SUMMARY:Bank Holiday',
      'LOCATION:US',
      'CATEGORIES:Holiday',
      'END:VEVENT',
      'END:VCALENDAR',
    ].join('\r\n');
    const parsed = parseCalendar(formatOf('x.ics', body), body);
    expect(parsed.skipped).to.deep.equal([]);
    expect(parsed.entries).to.deep.equal([
      {
        id: 'ecb-2026-01-22@example',
        entry: {
          title: 'Main Refinancing Rate',
          country: 'EU',
          currency: 'EUR',
          impact: 'HIGH',
          time: '2026-01-22T13:15:00.000Z',
          allDay: false,
          forecast: '2.15%',
          previous: '2.15%',
          actual: null,
        },
      },
      {
        id: 'us-holiday@example',
        entry: {
          title: 'Bank Holiday',
          country: 'US',
          currency: 'USD',
          impact: 'HOLIDAY',
          time: '2026-01-19T00:00:00.000Z',
          allDay: true,
          forecast: null,
          previous: null,
          actual: null,
        },
      },
    ]);
  });

  it('the sample week moves to the week of the first start, keeping weekdays and times', () => {
    const body = JSON.stringify({ referenceMonday: '2024-01-08', events: [{ date: '2024-01-12T13:30:00Z', title: 'NFP' }] });
    const moved = JSON.parse(sampleWeekAt(body, new Date('2026-11-26T09:00:00Z'))) as { events: { date: string }[] };
    expect(moved.events[0]!.date).to.equal('2026-11-27T13:30:00.000Z');
  });
});
