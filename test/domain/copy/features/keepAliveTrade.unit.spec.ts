import { expect } from 'chai';
import { keepAliveTrade, type KeepAliveTradeSettings } from '../../../../domain/copy/features/keepAliveTrade.js';
import { breakEven } from '../../../../domain/copy/features/breakEven.js';
import type { CopyRecord, ManageContext } from '../../../../domain/copy/features/rules.js';
import { managed, manageWith, symbolSpec } from '../given.js';

describe('feature: FeatureKeepAliveTradeDTO', () => {
  // NOW is Wednesday 2026-01-07 10:00:00 UTC; the feature was added at 08:30; its id in manageWith is f-0.
  const ADDED = '2026-01-07T08:30:00.000Z';
  const at = (time: string, day = '07') => `2026-01-${day}T${time}.000Z`;
  const keepAlive = (settings: Partial<KeepAliveTradeSettings> = {}) => ({
    feature: keepAliveTrade,
    settings: { symbol: 'EURUSD', intervalHours: 1, closeAfterInSeconds: 60, ...settings },
  });
  const run = (settings: Partial<KeepAliveTradeSettings> = {}, context: Partial<ManageContext> = {}) =>
    manageWith(keepAlive(settings), { configuredAt: ADDED, standalone: [], slaveLastTradeAt: null, ...context });
  /** A keep-alive trade of this feature in the copies read model. */
  const trade = (due: string, openedAt: string, closedAt: string | null = null): CopyRecord => ({
    masterPositionId: `feature:f-0:${due}`,
    slavePositionId: 's-77',
    symbol: 'EURUSD',
    side: 'Buy',
    volume: 0.01,
    openedAt,
    closedAt,
    result: null,
    closedBy: null,
  });

  it('places the trade due now: a market order of the symbol minimum, keyed by feature and due time', () =>
    expect(run()).to.deep.equal([
      {
        kind: 'standaloneOpen',
        masterPositionId: 'feature:f-0:2026-01-07T10:00:00.000Z',
        symbol: 'EURUSD',
        side: 'Buy',
        volume: 0.01,
        message: 'Keep-alive trade due at 2026-01-07T10:00:00.000Z (to close after 60 seconds): Buy 0.01 EURUSD',
      },
    ]));

  it('places it once per due time: not again while it is open, nor after it closed', () => {
    expect(run({}, { now: at('10:00:30'), standalone: [trade(at('10:00:00'), at('10:00:01'))] })).to.deep.equal([]);
    expect(run({}, { now: at('10:30:00'), standalone: [trade(at('10:00:00'), at('10:00:01'), at('10:01:01'))] })).to.deep.equal([]);
    // The next due time is a new trade.
    expect(run({}, { now: at('11:00:00'), standalone: [trade(at('10:00:00'), at('10:00:01'), at('10:01:01'))] }).map((a) => a.masterPositionId)).to.deep.equal([
      'feature:f-0:2026-01-07T11:00:00.000Z',
    ]);
  });

  it('places none while the one before is still open (its close refused), and closes that one', () =>
    expect(run({}, { now: at('11:00:00'), standalone: [trade(at('10:00:00'), at('10:00:01'))] }).map((a) => a.kind)).to.deep.equal(['close']));

  it('makes a missed due time up until the next one', () =>
    expect(run({}, { now: at('10:59:59') }).map((a) => a.masterPositionId)).to.deep.equal(['feature:f-0:2026-01-07T10:00:00.000Z']));

  it('places nothing for due times before the feature was added', () =>
    expect(run({}, { now: at('10:20:00'), configuredAt: at('10:10:00') })).to.deep.equal([]));

  it('closes its trade at the first tick after its open with closeAfterInSeconds 0 (the default)', () => {
    expect(keepAliveTrade.defaults.closeAfterInSeconds).to.equal(0);
    const open = trade(at('10:00:00'), at('10:00:01'));
    expect(run({ closeAfterInSeconds: 0 }, { standalone: [open], now: at('10:00:01') }).map((a) => a.kind)).to.deep.equal(['close']);
  });

  it('closes its trade closeAfterInSeconds after it opened, not a second before', () => {
    const open = trade(at('09:00:00'), at('09:59:00'));
    expect(run({ closeAfterInSeconds: 60 }, { standalone: [open], now: at('09:59:59') })).to.deep.equal([]);
    expect(run({ closeAfterInSeconds: 60 }, { standalone: [open], now: at('10:00:00') })).to.deep.equal([
      {
        kind: 'close',
        slavePositionId: 's-77',
        masterPositionId: 'feature:f-0:2026-01-07T09:00:00.000Z',
        symbol: 'EURUSD',
        volume: 0.01,
        message: 'Keep-alive trade #s-77 (Buy 0.01 EURUSD, opened at 2026-01-07T09:59:00.000Z, held 60 seconds)',
      },
    ]);
  });

  it('leaves the copies of master positions alone, however old', () =>
    expect(run({}, { copies: [managed({ openTime: at('01:00:00') })], standalone: [trade(at('10:00:00'), at('10:00:00'))] })).to.deep.equal([]));

  it('on a schedule: at time (UTC) on its weekdays only', () => {
    // Wednesday 09:30 is due; with only Tuesdays, Tuesday 09:30 was, before the feature was added.
    expect(run({ intervalHours: null, time: '09:30', weekdays: ['WEDNESDAY'] }).map((a) => a.masterPositionId)).to.deep.equal([
      'feature:f-0:2026-01-07T09:30:00.000Z',
    ]);
    expect(run({ intervalHours: null, time: '09:30', weekdays: ['TUESDAY'] })).to.deep.equal([]);
    expect(run({ intervalHours: null, time: '10:01' }, { configuredAt: at('08:00:00', '06') }).map((a) => a.masterPositionId)).to.deep.equal([
      'feature:f-0:2026-01-06T10:01:00.000Z',
    ]);
  });

  describe('onlyIfInactive', () => {
    it('places nothing when the slave traded since the due time before', () =>
      expect(run({ onlyIfInactive: true }, { slaveLastTradeAt: at('09:00:00') })).to.deep.equal([]));

    it('places the trade when the slave last traded before that', () =>
      expect(run({ onlyIfInactive: true }, { slaveLastTradeAt: at('08:59:59') })).to.have.length(1));

    it('off (the default): places it whatever the slave did', () => expect(run({}, { slaveLastTradeAt: at('09:59:00') })).to.have.length(1));
  });

  it('takes the volume asked, rounded down to the lot step, at least the minimum; the symbol without case', () => {
    const specs = new Map([['EURUSD.m', symbolSpec({ symbol: 'EURUSD.m', minLot: 0.1, lotStep: 0.1 })]]);
    expect(run({ symbol: 'eurusd.M', volume: 0.37, orderType: 'Sell' }, { specs })[0]).to.deep.include({ symbol: 'EURUSD.m', side: 'Sell', volume: 0.3 });
    expect(run({ symbol: 'eurusd.M', volume: 0.05 }, { specs })[0]).to.deep.include({ volume: 0.1 });
  });

  it("says so once per due time when the slave's broker has no such symbol", () =>
    expect(run({ symbol: 'XAUUSD' })).to.deep.equal([
      {
        kind: 'skip',
        masterPositionId: 'feature:f-0:2026-01-07T10:00:00.000Z',
        reason: 'SYMBOL_NOT_MAPPED',
        message: "keep-alive trade due at 2026-01-07T10:00:00.000Z not placed: the slave's broker has no symbol XAUUSD",
      },
    ]));

  it('with break-even beside it, break-even moves the copy and keep-alive only trades its own', () => {
    const copy = managed({ openTime: at('09:00:00'), currentPrice: 1.104 });
    expect(manageWith({ feature: breakEven, settings: { triggerInPoints: 300 } }, { copies: [copy] })[0]).to.deep.include({ kind: 'modify' });
    expect(run({}, { copies: [copy], now: at('10:30:00'), standalone: [trade(at('10:00:00'), at('10:00:00'), at('10:01:00'))] })).to.deep.equal([]);
  });

  it('refuses both or neither schedule, weekdays without a time, and a hold as long as the interval', () => {
    const check = (s: Partial<KeepAliveTradeSettings>) =>
      keepAliveTrade.check!({ ...keepAliveTrade.defaults, symbol: 'EURUSD', ...s } as KeepAliveTradeSettings);
    expect(check({ intervalHours: 1 })).to.equal(null);
    expect(check({ time: '12:00', weekdays: ['MONDAY'] })).to.equal(null);
    expect(check({})).to.match(/either intervalHours or time/);
    expect(check({ intervalHours: 1, time: '12:00' })).to.match(/either intervalHours or time/);
    expect(check({ intervalHours: 1, weekdays: ['MONDAY'] })).to.match(/weekdays go with time/);
    expect(check({ intervalHours: 1, closeAfterInSeconds: 3600 })).to.match(/closeAfterInSeconds 3600 must be shorter than intervalHours \(3600 seconds\)/);
  });
});
