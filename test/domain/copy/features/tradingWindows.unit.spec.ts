import { expect } from 'chai';
import { approval } from '../../../../domain/copy/features/approval.js';
import type { ManagedAction } from '../../../../domain/copy/features/rules.js';
import { tradingWindows, type TradingWindowsSettings } from '../../../../domain/copy/features/tradingWindows.js';
import { given, managed, manageWith, masterClosed, masterModified, masterOpened, masterPendingPlaced, slaveCopy, symbolSpec } from '../given.js';

// 2026-01-07 is a Wednesday. Europe/London is UTC+0 in winter and UTC+1 from 2026-03-29 (a Sunday).
describe('feature: FeatureTradingWindowsDTO', () => {
  const TYPE = 'FeatureTradingWindowsDTO';
  /** A TradingWindowDTO as the reference writes it: date-times whose date is ignored. */
  const window = (start: string, end: string, activeDays?: number[]) => ({
    startTime: `2025-01-01 ${start}:00+00:00`,
    endTime: `2025-01-01 ${end}:00+00:00`,
    ...(activeDays ? { activeDays } : {}),
  });
  const windows = (settings: Partial<TradingWindowsSettings> & Pick<TradingWindowsSettings, 'tradingWindows'>) => ({
    feature: tradingWindows,
    settings: { ...tradingWindows.defaults, ...settings },
  });
  const office = windows({ tradingWindows: [window('09:00', '17:00')], closePositionsAtWindowEnd: false });
  const at = (time: string, day = '2026-01-07') => `${day}T${time}.000Z`;
  const openAt = (now: string, setting = office) => given({ features: [setting], now }).when(masterOpened());
  const closes = (actions: readonly ManagedAction[]) => actions.filter((a) => a.kind === 'close').map((a) => a.kind === 'close' && a.slavePositionId);

  it("takes the reference's defaults: the copies closed at a window's end, opens outside skipped", () =>
    expect(tradingWindows.defaults).to.deep.equal({ closePositionsAtWindowEnd: true, temporarilySkipUntilNextWindow: false, symbolsConfiguration: {} }));

  it('copies an open inside a window, its start included', () => {
    openAt(at('09:00:00')).then([{ type: 'open' }]);
    openAt(at('16:59:59')).then([{ type: 'open' }]);
  });

  it('skips an open outside every window, its end included, and says when the next one opens', () => {
    openAt(at('17:00:00')).thenSkips('OUTSIDE_TRADING_WINDOW', /outside the trading windows; the next opens at 2026-01-08T09:00:00Z/);
    openAt(at('08:59:59')).thenSkips('OUTSIDE_TRADING_WINDOW', /next opens at 2026-01-07T09:00:00Z/);
    given({ features: [office], now: at('20:00:00') })
      .when(masterPendingPlaced('BuyLimit', { openPrice: 1.09 }))
      .thenSkips('OUTSIDE_TRADING_WINDOW');
  });

  it('reads each time in the offset written with it; the date is ignored', () => {
    const berlin = windows({ tradingWindows: [{ startTime: '2024-06-30T10:00:00+01:00', endTime: '2031-02-02 18:00:00+01:00' }] });
    openAt(at('08:59:00'), berlin).thenSkips('OUTSIDE_TRADING_WINDOW', /next opens at 2026-01-07T09:00:00Z/);
    openAt(at('09:00:00'), berlin).then([{ type: 'open' }]);
    openAt(at('16:59:00'), berlin).then([{ type: 'open' }]);
  });

  it('always copies closes and stop changes, in a window or not', () => {
    given({ features: [office], now: at('20:00:00'), slave: { copies: [slaveCopy()] } })
      .when(masterClosed())
      .then([{ type: 'close' }]);
    given({ features: [office], now: at('20:00:00'), slave: { copies: [slaveCopy()] } })
      .when(masterModified(1.09, 1.2))
      .then([{ type: 'modify' }]);
  });

  it('opens a window only on its activeDays, 1 Monday to 7 Sunday', () => {
    const mondays = windows({ tradingWindows: [window('09:00', '17:00', [1, 2])] });
    openAt(at('10:00:00'), mondays).thenSkips('OUTSIDE_TRADING_WINDOW', /next opens at 2026-01-12T09:00:00Z/);
    openAt(at('10:00:00', '2026-01-06'), mondays).then([{ type: 'open' }]);
    openAt(at('10:00:00', '2026-01-11'), windows({ tradingWindows: [window('09:00', '17:00', [7])] })).then([{ type: 'open' }]);
  });

  it('runs a window whose end is not after its start into the next day, counted on the day it starts', () => {
    const night = windows({ tradingWindows: [window('22:00', '06:00', [2])] });
    openAt(at('05:59:00'), night).then([{ type: 'open' }]);
    openAt(at('06:00:00'), night).thenSkips('OUTSIDE_TRADING_WINDOW');
    openAt(at('23:00:00'), night).thenSkips('OUTSIDE_TRADING_WINDOW');
    openAt(at('23:00:00', '2026-01-06'), night).then([{ type: 'open' }]);
    openAt(at('12:00:00'), windows({ tradingWindows: [window('00:00', '00:00')] })).then([{ type: 'open' }]);
  });

  it('with our timeZone, follows the wall clock of that zone across a daylight-saving change', () => {
    const london = windows({ timeZone: 'Europe/London', tradingWindows: [window('09:00', '10:00')] });
    openAt(at('09:30:00', '2026-03-27'), london).then([{ type: 'open' }]);
    openAt(at('08:30:00', '2026-03-30'), london).then([{ type: 'open' }]);
    openAt(at('09:30:00', '2026-03-30'), london).thenSkips('OUTSIDE_TRADING_WINDOW', /\(Europe\/London\); the next opens at 2026-03-31T09:00:00\+01:00/);
  });

  it('refuses a time zone that is not an IANA zone', () => {
    const setting = { ...tradingWindows.defaults, tradingWindows: [window('09:00', '17:00')] } as TradingWindowsSettings;
    expect(tradingWindows.check!({ ...setting, timeZone: 'Mars/Olympus' })).to.equal('timeZone Mars/Olympus is not an IANA time zone');
    expect(tradingWindows.check!({ ...setting, timeZone: 'America/New_York' })).to.equal(null);
    expect(tradingWindows.check!(setting)).to.equal(null);
  });

  it('an open outside the windows is skipped before the approval would ask for it', () =>
    given({ features: [office, { feature: approval, settings: {} }], now: at('20:00:00') })
      .when(masterOpened())
      .thenSkips('OUTSIDE_TRADING_WINDOW'));

  describe('temporarilySkipUntilNextWindow', () => {
    const holding = windows({ tradingWindows: [window('09:00', '17:00')], temporarilySkipUntilNextWindow: true });

    it('holds an open outside the windows back until the next window opens', () =>
      openAt(at('20:00:00'), holding).then([{ type: 'defer', until: '2026-01-08T09:00:00.000Z', by: TYPE }]));

    it('copies it when decided again inside the window', () =>
      given({ features: [holding], now: at('09:00:00', '2026-01-08'), deferredBy: [TYPE] })
        .when(masterOpened())
        .then([{ type: 'open' }]));
  });

  describe('closePositionsAtWindowEnd', () => {
    const closing = windows({ tradingWindows: [window('09:00', '17:00')] });
    const copies = [managed({ openTime: at('10:00:00') }), managed({ slavePositionId: 's-2', masterPositionId: 'm-2', openTime: at('16:00:00') })];

    it('closes every open copy when the window ends (the default), with the end in the message', () => {
      const actions = manageWith(closing, { now: at('17:00:00'), copies });
      expect(closes(actions)).to.deep.equal(['s-2002', 's-2']);
      expect(actions[0]).to.deep.include({
        kind: 'close',
        message: 'trading window ended at 2026-01-07T17:00:00Z: #s-2002 closed (closePositionsAtWindowEnd)',
      });
    });

    it('asks for five minutes after the end, not before it nor later', () => {
      expect(manageWith(closing, { now: at('16:59:59'), copies })).to.deep.equal([]);
      expect(closes(manageWith(closing, { now: at('17:04:59'), copies }))).to.have.length(2);
      expect(manageWith(closing, { now: at('17:05:00'), copies })).to.deep.equal([]);
    });

    it('does not close when another window goes on from the end', () => {
      const adjacent = windows({ tradingWindows: [window('09:00', '17:00'), window('17:00', '18:00')] });
      expect(manageWith(adjacent, { now: at('17:00:30'), copies })).to.deep.equal([]);
      expect(closes(manageWith(adjacent, { now: at('18:00:30'), copies }))).to.have.length(2);
    });

    it('closes nothing when false', () => expect(manageWith(office, { now: at('17:00:00'), copies })).to.deep.equal([]));
  });

  describe('symbolsConfiguration', () => {
    const perSymbol = windows({
      tradingWindows: [window('09:00', '17:00')],
      symbolsConfiguration: { XAUUSD: { tradingWindows: [window('13:00', '20:00')] } },
    });
    const slaveSymbols = [symbolSpec(), symbolSpec({ symbol: 'XAUUSD', digits: 2, point: 0.01 })];

    it("judges an open on a configured symbol by the symbol's windows, the others by the general ones", () => {
      given({ features: [perSymbol], now: at('18:00:00'), slaveSymbols })
        .when(masterOpened({ symbol: 'XAUUSD', openPrice: 2350 }))
        .then([{ type: 'open', symbol: 'XAUUSD' }]);
      given({ features: [perSymbol], now: at('18:00:00'), slaveSymbols })
        .when(masterOpened())
        .thenSkips('OUTSIDE_TRADING_WINDOW');
      given({ features: [perSymbol], now: at('10:00:00'), slaveSymbols })
        .when(masterOpened({ symbol: 'XAUUSD', openPrice: 2350 }))
        .thenSkips('OUTSIDE_TRADING_WINDOW', /next opens at 2026-01-07T13:00:00Z/);
    });

    it("closes each copy at the end of its symbol's window", () => {
      const gold = managed({ symbol: 'XAUUSD', slavePositionId: 's-gold', openTime: at('14:00:00') });
      const euro = managed({ openTime: at('10:00:00') });
      expect(closes(manageWith(perSymbol, { now: at('17:00:00'), copies: [euro, gold] }))).to.deep.equal(['s-2002']);
      expect(closes(manageWith(perSymbol, { now: at('20:00:00'), copies: [euro, gold] }))).to.deep.equal(['s-gold']);
    });
  });

  it('is a single feature of an account or a copier', () => {
    expect(tradingWindows).to.deep.include({ type: TYPE, scopes: ['account', 'copier'], multiple: false });
  });
});
