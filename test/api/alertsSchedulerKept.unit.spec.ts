// The calendar alerts' looks (app/alertsScheduler.ts) keep their reads while their inputs stay: the
// calendar's stamp while the calendar read model and the feed (its syncs here, while this instance holds
// the sync lease) did not move, the soonest pending fire time while the alerts and calendar read models
// did not move. An idle look reads nothing; a kept alert is still looked for once the clock reaches it;
// an alert armed, a calendar changed or a feed synced while the reads are kept is acted on at the next
// look; where a mark is unknown every look reads, as before.
import { expect } from 'chai';
import { CalendarAlertScheduler } from '../../app/alertsScheduler.js';
import { CALENDAR_SYNC_LEASE, CalendarSync } from '../../app/calendarSync.js';
import type { Services } from '../../app/services.js';
import type { Leases } from '../../store/postgres/leases.js';
import { countingDb } from '../support/countingDb.js';

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
const T0 = Date.parse('2026-11-27T18:00:00Z');

/** What a query of the scheduler (or of the rules it applies, or of a feed sync) is. */
const kindOf = (query: string): string =>
  query.includes('concat(')
    ? 'stamp'
    : query.includes('min(e.time')
      ? 'soonest'
      : query.includes('a.alert_id, a.project_id')
        ? 'due'
        : query.includes('r.impacts')
          ? 'unmatched rules'
          : query.includes('processor_checkpoints')
            ? 'feed checkpoint'
            : query;

/** A first look when the stamp is new: the stamp, the rules applied (none here), the soonest fire time. */
const FIRST_LOOK = ['stamp', 'calendar_alert_rules', 'unmatched rules', 'soonest'];

describe('app/alertsScheduler: the calendar alerts read again only when their inputs moved', () => {
  const setUp = (options: { marksKnown: boolean; holdsSyncLease: boolean }) => {
    const state = { stamp: 'calendar 1', soonest: null as Date | null };
    const { db, queries } = countingDb((query) => {
      const kind = kindOf(query);
      return kind === 'stamp' ? [{ stamp: state.stamp }] : kind === 'soonest' ? [{ due: state.soonest }] : [];
    });
    const marks = new Map([
      ['calendar', '1:1'],
      ['alerts', '1:1'],
    ]);
    let now = T0;
    const leases = { epochOf: (name: string) => (options.holdsSyncLease && name === CALENDAR_SYNC_LEASE ? 7 : undefined) } as unknown as Leases;
    const services = {
      db,
      runner: { version: (name: string) => (options.marksKnown ? (marks.get(name) ?? null) : null) },
      clock: () => new Date(now),
      log: silent,
    } as unknown as Services;
    const scheduler = new CalendarAlertScheduler(services, leases);
    const look = async (): Promise<string[]> => {
      const before = queries.length;
      await scheduler.applyRulesIfSynced();
      await scheduler.fireDue();
      return queries.slice(before).map(kindOf);
    };
    const feed = new CalendarSync({
      services,
      leases,
      folder: '/nonexistent',
      feedUrl: 'http://calendar-feed.test/week.json',
      feedEveryMs: 3_600_000,
      sampleWeek: false,
      fetch: () => Promise.resolve(new Response('[]', { headers: { 'content-type': 'application/json' } })),
    });
    return { state, marks, look, feed, advance: (ms: number) => (now += ms) };
  };

  it('reads nothing at an idle look while the marks stay, and looks for a kept alert once the clock reaches its time', async () => {
    const { state, look, advance } = setUp({ marksKnown: true, holdsSyncLease: true });
    state.soonest = new Date(T0 + 5_000);
    expect(await look()).to.deep.equal(FIRST_LOOK);
    expect(await look()).to.deep.equal([]);
    advance(4_999);
    expect(await look()).to.deep.equal([]);
    advance(1);
    expect(await look()).to.deep.equal(['due']);
  });

  it('acts at the next look on an alert armed and a calendar changed while its reads were kept', async () => {
    const { state, marks, look } = setUp({ marksKnown: true, holdsSyncLease: true });
    expect(await look()).to.deep.equal(FIRST_LOOK);
    expect(await look()).to.deep.equal([]);
    // An alert armed (the alerts read model moved), due already.
    state.soonest = new Date(T0 - 1_000);
    marks.set('alerts', '1:2');
    expect(await look()).to.deep.equal(['soonest', 'due']);
    // A calendar import changed an event: the stamp is read again and the rules are applied.
    state.stamp = 'calendar 2';
    marks.set('calendar', '1:2');
    expect(await look()).to.deep.equal(['stamp', 'calendar_alert_rules', 'unmatched rules', 'soonest', 'due']);
  });

  it('applies the rules at the next look after a feed sync here that changed no event', async () => {
    const { state, look, feed } = setUp({ marksKnown: true, holdsSyncLease: true });
    expect(await look()).to.deep.equal(FIRST_LOOK);
    expect(await look()).to.deep.equal([]);
    expect(await feed.syncFeed(true)).to.include({ read: 0, published: 0, revised: 0 });
    state.stamp = 'calendar 1, feed synced';
    expect(await look()).to.deep.equal(['stamp', 'calendar_alert_rules', 'unmatched rules']);
    expect(await look()).to.deep.equal([]);
  });

  it('reads the stamp at every look while another instance may sync the feed, and everything while the marks are unknown', async () => {
    const elsewhere = setUp({ marksKnown: true, holdsSyncLease: false });
    expect(await elsewhere.look()).to.deep.equal(FIRST_LOOK);
    expect(await elsewhere.look()).to.deep.equal(['stamp']);
    elsewhere.state.stamp = 'calendar 1, synced elsewhere';
    expect(await elsewhere.look()).to.deep.equal(['stamp', 'calendar_alert_rules', 'unmatched rules']);
    const unknown = setUp({ marksKnown: false, holdsSyncLease: true });
    expect(await unknown.look()).to.deep.equal(FIRST_LOOK);
    expect(await unknown.look()).to.deep.equal(['stamp', 'soonest']);
  });
});
