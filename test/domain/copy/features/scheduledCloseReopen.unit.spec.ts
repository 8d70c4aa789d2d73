import { expect } from 'chai';
import { permittedSymbols } from '../../../../domain/copy/features/permittedSymbols.js';
import type { ManageContext, ManagedAction } from '../../../../domain/copy/features/rules.js';
import { scheduledCloseReopen } from '../../../../domain/copy/features/scheduledCloseReopen.js';
import { copierSettings, given, managed, manageWith, masterOpened, masterPendingPlaced, record, symbolSpec, trade } from '../given.js';

// 2026-01-07 is a Wednesday; 2026-01-09 a Friday, 2026-01-12 the Monday after.
describe('feature: FeatureScheduledCloseReopenDTO', () => {
  const TYPE = 'FeatureScheduledCloseReopenDTO';
  const schedule = (overrides: Record<string, unknown> = {}) => ({ label: 'daily', closeTime: '10:00', ...overrides });
  const feature = (...schedules: Record<string, unknown>[]) => ({ feature: scheduledCloseReopen, settings: { schedules } });
  const at = (time: string, day = '2026-01-07') => `${day}T${time}.000Z`;
  const copy = (overrides: Parameters<typeof managed>[0] = {}) => managed({ openTime: at('09:00:00'), ...overrides });
  const closesOf = (actions: readonly ManagedAction[]) => actions.filter((a) => a.kind === 'close').map((a) => a.kind === 'close' && a.slavePositionId);
  const manageAt = (now: string, settings: ReturnType<typeof feature>, context: Partial<ManageContext> = {}) => manageWith(settings, { now, ...context });

  describe('closing', () => {
    it('closes the copies opened before closeTime once it is closeTime, all of their volume', () => {
      const actions = manageAt(at('10:00:00'), feature(schedule({ reopenTime: '11:00' })), { copies: [copy({ volume: 0.4 })] });
      expect(actions).to.deep.equal([
        {
          kind: 'close',
          slavePositionId: 's-2002',
          masterPositionId: 'm-1001',
          symbol: 'EURUSD',
          volume: 0.4,
          message: "scheduled close 'daily' at 10:00 UTC: #s-2002 closed; reopens at 2026-01-07T11:00:00.000Z",
        },
      ]);
    });

    it('does nothing a second before closeTime', () => expect(manageAt(at('09:59:59'), feature(schedule()), { copies: [copy()] })).to.deep.equal([]));

    it('keeps asking for five minutes (a restart or a refused close still closes), then stops', () => {
      expect(closesOf(manageAt(at('10:04:59'), feature(schedule()), { copies: [copy()] }))).to.deep.equal(['s-2002']);
      expect(manageAt(at('10:05:00'), feature(schedule()), { copies: [copy()] })).to.deep.equal([]);
    });

    it('leaves alone a copy opened at or after closeTime (a reopened one, or a new trade)', () =>
      expect(manageAt(at('10:01:00'), feature(schedule()), { copies: [copy({ openTime: at('10:00:00') })] })).to.deep.equal([]));

    it('closes only on its weekdays (UTC)', () => {
      expect(manageAt(at('10:00:00'), feature(schedule({ weekdays: ['MONDAY', 'FRIDAY'] })), { copies: [copy()] })).to.deep.equal([]);
      expect(closesOf(manageAt(at('10:00:00'), feature(schedule({ weekdays: ['WEDNESDAY'] })), { copies: [copy()] }))).to.deep.equal(['s-2002']);
    });

    it('a close near midnight is still asked after midnight, as a close of the day before', () => {
      const late = feature(schedule({ closeTime: '23:58', weekdays: ['TUESDAY'] }));
      expect(closesOf(manageAt(at('00:01:00'), late, { copies: [copy({ openTime: at('20:00:00', '2026-01-06') })] }))).to.deep.equal(['s-2002']);
    });

    it('closeOnlyProfitable closes only copies whose profit plus swap is above 0', () => {
      const copies = [
        copy({ slavePositionId: 'win', profit: 5, swap: -2 }),
        copy({ slavePositionId: 'even', profit: 2, swap: -2 }),
        copy({ slavePositionId: 'loss', profit: -1 }),
      ];
      expect(closesOf(manageAt(at('10:00:00'), feature(schedule({ closeOnlyProfitable: true })), { copies }))).to.deep.equal(['win']);
    });

    it('maxLossInPoints leaves open a copy more than that many points in loss', () => {
      const copies = [
        copy({ slavePositionId: 'at-limit', currentPrice: 1.099 }),
        copy({ slavePositionId: 'beyond', currentPrice: 1.0989 }),
        copy({ slavePositionId: 'sell', side: 'Sell', currentPrice: 1.101 }),
      ];
      expect(closesOf(manageAt(at('10:00:00'), feature(schedule({ maxLossInPoints: 100 })), { copies }))).to.deep.equal(['at-limit', 'sell']);
    });

    it("negativeSwapOnly closes copies whose side's swap rate is negative, or, without rates, that paid swap", () => {
      const rated = symbolSpec({ swapLong: -5.5, swapShort: 1.2 });
      const copies = [
        copy({ slavePositionId: 'buy-pays', spec: rated }),
        copy({ slavePositionId: 'sell-earns', side: 'Sell', spec: rated, swap: -3 }),
        copy({ slavePositionId: 'unrated-paid', swap: -1.2 }),
        copy({ slavePositionId: 'unrated-none', swap: 0 }),
      ];
      expect(closesOf(manageAt(at('10:00:00'), feature(schedule({ negativeSwapOnly: true })), { copies }))).to.deep.equal(['buy-pays', 'unrated-paid']);
    });

    it('closes only copies on its symbols when it lists any', () => {
      const copies = [copy({ slavePositionId: 'eur' }), copy({ slavePositionId: 'gold', symbol: 'XAUUSD' })];
      expect(closesOf(manageAt(at('10:00:00'), feature(schedule({ symbols: ['xau*'] })), { copies }))).to.deep.equal(['gold']);
    });

    it('asks one close per copy when two schedules fall due together', () =>
      expect(closesOf(manageAt(at('10:00:00'), feature(schedule(), schedule({ label: 'other' })), { copies: [copy()] }))).to.deep.equal(['s-2002']));
  });

  describe('reopening', () => {
    const master = trade({ stopLoss: 1.095, takeProfit: 1.11 });
    const closed = (overrides: Parameters<typeof record>[0] = {}) =>
      record({
        masterPositionId: 'm-1001',
        slavePositionId: 's-2002',
        side: 'Buy',
        volume: 0.4,
        openedAt: at('09:00:00'),
        closedAt: at('10:00:01'),
        closedBy: TYPE,
        closePrice: 1.1,
        ...overrides,
      });
    const daily = feature(schedule({ reopenTime: '11:00' }));
    const reopenAt = (now: string, settings = daily, context: Partial<ManageContext> = {}) =>
      manageAt(now, settings, { history: [closed()], masterPositions: [master], quotes: new Map([['EURUSD', { bid: 1.1, ask: 1.10002 }]]), ...context });

    it("reopens at reopenTime what it closed, with its side, symbol and lots and the master's stops, keyed by schedule and day", () =>
      expect(reopenAt(at('11:00:00'))).to.deep.equal([
        {
          kind: 'reopen',
          key: 'daily/2026-01-07',
          masterPositionId: 'm-1001',
          symbol: 'EURUSD',
          side: 'Buy',
          volume: 0.4,
          stopLoss: 1.095,
          takeProfit: 1.11,
          message: "scheduled reopen 'daily' of master #m-1001 (Buy 0.4 EURUSD), closed at 2026-01-07T10:00:01.000Z",
        },
      ]));

    it('not a second before reopenTime, and no more once the half hour after it is over', () => {
      expect(reopenAt(at('10:59:59'))).to.deep.equal([]);
      expect(reopenAt(at('11:29:59'))).to.have.length(1);
      expect(reopenAt(at('11:30:00'))).to.deep.equal([]);
    });

    it('reopens only what this feature closed in its close window', () => {
      expect(reopenAt(at('11:00:00'), daily, { history: [closed({ closedBy: 'COPIER' })] })).to.deep.equal([]);
      expect(reopenAt(at('11:00:00'), daily, { history: [closed({ closedBy: 'SLAVE_VENUE' })] })).to.deep.equal([]);
      expect(reopenAt(at('11:00:00'), daily, { history: [closed({ closedAt: at('09:59:00') })] })).to.deep.equal([]);
      expect(reopenAt(at('11:00:00'), daily, { history: [closed({ closedAt: at('10:06:01') })] })).to.deep.equal([]);
    });

    it('nothing to reopen once the copy is open again (the history shows it open)', () =>
      expect(reopenAt(at('11:00:05'), daily, { history: [closed({ closedAt: null, closedBy: null, openedAt: at('11:00:01') })] })).to.deep.equal([]));

    it('does not reopen when the master closed the position meanwhile, and says so', () => {
      const [action] = reopenAt(at('11:00:00'), daily, { masterPositions: [] });
      expect(action).to.deep.include({ kind: 'skip', masterPositionId: 'm-1001', reason: 'MASTER_CLOSED_BEFORE_REOPEN' });
    });

    it('skipReopenIfMasterClosed false reopens it all the same, without stops', () =>
      expect(reopenAt(at('11:00:00'), feature(schedule({ reopenTime: '11:00', skipReopenIfMasterClosed: false })), { masterPositions: [] })[0]).to.deep.include(
        { kind: 'reopen', side: 'Buy', volume: 0.4, stopLoss: null, takeProfit: null },
      ));

    it("restoreSlTp false reopens without stops; under reverse the master's stops swap", () => {
      expect(reopenAt(at('11:00:00'), feature(schedule({ reopenTime: '11:00', restoreSlTp: false })))[0]).to.deep.include({ stopLoss: null, takeProfit: null });
      expect(reopenAt(at('11:00:00'), daily, { copier: copierSettings({ reverse: true }), history: [closed({ side: 'Sell' })] })[0]).to.deep.include({
        side: 'Sell',
        stopLoss: 1.11,
        takeProfit: 1.095,
      });
    });

    it('maxReopenSlippageInPoints: reopens only while the price is that close to where it closed', () => {
      const limited = feature(schedule({ reopenTime: '11:00', maxReopenSlippageInPoints: 30 }));
      const quoted = (bid: number) => new Map([['EURUSD', { bid, ask: bid + 0.00002 }]]);
      expect(reopenAt(at('11:00:00'), limited, { quotes: quoted(1.1003) })[0]).to.deep.include({ kind: 'reopen' });
      expect(reopenAt(at('11:00:00'), limited, { quotes: quoted(1.09969) })[0]).to.deep.include({ kind: 'skip', reason: 'REOPEN_SLIPPAGE_EXCEEDED' });
      expect(reopenAt(at('11:00:00'), limited, { quotes: new Map() })).to.deep.equal([]);
    });

    it('reopenDayOffset: a Friday close reopens on Monday', () => {
      const weekend = feature(schedule({ label: 'weekend', closeTime: '21:00', weekdays: ['FRIDAY'], reopenTime: '00:05', reopenDayOffset: 3 }));
      const history = [closed({ closedAt: at('21:00:02', '2026-01-09') })];
      expect(reopenAt(at('00:04:59', '2026-01-12'), weekend, { history })).to.deep.equal([]);
      expect(reopenAt(at('00:05:00', '2026-01-12'), weekend, { history })[0]).to.deep.include({ kind: 'reopen', key: 'weekend/2026-01-09' });
    });

    it('a close belongs to the schedule whose close time is the latest before it', () => {
      const two = feature(schedule({ reopenTime: '12:00' }), schedule({ label: 'later', closeTime: '10:02', reopenTime: '11:00' }));
      expect(reopenAt(at('11:00:00'), two, { history: [closed({ closedAt: at('10:00:01') })] })).to.deep.equal([]);
      expect(reopenAt(at('11:00:00'), two, { history: [closed({ closedAt: at('10:02:01') })] })[0]).to.deep.include({ key: 'later/2026-01-07' });
    });
  });

  describe('skipping new trades until the reopen', () => {
    const paused = feature(schedule({ reopenTime: '11:00', skipNewTradesUntilReopen: true }));

    it('skips new master opens between closeTime and the reopen, pending orders included', () => {
      given({ features: [paused], now: at('10:30:00') })
        .when(masterOpened())
        .thenSkips('SCHEDULED_PAUSE', /schedule 'daily' closed at 2026-01-07T10:00:00.000Z: new trades wait for the reopen at 2026-01-07T11:00:00.000Z/);
      given({ features: [paused], now: at('10:00:00') })
        .when(masterPendingPlaced('BuyLimit', { openPrice: 1.09 }))
        .thenSkips('SCHEDULED_PAUSE');
    });

    it('copies before closeTime and from the reopen on', () => {
      given({ features: [paused], now: at('09:59:59') })
        .when(masterOpened())
        .then([{ type: 'open' }]);
      given({ features: [paused], now: at('11:00:00') })
        .when(masterOpened())
        .then([{ type: 'open' }]);
    });

    it('copies new trades during the pause when not asked to skip them', () =>
      given({ features: [feature(schedule({ reopenTime: '11:00' }))], now: at('10:30:00') })
        .when(masterOpened())
        .then([{ type: 'open' }]));

    it('pauses across the days of a reopenDayOffset, only on its symbols', () => {
      const weekend = feature(
        schedule({ closeTime: '21:00', weekdays: ['FRIDAY'], reopenTime: '00:05', reopenDayOffset: 3, skipNewTradesUntilReopen: true, symbols: ['EUR*'] }),
      );
      given({ features: [weekend], now: at('12:00:00', '2026-01-10') })
        .when(masterOpened())
        .thenSkips('SCHEDULED_PAUSE');
      const gold = [symbolSpec(), symbolSpec({ symbol: 'XAUUSD', digits: 2, point: 0.01 })];
      given({ features: [weekend], now: at('12:00:00', '2026-01-10'), slaveSymbols: gold })
        .when(masterOpened({ symbol: 'XAUUSD', openPrice: 2300, stopLoss: null, takeProfit: null }))
        .then([{ type: 'open' }]);
    });

    it('with permitted symbols beside it, a symbol that is never copied is reported as such', () =>
      given({ features: [{ feature: permittedSymbols, settings: { whitelist: ['^GBP'], blacklist: [] } }, paused], now: at('10:30:00') })
        .when(masterOpened())
        .thenSkips('SYMBOL_NOT_PERMITTED'));
  });

  it('attaches to copiers and to accounts', () => expect(scheduledCloseReopen.scopes).to.deep.equal(['copier', 'account']));

  it('refuses duplicate labels, a same-day reopen not after the close, and a pause without a reopen', () => {
    const check = (...schedules: Record<string, unknown>[]) => scheduledCloseReopen.check!({ schedules } as never);
    expect(check(schedule(), schedule({ label: 'DAILY' }))).to.match(/two schedules are labelled 'DAILY'/);
    expect(check(schedule({ reopenTime: '10:00' }))).to.match(/reopenTime 10:00 must be after closeTime 10:00/);
    expect(check(schedule({ reopenTime: '09:00', reopenDayOffset: 1 }))).to.equal(null);
    expect(check(schedule({ skipNewTradesUntilReopen: true }))).to.match(/needs a reopenTime/);
  });
});
