import { expect } from 'chai';
import { cronExpressionProblem, keepAliveTrade, type KeepAliveTradeSettings } from '../../../../domain/copy/features/keepAliveTrade.js';
import { breakEven } from '../../../../domain/copy/features/breakEven.js';
import type { CopyRecord, ManageContext } from '../../../../domain/copy/features/rules.js';
import { managed, manageWith, symbolSpec } from '../given.js';

describe('feature: FeatureKeepAliveTradeDTO', () => {
  // NOW is Wednesday 2026-01-07 10:00:00 UTC; the feature was added at 08:30; its id in manageWith is f-0.
  const ADDED = '2026-01-07T08:30:00.000Z';
  const at = (time: string, day = '07') => `2026-01-${day}T${time}.000Z`;
  const keepAlive = (settings: Partial<KeepAliveTradeSettings> = {}) => ({
    feature: keepAliveTrade,
    settings: { symbol: 'EURUSD', cronExpressions: ['0 * * * *'], closeAfterInSeconds: 60, ...settings },
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

  it('fires on its cron expressions in UTC: 5 fields, or Quartz 6 and 7 fields with ? and names', () => {
    // Wednesday 09:30 fired; with only Tuesdays, Tuesday 09:30 did, before the feature was added.
    expect(run({ cronExpressions: ['30 9 * * WED'] }).map((a) => a.masterPositionId)).to.deep.equal(['feature:f-0:2026-01-07T09:30:00.000Z']);
    expect(run({ cronExpressions: ['30 9 * * TUE'] })).to.deep.equal([]);
    expect(run({ cronExpressions: ['0 1 10 * * *'] }, { configuredAt: at('08:00:00', '06') }).map((a) => a.masterPositionId)).to.deep.equal([
      'feature:f-0:2026-01-06T10:01:00.000Z',
    ]);
    expect(run({ cronExpressions: ['15 45 9 ? * MON-FRI 2026'] }).map((a) => a.masterPositionId)).to.deep.equal(['feature:f-0:2026-01-07T09:45:15.000Z']);
    expect(run({ cronExpressions: ['0 0/20 * ? * *'] }).map((a) => a.masterPositionId)).to.deep.equal(['feature:f-0:2026-01-07T10:00:00.000Z']);
  });

  it('takes the latest firing of all its expressions, and firings at the same instant once', () => {
    expect(run({ cronExpressions: ['0 9 * * *', '40 9 * * *', '0 8 * * *'] }).map((a) => a.masterPositionId)).to.deep.equal([
      'feature:f-0:2026-01-07T09:40:00.000Z',
    ]);
    expect(run({ cronExpressions: ['0 * * * *', '0 0 10 ? * WED'] }).map((a) => a.masterPositionId)).to.deep.equal(['feature:f-0:2026-01-07T10:00:00.000Z']);
  });

  it('after a stop, places the latest missed firing once, not the earlier ones', () => {
    // Stopped from 09:10 to 11:30: the 10:00 and 11:00 firings were missed; 11:00 is placed, 10:00 never.
    const after = run({}, { now: at('11:30:00'), configuredAt: at('09:10:00') });
    expect(after.map((a) => a.masterPositionId)).to.deep.equal(['feature:f-0:2026-01-07T11:00:00.000Z']);
    expect(run({}, { now: at('11:30:01'), configuredAt: at('09:10:00'), standalone: [trade(at('11:00:00'), at('11:30:00'))] })).to.deep.equal([]);
  });

  describe('onlyIfInactive', () => {
    it('places nothing when the slave traded since the firing before', () =>
      expect(run({ onlyIfInactive: true }, { slaveLastTradeAt: at('09:00:00') })).to.deep.equal([]));

    it('places the trade when the slave last traded before that', () =>
      expect(run({ onlyIfInactive: true }, { slaveLastTradeAt: at('08:59:59') })).to.have.length(1));

    it('off (the default): places it whatever the slave did', () => expect(run({}, { slaveLastTradeAt: at('09:59:00') })).to.have.length(1));

    it('at the first firing, counts what the slave did since the feature was added', () => {
      expect(run({ onlyIfInactive: true, cronExpressions: ['0 0 10 7 1 ? 2026'] }, { slaveLastTradeAt: at('08:31:00') })).to.deep.equal([]);
      expect(run({ onlyIfInactive: true, cronExpressions: ['0 0 10 7 1 ? 2026'] }, { slaveLastTradeAt: at('08:29:00') })).to.have.length(1);
    });
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

  it('accepts what croner parses in Quartz and Unix forms, and refuses, naming the expression, the rest', () => {
    const check = (...cronExpressions: string[]) =>
      keepAliveTrade.check!({ ...keepAliveTrade.defaults, symbol: 'EURUSD', cronExpressions } as KeepAliveTradeSettings);
    for (const fine of [
      '0 * * * *',
      '* * * * *',
      '0 0 12 ? * MON-FRI',
      '0 15 10 L * ?',
      '0 15 10 ? * FRI#3',
      '0 0 12 15W * ?',
      '0 0/5 * * * ?',
      '0 0 12 * * SAT 2026-2030',
      '@daily',
    ])
      expect(check(fine), fine).to.equal(null);
    expect(check('0 * * * *', 'bogus')).to.match(/^cron expression 'bogus' is not valid: /);
    expect(check('0 12 * *')).to.match(/^cron expression '0 12 \* \*' is not valid: /);
    expect(check('0 0 12 ? * 2-6')).to.match(/^cron expression '0 0 12 \? \* 2-6': give the day of week by name/);
    expect(check('0 12 * * 1')).to.match(/give the day of week by name/);
    expect(check('*/30 * * * * *')).to.equal("cron expression '*/30 * * * * *' fires more than once a minute: at most one keep-alive trade a minute");
    expect(check('0,59 0 12 * * *')).to.match(/fires more than once a minute/);
    expect(check('0 0 30 2 *')).to.equal("cron expression '0 0 30 2 *' never fires");
    expect(cronExpressionProblem('0 0 12 ? * MON#2,FRI')).to.equal(null);
  });
});
