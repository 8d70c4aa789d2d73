// FeatureNewsFilterDTO's rule, driven by a calendar imported from a file (the CSV format of engine/calendar/formats.ts).
import { expect } from 'chai';
import { eventIdOf } from '../../../../domain/calendar/entry.js';
import { type NewsFilterSettings, checkNewsFilter, newsFilterVerdict } from '../../../../domain/copy/features/newsFilter.js';
import { parseCalendar } from '../../../../engine/calendar/formats.js';

const calendar = parseCalendar(
  'csv',
  'date,title,currency,impact,forecast,previous\n2026-01-09T13:30:00Z,Non-Farm Employment Change,USD,High,175K,199K\n2026-01-09T09:00:00Z,Ifo Business Climate,EUR,Medium,,\n2026-01-12,Coming-of-Age Day,JPY,Holiday,,\n',
).entries.map(({ id, entry }) => ({ ...entry, eventId: eventIdOf(entry, id) }));

const settings: NewsFilterSettings = {
  blackoutBeforeMinutes: 30,
  blackoutAfterMinutes: 15,
  impact: 'HIGH',
  blockMarketOrders: true,
  blockPendingOrders: true,
  blockStopChanges: false,
  includeGlobalEvents: true,
  holidayMode: 'NONE',
  holidayVolumeFactor: 0.5,
  symbolOverrides: {},
};
const market = { kind: 'open', order: 'market' } as const;

describe('news filter (FeatureNewsFilterDTO) on a calendar imported from a file', () => {
  it('skips a new open of an affected symbol inside the blackout, with the event in the reason', () => {
    const verdict = newsFilterVerdict(settings, calendar, 'EURUSD', market, '2026-01-09T13:10:00Z');
    expect(verdict).to.include({ verdict: 'skip', reason: 'NEWS_BLACKOUT' });
    expect(verdict.verdict === 'skip' && verdict.message).to.contain('USD Non-Farm Employment Change (HIGH) at 2026-01-09T13:30:00.000Z');
  });

  it('lets the close through inside the same blackout', () =>
    expect(newsFilterVerdict(settings, calendar, 'EURUSD', { kind: 'close' }, '2026-01-09T13:30:00Z')).to.deep.equal({ verdict: 'go' }));

  it('copies opens outside the window, of unaffected symbols, and below the impact', () => {
    expect(newsFilterVerdict(settings, calendar, 'EURUSD', market, '2026-01-09T12:59:00Z').verdict).to.equal('go');
    expect(newsFilterVerdict(settings, calendar, 'EURUSD', market, '2026-01-09T13:46:00Z').verdict).to.equal('go');
    expect(newsFilterVerdict(settings, calendar, 'EURGBP', market, '2026-01-09T13:30:00Z').verdict).to.equal('go');
    expect(newsFilterVerdict(settings, calendar, 'EURGBP', market, '2026-01-09T09:00:00Z').verdict).to.equal('go');
    expect(newsFilterVerdict({ ...settings, impact: 'MEDIUM' }, calendar, 'EURGBP', market, '2026-01-09T09:00:00Z').verdict).to.equal('skip');
  });

  it('blocks stop changes and pending orders only when asked, and follows per-symbol overrides', () => {
    const at = '2026-01-09T13:20:00Z';
    expect(newsFilterVerdict(settings, calendar, 'XAUUSD', { kind: 'modify' }, at).verdict).to.equal('go');
    expect(newsFilterVerdict({ ...settings, blockStopChanges: true }, calendar, 'XAUUSD', { kind: 'modify' }, at).verdict).to.equal('skip');
    expect(newsFilterVerdict({ ...settings, blockPendingOrders: false }, calendar, 'XAUUSD', { kind: 'open', order: 'pending' }, at).verdict).to.equal('go');
    expect(newsFilterVerdict({ ...settings, symbolOverrides: { XAUUSD: { blackoutBeforeMinutes: 5 } } }, calendar, 'XAUUSD', market, at).verdict).to.equal(
      'go',
    );
    expect(
      newsFilterVerdict({ ...settings, symbolOverrides: { XAUUSD: { disabled: true } } }, calendar, 'XAUUSD', market, '2026-01-09T13:30:00Z').verdict,
    ).to.equal('go');
  });

  it('on a bank holiday reduces the size or skips new opens by holidayMode', () => {
    const at = '2026-01-12T08:00:00Z';
    expect(newsFilterVerdict(settings, calendar, 'USDJPY', market, at).verdict).to.equal('go');
    expect(newsFilterVerdict({ ...settings, holidayMode: 'REDUCE_SIZE' }, calendar, 'USDJPY', market, at)).to.include({ verdict: 'reduce', factor: 0.5 });
    expect(newsFilterVerdict({ ...settings, holidayMode: 'SKIP_NEW_OPENS' }, calendar, 'USDJPY', market, at)).to.include({
      verdict: 'skip',
      reason: 'BANK_HOLIDAY',
    });
  });

  it('refuses blackouts over 240 minutes', () => {
    expect(checkNewsFilter({ ...settings, blackoutAfterMinutes: 241 })).to.contain('0 to 240');
    expect(checkNewsFilter({ ...settings, symbolOverrides: { EURUSD: { blackoutBeforeMinutes: -1 } } })).to.contain('0 to 240');
    expect(checkNewsFilter(settings)).to.equal(null);
  });
});
