import { expect } from 'chai';
import { approval } from '../../../../domain/copy/features/approval.js';
import type { ManagedAction } from '../../../../domain/copy/features/rules.js';
import { tradingWindows, type TradingWindowsSettings } from '../../../../domain/copy/features/tradingWindows.js';
import { given, managed, manageWith, masterClosed, masterModified, masterOpened, masterPendingPlaced, slaveCopy } from '../given.js';

// 2026-01-07 is a Wednesday. Europe/London is UTC+0 in winter and UTC+1 from 2026-03-29 (a Sunday).
describe('feature: FeatureTradingWindowsDTO', () => {
  const TYPE = 'FeatureTradingWindowsDTO';
  const windows = (settings: Partial<TradingWindowsSettings> & Pick<TradingWindowsSettings, 'windows'>) => ({ feature: tradingWindows, settings });
  const office = windows({ windows: [{ start: '09:00', end: '17:00' }] });
  const at = (time: string, day = '2026-01-07') => `${day}T${time}.000Z`;
  const openAt = (now: string, setting = office) => given({ features: [setting], now }).when(masterOpened());
  const closes = (actions: readonly ManagedAction[]) => actions.filter((a) => a.kind === 'close').map((a) => a.kind === 'close' && a.slavePositionId);

  it('copies an open inside a window, its start included', () => {
    openAt(at('09:00:00')).then([{ type: 'open' }]);
    openAt(at('16:59:59')).then([{ type: 'open' }]);
  });

  it('skips an open outside every window, its end included, and says when the next one opens', () => {
    openAt(at('17:00:00')).thenSkips('OUTSIDE_TRADING_WINDOW', /outside the trading windows \(UTC\); the next opens at 2026-01-08T09:00:00Z/);
    openAt(at('08:59:59')).thenSkips('OUTSIDE_TRADING_WINDOW', /next opens at 2026-01-07T09:00:00Z/);
    given({ features: [office], now: at('20:00:00') })
      .when(masterPendingPlaced('BuyLimit', { openPrice: 1.09 }))
      .thenSkips('OUTSIDE_TRADING_WINDOW');
  });

  it('always copies closes and stop changes, in a window or not', () => {
    given({ features: [office], now: at('20:00:00'), slave: { copies: [slaveCopy()] } })
      .when(masterClosed())
      .then([{ type: 'close' }]);
    given({ features: [office], now: at('20:00:00'), slave: { copies: [slaveCopy()] } })
      .when(masterModified(1.09, 1.2))
      .then([{ type: 'modify' }]);
  });

  it('opens a window only on its days', () => {
    const mondays = windows({ windows: [{ days: ['MONDAY', 'TUESDAY'], start: '09:00', end: '17:00' }] });
    openAt(at('10:00:00'), mondays).thenSkips('OUTSIDE_TRADING_WINDOW', /next opens at 2026-01-12T09:00:00Z/);
    openAt(at('10:00:00', '2026-01-06'), mondays).then([{ type: 'open' }]);
  });

  it('runs a window whose end is not after its start into the next day, counted on the day it starts', () => {
    const night = windows({ windows: [{ days: ['TUESDAY'], start: '22:00', end: '06:00' }] });
    openAt(at('05:59:00'), night).then([{ type: 'open' }]);
    openAt(at('06:00:00'), night).thenSkips('OUTSIDE_TRADING_WINDOW');
    openAt(at('23:00:00'), night).thenSkips('OUTSIDE_TRADING_WINDOW');
    openAt(at('23:00:00', '2026-01-06'), night).then([{ type: 'open' }]);
    openAt(at('12:00:00'), windows({ windows: [{ start: '00:00', end: '00:00' }] })).then([{ type: 'open' }]);
  });

  it('follows the wall clock of its time zone across a daylight-saving change', () => {
    const london = windows({ timeZone: 'Europe/London', windows: [{ start: '09:00', end: '10:00' }] });
    openAt(at('09:30:00', '2026-03-27'), london).then([{ type: 'open' }]);
    openAt(at('08:30:00', '2026-03-30'), london).then([{ type: 'open' }]);
    openAt(at('09:30:00', '2026-03-30'), london).thenSkips('OUTSIDE_TRADING_WINDOW', /\(Europe\/London\); the next opens at 2026-03-31T09:00:00\+01:00/);
  });

  it('refuses a time zone that is not an IANA zone', () => {
    expect(tradingWindows.check!({ timeZone: 'Mars/Olympus', windows: [{ start: '09:00', end: '17:00' }], closeAtWindowEnd: false })).to.equal(
      'timeZone Mars/Olympus is not an IANA time zone',
    );
    expect(tradingWindows.check!({ timeZone: 'America/New_York', windows: [{ start: '09:00', end: '17:00' }], closeAtWindowEnd: false })).to.equal(null);
  });

  it('an open outside the windows is skipped before the approval would ask for it', () =>
    given({ features: [office, { feature: approval, settings: {} }], now: at('20:00:00') })
      .when(masterOpened())
      .thenSkips('OUTSIDE_TRADING_WINDOW'));

  describe('closeAtWindowEnd', () => {
    const closing = windows({ windows: [{ start: '09:00', end: '17:00' }], closeAtWindowEnd: true });
    const copies = [managed({ openTime: at('10:00:00') }), managed({ slavePositionId: 's-2', masterPositionId: 'm-2', openTime: at('16:00:00') })];

    it('closes every open copy when the window ends, with the end in the message', () => {
      const actions = manageWith(closing, { now: at('17:00:00'), copies });
      expect(closes(actions)).to.deep.equal(['s-2002', 's-2']);
      expect(actions[0]).to.deep.include({ kind: 'close', message: 'trading window ended at 2026-01-07T17:00:00Z: #s-2002 closed (closeAtWindowEnd)' });
    });

    it('asks for five minutes after the end, not before it nor later', () => {
      expect(manageWith(closing, { now: at('16:59:59'), copies })).to.deep.equal([]);
      expect(closes(manageWith(closing, { now: at('17:04:59'), copies }))).to.have.length(2);
      expect(manageWith(closing, { now: at('17:05:00'), copies })).to.deep.equal([]);
    });

    it('does not close when another window goes on from the end', () => {
      const adjacent = windows({
        windows: [
          { start: '09:00', end: '17:00' },
          { start: '17:00', end: '18:00' },
        ],
        closeAtWindowEnd: true,
      });
      expect(manageWith(adjacent, { now: at('17:00:30'), copies })).to.deep.equal([]);
      expect(closes(manageWith(adjacent, { now: at('18:00:30'), copies }))).to.have.length(2);
    });

    it('closes nothing without closeAtWindowEnd', () => expect(manageWith(office, { now: at('17:00:00'), copies })).to.deep.equal([]));
  });

  it('is a single account feature', () => {
    expect(tradingWindows).to.deep.include({ type: TYPE, scopes: ['account'], multiple: false });
  });
});
