// Profit targets, pure: the open/locked state machine of the daily, weekly and monthly targets (with
// pauseInsteadOfClose, trackByOpenDate, resetOnBalanceChange, autoResetIfBalanceIsBelow) and the
// overall target (reference balance, EQUITY/BALANCE, adjustReferenceOnBalanceChange, per-symbol).
import { expect } from 'chai';
import { overallTargetFeature, periodTargetFeatures, periodTargetSettings } from '../../../domain/profitTarget/features.js';
import { at, observed, overall, target, timeline } from './timeline.js';

const NEXT_DAY = '2026-01-07T23:00:00.000Z';

describe('profit target features', () => {
  it('reads the daily, weekly and monthly members the same way', () => {
    expect(
      periodTargetSettings('FeatureWeeklyProfitTargetDTO', { weeklyAbsoluteProfitTarget: 500, weeklyRelativeProfitTarget: 2, pauseInsteadOfClose: true }),
    ).to.deep.equal({
      unit: 'week',
      absoluteProfitTarget: 500,
      relativeProfitTarget: 2,
      autoResetIfBalanceIsBelow: 0,
      resetOnBalanceChange: false,
      pauseInsteadOfClose: true,
      trackByOpenDate: false,
    });
  });
  it('offers trackByOpenDate on the daily target only, and needs a target above 0', () => {
    const [daily, weekly] = periodTargetFeatures;
    expect(Object.keys(daily!.members.properties)).to.include('trackByOpenDate');
    expect(Object.keys(weekly!.members.properties)).not.to.include('trackByOpenDate');
    expect(daily!.check!({ dailyAbsoluteProfitTarget: 0, dailyRelativeProfitTarget: 0 })).to.match(
      /set dailyAbsoluteProfitTarget or dailyRelativeProfitTarget above 0/,
    );
    expect(daily!.defaults).to.include({ pauseInsteadOfClose: false, resetOnBalanceChange: false, autoResetIfBalanceIsBelow: 0 });
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
  it("stays open below the target and locks when the day's profit reaches it, closing everything until the next day", () => {
    const t = timeline([target({ absoluteProfitTarget: 300 })])
      .look(at('10:00'), observed())
      .look(at('10:30'), observed({ equity: 10_299.99 }));
    expect(t.triggers()).to.deep.equal([]);
    t.look(at('11:00'), observed({ equity: 10_300 }));
    expect(t.triggers()[0]).to.deep.include({
      ruleKind: 'PROFIT_TARGET',
      level: 'TARGET',
      action: 'CLOSE_ALL',
      until: NEXT_DAY,
      measured: 300,
      thresholdMember: 'dailyAbsoluteProfitTarget',
    });
    expect(t.triggers()[0]!.message).to.match(
      /^Profit target FeatureDailyProfitTargetDTO locked: profit 300\.00 USD since the start of day 2026-01-07 reached dailyAbsoluteProfitTarget 300\.00 USD/,
    );
    t.look(NEXT_DAY, observed({ balance: 10_300, equity: 10_300 }));
    expect(t.events.map((e) => e.type)).to.deep.equal(['ProtectionCleared', 'ProtectionReferenceRecorded']);
  });

  it('with pauseInsteadOfClose keeps the positions', () => {
    const t = timeline([target({ pauseInsteadOfClose: true })])
      .look(at('10:00'), observed())
      .look(at('11:00'), observed({ equity: 10_400 }));
    expect(t.triggers()[0]).to.deep.include({ action: 'STOP_COPYING' });
    expect(t.triggers()[0]!.message).to.match(/positions stay open\.$/);
  });

  it("locks at dailyRelativeProfitTarget percent of the balance at the day's start", () => {
    const t = timeline([target({ absoluteProfitTarget: 0, relativeProfitTarget: 2 })]).look(at('10:00'), observed({ balance: 20_000, equity: 19_000 }));
    t.look(at('11:00'), observed({ balance: 20_000, equity: 19_399 }));
    expect(t.triggers()).to.deep.equal([]);
    t.look(at('11:01'), observed({ balance: 20_000, equity: 19_400 }));
    expect(t.triggers()[0]).to.deep.include({ thresholdMember: 'dailyRelativeProfitTarget', threshold: 2, measured: 400 });
  });

  it('leaves a deposit out of the profit', () => {
    const t = timeline([target()]).look(at('10:00'), observed());
    t.look(at('11:00'), observed({ balance: 11_000, equity: 11_000, balanceOperations: [{ id: 'd1', time: at('10:30'), amount: 1_000 }] }));
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
    expect(t.events[1]!.data).to.deep.include({ kind: 'RESET', equity: 10_800 });
    expect(t.active()).to.deep.equal([]);
    t.look(at('10:42'), observed({ balance: 10_800, equity: 10_800, balanceOperations: [deposit] }));
    expect(t.events, 'the same deposit resets once').to.deep.equal([]);
    t.look(at('11:00'), observed({ balance: 10_800, equity: 11_100, balanceOperations: [deposit] }));
    expect(t.active()[0]).to.deep.include({ anchor: `reset:T1:${at('10:41')}` });
  });

  it('with autoResetIfBalanceIsBelow, a locked target unlocks when the balance falls below it', () => {
    const t = timeline([target({ pauseInsteadOfClose: true, autoResetIfBalanceIsBelow: 10_100 })]).look(at('10:00'), observed());
    t.look(at('10:30'), observed({ balance: 10_350, equity: 10_350 }));
    expect(t.active()).to.have.length(1);
    t.look(at('10:40'), observed({ balance: 10_100, equity: 10_100 }));
    expect(t.events).to.deep.equal([]);
    t.look(at('10:50'), observed({ balance: 10_099, equity: 10_099 }));
    expect(t.events.map((e) => e.type)).to.deep.equal(['ProtectionReset', 'ProtectionReferenceRecorded']);
    expect(t.events[0]!.data).to.deep.include({ reason: 'BALANCE_BELOW' });
    expect(t.active()).to.deep.equal([]);
  });

  it('with trackByOpenDate counts only the trades opened today, closed or open', () => {
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
    expect(t.triggers()[0]!.message).to.match(/profit 300\.00 USD of the trades opened since the start of day 2026-01-07/);
  });

  it('after a reset through the API, copying resumes the same day and the profit counts from the reset', () => {
    const t = timeline([target()])
      .look(at('10:00'), observed())
      .look(at('10:30'), observed({ equity: 10_400 }));
    t.reset(at('10:35'), 'T1', 'PROFIT_TARGET');
    expect(t.active()).to.deep.equal([]);
    t.look(at('10:36'), observed({ equity: 10_400 }));
    expect(t.triggers()).to.have.length(1);
    t.look(at('12:00'), observed({ equity: 10_700 }));
    expect(t.triggers().at(-1)).to.deep.include({ anchor: `reset:T1:${at('10:35')}`, measured: 300, until: NEXT_DAY });
  });
});

describe('profit targets: weekly and monthly', () => {
  it('a weekly target locks until Monday 00:00 in the time zone', () => {
    const t = timeline([target({ unit: 'week', absoluteProfitTarget: 1_000 })], 'America/New_York')
      .look(at('15:00'), observed())
      .look(at('16:00'), observed({ equity: 11_000 }));
    expect(t.triggers()[0]).to.deep.include({
      ruleType: 'FeatureWeeklyProfitTargetDTO',
      anchor: 'week:2026-01-05T05:00:00.000Z',
      until: '2026-01-12T05:00:00.000Z',
      thresholdMember: 'weeklyAbsoluteProfitTarget',
    });
  });
  it('a monthly target locks until the 1st of the next month in the time zone', () => {
    const t = timeline([target({ unit: 'month', absoluteProfitTarget: 0, relativeProfitTarget: 5 })])
      .look(at('10:00'), observed())
      .look(at('16:00'), observed({ equity: 10_500 }));
    expect(t.triggers()[0]).to.deep.include({
      ruleType: 'FeatureMonthlyProfitTargetDTO',
      until: '2026-01-31T23:00:00.000Z',
      thresholdMember: 'monthlyRelativeProfitTarget',
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
