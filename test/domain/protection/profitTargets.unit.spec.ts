// Profit targets, pure: the open/locked state machine of the daily, weekly and monthly targets (the
// reference's three targets: percent of the balance, an amount above the balance, an equity level;
// resetTime, pauseInsteadOfClose, autoResetIfBalanceIsBelow, and ours: trackByOpenDate,
// resetOnBalanceChange) and the overall target (reference balance, EQUITY/BALANCE,
// adjustReferenceOnBalanceChange, per-symbol). The reference's own examples: on a balance of 1000,
// dailyRelativeProfitTarget 300 and dailyAbsoluteProfitTarget 1300 both lock at 1300.
import { expect } from 'chai';
import { overallTargetFeature, periodTargetFeatures, periodTargetSettings } from '../../../domain/profitTarget/features.js';
import { periodTargetRule } from '../../../domain/protection/rules.js';
import { at, observed, overall, target, timeline } from './timeline.js';

/** The next day of the daily target: 00:00 UTC (its default resetTime), whatever TIME_ZONE (Europe/Berlin here). */
const NEXT_DAY = '2026-01-08T00:00:00.000Z';
/** A balance of 1000, as the reference's examples. */
const thousand = (equity = 1_000, balance = 1_000) => observed({ balance, equity });

describe('profit target features', () => {
  it("reads the daily, weekly and monthly members the same way, with the reference's defaults", () => {
    expect(periodTargetSettings('FeatureWeeklyProfitTargetDTO', { weeklyAbsoluteProfitTarget: 1_300, pauseInsteadOfClose: true })).to.deep.equal({
      unit: 'week',
      profitTarget: 5,
      relativeProfitTarget: 0,
      absoluteProfitTarget: 1_300,
      autoResetIfBalanceIsBelow: false,
      resetOnBalanceChange: false,
      pauseInsteadOfClose: true,
      trackByOpenDate: false,
      resetTime: null,
    });
    const [daily, weekly, monthly] = periodTargetFeatures;
    expect(daily!.defaults).to.deep.equal({
      dailyProfitTarget: 2,
      dailyRelativeProfitTarget: 0,
      dailyAbsoluteProfitTarget: 0,
      autoResetIfBalanceIsBelow: false,
      resetTime: '2023-12-30 00:00:00+00:00',
      pauseInsteadOfClose: false,
      resetOnBalanceChange: false,
      trackByOpenDate: false,
    });
    expect(weekly!.defaults).to.include({
      weeklyProfitTarget: 5,
      weeklyRelativeProfitTarget: 0,
      weeklyAbsoluteProfitTarget: 0,
      autoResetIfBalanceIsBelow: false,
    });
    expect(monthly!.defaults).to.include({ monthlyProfitTarget: 10, monthlyRelativeProfitTarget: 0, monthlyAbsoluteProfitTarget: 0 });
  });
  it('offers resetTime and trackByOpenDate on the daily target only; percents from 0 to 100; needs a target above 0', () => {
    const [daily, weekly] = periodTargetFeatures;
    expect(Object.keys(daily!.members.properties)).to.include.members(['trackByOpenDate', 'resetTime']);
    expect(Object.keys(weekly!.members.properties)).not.to.include.members(['trackByOpenDate']);
    expect(Object.keys(weekly!.members.properties)).not.to.include.members(['resetTime']);
    expect(daily!.members.properties.dailyProfitTarget).to.include({ type: 'number', minimum: 0, maximum: 100 });
    expect(daily!.members.properties.autoResetIfBalanceIsBelow).to.include({ type: 'boolean' });
    expect(daily!.members.properties.resetTime).to.include({ type: 'string', format: 'date-time' });
    expect(daily!.check!({ ...daily!.defaults })).to.equal(null);
    expect(daily!.check!({ ...daily!.defaults, dailyProfitTarget: 0 })).to.equal(
      'set dailyProfitTarget, dailyRelativeProfitTarget or dailyAbsoluteProfitTarget above 0',
    );
    expect(daily!.check!({ ...daily!.defaults, resetTime: 'tomorrow' })).to.match(/resetTime is an ISO 8601 date-time/);
  });
  it("begins the daily target's days at its resetTime's time of day in UTC", () => {
    expect(periodTargetRule('T', 'FeatureDailyProfitTargetDTO', {}).boundaryMs, 'the default: 00:00 UTC').to.equal(0);
    expect(periodTargetRule('T', 'FeatureDailyProfitTargetDTO', { resetTime: '2024-05-01T22:00:00+02:00' }).boundaryMs).to.equal(20 * 3_600_000);
    expect(periodTargetRule('T', 'FeatureMonthlyProfitTargetDTO', {}).boundaryMs, 'TIME_ZONE').to.equal(null);
  });
  it('checks the overall target: something to reach, one entry per symbol', () => {
    const base = { ...overallTargetFeature.defaults, referenceBalance: 10_000 } as Parameters<NonNullable<typeof overallTargetFeature.check>>[0];
    expect(overallTargetFeature.check!(base)).to.match(/set at least one/);
    expect(
      overallTargetFeature.check!({
        ...base,
        symbolsConfiguration: [
          { symbol: 'US500', lossLimitAmount: 100 },
          { symbol: 'us500', profitTargetAmount: 5 },
        ],
      }),
    ).to.match(/lists us500 twice/);
    expect(overallTargetFeature.check!({ ...base, lossLimitPercentage: 10 })).to.equal(null);
  });
});

describe('profit targets: the daily target', () => {
  it('dailyRelativeProfitTarget 300 on a balance of 1000 locks at 1300, not at 300: closing everything until the next day', () => {
    const t = timeline([target({ relativeProfitTarget: 300 })])
      .look(at('10:00'), thousand())
      .look(at('10:30'), thousand(1_299.99));
    expect(t.triggers()).to.deep.equal([]);
    t.look(at('11:00'), thousand(1_300));
    expect(t.triggers()[0]).to.deep.include({
      ruleKind: 'PROFIT_TARGET',
      level: 'TARGET',
      action: 'CLOSE_ALL',
      until: NEXT_DAY,
      anchor: 'day@0s:2026-01-07T00:00:00.000Z',
      measured: 300,
      threshold: 300,
      thresholdMember: 'dailyRelativeProfitTarget',
    });
    expect(t.triggers()[0]!.message).to.equal(
      'Profit target FeatureDailyProfitTargetDTO locked: equity 1300.00 USD, 300.00 USD above the balance at the start of day 2026-01-07, reached dailyRelativeProfitTarget 300.00 above the balance 1000.00 (1300.00 USD). ' +
        'New copies to this account stop until 2026-01-08T00:00:00.000Z (the next period in Europe/Berlin) or a reset; every position is closed and every pending order cancelled.',
    );
    t.look('2026-01-07T23:59:59.000Z', thousand(1_300, 1_300));
    expect(t.active()).to.have.length(1);
    t.look(NEXT_DAY, thousand(1_300, 1_300));
    expect(t.events.map((e) => e.type)).to.deep.equal(['ProtectionCleared', 'ProtectionReferenceRecorded']);
  });

  it('dailyAbsoluteProfitTarget 1300 on a balance of 1000 locks when equity reaches 1300', () => {
    const t = timeline([target({ relativeProfitTarget: 0, absoluteProfitTarget: 1_300 })])
      .look(at('10:00'), thousand())
      .look(at('10:30'), thousand(1_299.99));
    expect(t.triggers()).to.deep.equal([]);
    t.look(at('11:00'), thousand(1_300));
    expect(t.triggers()[0]).to.deep.include({ thresholdMember: 'dailyAbsoluteProfitTarget', threshold: 1_300, measured: 300 });
    expect(t.triggers()[0]!.message).to.match(/reached dailyAbsoluteProfitTarget 1300\.00 USD\./);
  });

  it("dailyProfitTarget (default 2) locks at 2 % above the day's starting balance, compared with equity", () => {
    const rule = periodTargetRule('T1', 'FeatureDailyProfitTargetDTO', {});
    const t = timeline([rule]).look(at('10:00'), thousand(950));
    t.look(at('11:00'), thousand(1_019.99));
    expect(t.triggers()).to.deep.equal([]);
    t.look(at('11:01'), thousand(1_020));
    expect(t.triggers()[0]).to.deep.include({ thresholdMember: 'dailyProfitTarget', threshold: 2, measured: 20 });
    expect(t.triggers()[0]!.message).to.match(/reached dailyProfitTarget 2 % of the balance 1000\.00 \(1020\.00 USD\)/);
  });

  it('with several targets set, the first reached (the lowest) locks', () => {
    const rule = periodTargetRule('T1', 'FeatureDailyProfitTargetDTO', { dailyRelativeProfitTarget: 300, dailyAbsoluteProfitTarget: 1_100 });
    const t = timeline([rule]).look(at('10:00'), thousand());
    t.look(at('11:00'), thousand(1_050));
    expect(t.triggers()[0], 'the default 2 % (1020) comes first').to.deep.include({ thresholdMember: 'dailyProfitTarget' });
    const without = timeline([
      periodTargetRule('T1', 'FeatureDailyProfitTargetDTO', { dailyProfitTarget: 0, dailyRelativeProfitTarget: 300, dailyAbsoluteProfitTarget: 1_100 }),
    ])
      .look(at('10:00'), thousand())
      .look(at('11:00'), thousand(1_100));
    expect(without.triggers()[0]).to.deep.include({ thresholdMember: 'dailyAbsoluteProfitTarget' });
  });

  it('a resetTime of 22:00+02:00 begins its days at 20:00 UTC', () => {
    const t = timeline([target({ resetTime: '2023-12-30T22:00:00+02:00' })])
      .look(at('19:00'), thousand())
      .look(at('19:30'), thousand(1_300));
    expect(t.triggers()[0]).to.deep.include({ anchor: 'day@72000s:2026-01-06T20:00:00.000Z', until: at('20:00') });
    t.look(at('20:00:01'), thousand(1_300, 1_300));
    expect(t.events.map((e) => e.type)).to.deep.equal(['ProtectionCleared', 'ProtectionReferenceRecorded']);
    expect(t.events[1]!.data).to.deep.include({ start: at('20:00'), balance: 1_300 });
    t.look(at('21:00'), thousand(1_599.99, 1_300));
    expect(t.active(), 'the new day measures from 1300: its target is 1600').to.deep.equal([]);
  });

  it('with pauseInsteadOfClose keeps the positions', () => {
    const t = timeline([target({ pauseInsteadOfClose: true })])
      .look(at('10:00'), observed())
      .look(at('11:00'), observed({ equity: 10_400 }));
    expect(t.triggers()[0]).to.deep.include({ action: 'STOP_COPYING' });
    expect(t.triggers()[0]!.message).to.match(/positions stay open\.$/);
  });

  it('leaves a deposit out of the profit', () => {
    const t = timeline([target()]).look(at('10:00'), thousand());
    t.look(at('11:00'), observed({ balance: 2_000, equity: 2_000, balanceOperations: [{ id: 'd1', time: at('10:30'), amount: 1_000 }] }));
    expect(t.triggers()).to.deep.equal([]);
  });

  it('with resetOnBalanceChange, a deposit unlocks the target and measures again from then', () => {
    const t = timeline([target({ resetOnBalanceChange: true })])
      .look(at('10:00'), observed())
      .look(at('10:30'), observed({ equity: 10_300 }));
    expect(t.active()).to.have.length(1);
    const deposit = { id: 'd1', time: at('10:40'), amount: 500 };
    t.look(at('10:41'), observed({ balance: 10_800, equity: 10_800, balanceOperations: [deposit] }));
    expect(t.events.map((e) => e.type)).to.deep.equal(['ProtectionReset', 'ProtectionReferenceRecorded']);
    expect(t.events[0]!.data).to.deep.include({ reason: 'BALANCE_CHANGED' });
    expect(t.events[1]!.data).to.deep.include({ kind: 'RESET', balance: 10_800 });
    expect(t.active()).to.deep.equal([]);
    t.look(at('10:42'), observed({ balance: 10_800, equity: 10_800, balanceOperations: [deposit] }));
    expect(t.events, 'the same deposit resets once').to.deep.equal([]);
    t.look(at('11:00'), observed({ balance: 10_800, equity: 11_100, balanceOperations: [deposit] }));
    expect(t.active()[0]).to.deep.include({ anchor: `reset:T1:${at('10:41')}` });
  });

  it('with autoResetIfBalanceIsBelow, a withdrawal taking the balance below the target resets it, once the balance had reached it', () => {
    const t = timeline([target({ autoResetIfBalanceIsBelow: true })]).look(at('10:00'), thousand());
    t.look(at('10:30'), thousand(1_300));
    expect(t.active(), 'locked at 1300, positions floating: the balance is still 1000').to.have.length(1);
    t.look(at('10:31'), thousand(1_300));
    expect(t.events, 'the balance has not reached the target yet: no reset').to.deep.equal([]);
    t.look(at('10:32'), thousand(1_302, 1_302));
    expect(
      t.events.map((e) => e.type),
      'closed at 1302: noted',
    ).to.deep.equal(['ProtectionPeakRecorded']);
    const withdrawal = { id: 'w1', time: at('10:40'), amount: -500 };
    t.look(at('10:41'), observed({ balance: 802, equity: 802, balanceOperations: [withdrawal] }));
    expect(t.events.map((e) => e.type)).to.deep.equal(['ProtectionReset', 'ProtectionReferenceRecorded']);
    expect(t.events[0]!.data).to.deep.include({ reason: 'BALANCE_BELOW' });
    expect((t.events[0]!.data as { message: string }).message).to.match(/the balance 802\.00 USD fell below the target 1300\.00/);
    expect(t.active()).to.deep.equal([]);
    t.look(at('11:00'), observed({ balance: 802, equity: 1_101.99, balanceOperations: [withdrawal] }));
    expect(t.triggers(), 'measured from 802 now: the target is 1102').to.have.length(1);
    t.look(at('11:01'), observed({ balance: 802, equity: 1_102, balanceOperations: [withdrawal] }));
    expect(t.triggers()).to.have.length(2);
  });

  it('without autoResetIfBalanceIsBelow, a withdrawal leaves the target locked', () => {
    const t = timeline([target()]).look(at('10:00'), thousand());
    t.look(at('10:30'), thousand(1_300, 1_300));
    t.look(at('10:41'), observed({ balance: 800, equity: 800, balanceOperations: [{ id: 'w1', time: at('10:40'), amount: -500 }] }));
    expect(t.events).to.deep.equal([]);
    expect(t.active()).to.have.length(1);
  });

  it('with trackByOpenDate counts only the trades opened today, closed or open, on top of the starting balance', () => {
    const yesterday = '2026-01-06T15:00:00.000Z';
    const today = at('08:00');
    const t = timeline([target({ trackByOpenDate: true })]).look(
      at('10:00'),
      observed({
        equity: 10_900,
        // a position from yesterday floats 700 in profit, today's trades made 250
        book: [
          { id: 'p1', kind: 'position', symbol: 'EURUSD', openTime: yesterday, result: 700 },
          { id: 'p2', kind: 'position', symbol: 'EURUSD', openTime: today, result: 100 },
        ],
        closedTrades: [
          { symbol: 'EURUSD', openTime: today, closeTime: at('09:00'), result: 150 },
          { symbol: 'EURUSD', openTime: yesterday, closeTime: at('09:30'), result: 900 },
        ],
      }),
    );
    expect(t.triggers()).to.deep.equal([]);
    t.look(
      at('10:05'),
      observed({
        book: [{ id: 'p2', kind: 'position', symbol: 'EURUSD', openTime: today, result: 150 }],
        closedTrades: [{ symbol: 'EURUSD', openTime: today, closeTime: at('09:00'), result: 150 }],
      }),
    );
    expect(t.triggers()[0]).to.deep.include({ measured: 300 });
    expect(t.triggers()[0]!.message).to.match(
      /the balance 10000\.00 at the start of day 2026-01-07 plus 300\.00 USD of the trades opened since, 10300\.00 USD, reached/,
    );
  });

  it('after a reset through the API, copying resumes the same day and the target counts from the balance at the reset', () => {
    const t = timeline([target()])
      .look(at('10:00'), observed())
      .look(at('10:30'), observed({ equity: 10_400 }));
    t.reset(at('10:35'), 'T1', 'PROFIT_TARGET');
    expect(t.active()).to.deep.equal([]);
    t.look(at('10:36'), observed({ balance: 10_400, equity: 10_400 }));
    expect(t.triggers()).to.have.length(1);
    t.look(at('12:00'), observed({ balance: 10_400, equity: 10_700 }));
    expect(t.triggers().at(-1)).to.deep.include({ anchor: `reset:T1:${at('10:35')}`, measured: 300, until: NEXT_DAY });
  });
});

describe('profit targets: weekly and monthly', () => {
  it('a weekly target (weeklyProfitTarget default 5 %) locks until Monday 00:00 in the time zone', () => {
    const t = timeline([periodTargetRule('T1', 'FeatureWeeklyProfitTargetDTO', {})], 'America/New_York')
      .look(at('15:00'), thousand())
      .look(at('16:00'), thousand(1_049.99));
    expect(t.triggers()).to.deep.equal([]);
    t.look(at('16:01'), thousand(1_050));
    expect(t.triggers()[0]).to.deep.include({
      ruleType: 'FeatureWeeklyProfitTargetDTO',
      anchor: 'week:2026-01-05T05:00:00.000Z',
      until: '2026-01-12T05:00:00.000Z',
      thresholdMember: 'weeklyProfitTarget',
      threshold: 5,
    });
  });
  it('a monthly target locks until the 1st of the next month in the time zone, at monthlyRelativeProfitTarget above the balance', () => {
    const t = timeline([periodTargetRule('T1', 'FeatureMonthlyProfitTargetDTO', { monthlyProfitTarget: 0, monthlyRelativeProfitTarget: 300 })])
      .look(at('10:00'), thousand())
      .look(at('16:00'), thousand(1_300));
    expect(t.triggers()[0]).to.deep.include({
      ruleType: 'FeatureMonthlyProfitTargetDTO',
      until: '2026-01-31T23:00:00.000Z',
      thresholdMember: 'monthlyRelativeProfitTarget',
      measured: 300,
    });
  });
});

describe('profit targets: the overall target', () => {
  it('locks at the loss limit against the fixed reference, on equity by default', () => {
    const t = timeline([overall({ lossLimitAmount: 500 })]).look(at('10:00'), observed({ balance: 9_800, equity: 9_800 }));
    expect(t.events.map((e) => e.type)).to.deep.equal(['ProtectionReferenceRecorded']);
    expect(t.events[0]!.data).to.deep.include({ kind: 'OVERALL', anchor: 'overall:O1:10000' });
    t.look(at('11:00'), observed({ balance: 9_800, equity: 9_500 }));
    expect(t.triggers()[0]).to.deep.include({
      ruleKind: 'OVERALL_TARGET',
      level: 'LOSS_LIMIT',
      until: null,
      measured: 500,
      thresholdMember: 'lossLimitAmount',
      action: 'CLOSE_ALL',
    });
    expect(t.triggers()[0]!.message).to.match(/^Overall loss limit reached: equity 9500\.00 is 500\.00 USD below the reference 10000\.00/);
    // never ended by a period
    t.look('2026-02-15T10:00:00.000Z', observed({ balance: 9_500, equity: 9_500 }));
    expect(t.active()).to.have.length(1);
  });

  it('with referenceMode BALANCE ignores floating results, and reaches the target in percent', () => {
    const t = timeline([overall({ referenceMode: 'BALANCE', profitTargetPercentage: 10, pauseInsteadOfClose: true })]).look(at('10:00'), observed());
    t.look(at('11:00'), observed({ balance: 10_200, equity: 11_500 }));
    expect(t.triggers()).to.deep.equal([]);
    t.look(at('12:00'), observed({ balance: 11_000, equity: 11_000 }));
    expect(t.triggers()[0]).to.deep.include({ level: 'TARGET', thresholdMember: 'profitTargetPercentage', action: 'STOP_COPYING', measured: 1_000 });
  });

  it('moves the reference by deposits made after it was set, unless adjustReferenceOnBalanceChange is false', () => {
    const deposit = { id: 'd1', time: at('10:30'), amount: 2_000 };
    const adjusted = timeline([overall({ profitTargetAmount: 1_000 })])
      .look(at('10:00'), observed())
      .look(at('11:00'), observed({ balance: 12_000, equity: 12_000, balanceOperations: [deposit] }));
    expect(adjusted.triggers()).to.deep.equal([]);
    const counted = timeline([overall({ profitTargetAmount: 1_000, adjustReferenceOnBalanceChange: false })])
      .look(at('10:00'), observed())
      .look(at('11:00'), observed({ balance: 12_000, equity: 12_000, balanceOperations: [deposit] }));
    expect(counted.triggers()[0]).to.deep.include({ level: 'TARGET', measured: 2_000 });
  });

  it('locks one symbol at its own target: closed results since the target was set plus its open positions', () => {
    const t = timeline([overall({ symbolsConfiguration: [{ symbol: 'us500', lossLimitAmount: 200 }] })]).look(at('10:00'), observed());
    t.look(
      at('11:00'),
      observed({
        closedTrades: [
          { symbol: 'US500', openTime: at('09:00'), closeTime: at('09:30'), result: -900 },
          { symbol: 'US500', openTime: at('10:10'), closeTime: at('10:20'), result: -150 },
        ],
        book: [
          { id: 'p1', kind: 'position', symbol: 'US500', openTime: at('10:30'), result: -49 },
          { id: 'p2', kind: 'position', symbol: 'EURUSD', openTime: at('10:30'), result: -500 },
        ],
      }),
    );
    expect(t.triggers(), 'the trade closed before the target was set does not count').to.deep.equal([]);
    t.look(
      at('11:01'),
      observed({
        closedTrades: [{ symbol: 'US500', openTime: at('10:10'), closeTime: at('10:20'), result: -150 }],
        book: [{ id: 'p1', kind: 'position', symbol: 'US500', openTime: at('10:30'), result: -50 }],
      }),
    );
    expect(t.triggers()[0]).to.deep.include({ level: 'LOSS_LIMIT', symbol: 'US500', measured: 200 });
    expect(t.triggers()[0]!.message).to.match(/New copies on US500 to this account stop until a reset; its US500 positions are closed/);
  });

  it('locks again after a reset while still beyond, the reset counting the symbols from then', () => {
    const t = timeline([overall({ lossLimitAmount: 500 })])
      .look(at('10:00'), observed())
      .look(at('11:00'), observed({ equity: 9_400 }));
    t.reset(at('11:10'), 'O1', 'OVERALL_TARGET');
    expect(t.active()).to.deep.equal([]);
    t.look(at('11:11'), observed({ equity: 9_400 }));
    expect(t.events.map((e) => e.type)).to.deep.equal(['ProtectionTriggered']);
    expect(t.active()[0]).to.deep.include({ anchor: `overall:O1:10000:${at('11:10')}` });
  });

  it('measures from a new reference when referenceBalance changes', () => {
    const t = timeline([overall({ lossLimitAmount: 500 })])
      .look(at('10:00'), observed())
      .look(at('11:00'), observed({ equity: 9_400 }));
    t.withRules([overall({ referenceBalance: 9_400, lossLimitAmount: 500 })]).look(at('11:05'), observed({ equity: 9_400 }));
    expect(t.events.map((e) => e.type)).to.deep.equal(['ProtectionReferenceRecorded']);
    expect(Object.keys(t.state().references)).to.deep.equal(['overall:O1:9400']);
  });
});
