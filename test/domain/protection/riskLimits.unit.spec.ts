// Risk limits, pure: references, the four measures, absolute, percent and trailing limits, fallbacks,
// deposits, the next period (across a daylight-saving change), resets and replays.
import { expect } from 'chai';
import { RISK_TYPES, referenceValue } from '../../../domain/riskLimit/riskTypes.js';
import { protectionEventKey } from '../../../domain/protection/events.js';
import { checkRiskLimit, RISK_LIMIT_DEFAULTS } from '../../../domain/riskLimit/settings.js';
import { at, limit, observed, timeline } from './timeline.js';

describe('risk types', () => {
  it("lists the reference's ids 1 to 10 with its names, and ours 11 to 13", () => {
    expect(RISK_TYPES.map((t) => `${t.id} ${t.name} ${t.code}`)).to.deep.equal([
      '1 Daily DAILY_BALANCE_TO_EQUITY',
      '2 Weekly WEEKLY_BALANCE_TO_EQUITY',
      '3 Monthly MONTHLY_BALANCE_TO_EQUITY',
      '4 Actual DAILY_ACTUAL',
      '5 Equity-equity daily DAILY_EQUITY_TO_EQUITY',
      '6 Equity-equity weekly WEEKLY_EQUITY_TO_EQUITY',
      '7 Equity-equity monthly MONTHLY_EQUITY_TO_EQUITY',
      '8 Smart reference daily DAILY_SMART_REFERENCE',
      '9 Smart reference weekly WEEKLY_SMART_REFERENCE',
      '10 Smart reference monthly MONTHLY_SMART_REFERENCE',
      '11 Balance-balance daily DAILY_BALANCE_TO_BALANCE',
      '12 Balance-balance weekly WEEKLY_BALANCE_TO_BALANCE',
      '13 Balance-balance monthly MONTHLY_BALANCE_TO_BALANCE',
    ]);
    expect(RISK_TYPES.filter((t) => t.usesResetTime).map((t) => t.id)).to.deep.equal([1, 2, 3]);
  });

  it('takes the smart reference as the higher of balance and equity at the period start', () => {
    expect(referenceValue('SMART_REFERENCE', { balance: 10_000, equity: 10_400 })).to.equal(10_400);
    expect(referenceValue('SMART_REFERENCE', { balance: 10_000, equity: 9_700 })).to.equal(10_000);
    expect(referenceValue('EQUITY_TO_EQUITY', { balance: 10_000, equity: 9_700 })).to.equal(9_700);
    expect(referenceValue('BALANCE_TO_EQUITY', { balance: 10_000, equity: 10_400 })).to.equal(10_000);
  });
});

describe('risk limit settings', () => {
  const base = { ...RISK_LIMIT_DEFAULTS, riskTypeId: 1 };
  it('needs a known risk type; every member 0 is a deactivated limit', () => {
    expect(checkRiskLimit({ ...base, riskTypeId: 14, absoluteRiskLimit: 1 })?.field).to.equal('body.riskType.id');
    expect(checkRiskLimit(base)).to.equal(null);
  });
  it('ignores fallbacks with closeAllOpenPositions true, and wants them above their limit with false', () => {
    expect(checkRiskLimit({ ...base, absoluteRiskLimit: 300, fallbackAbsoluteRiskLimit: 200 })).to.equal(null);
    expect(checkRiskLimit({ ...base, absoluteRiskLimit: 300, fallbackAbsoluteRiskLimit: 200, closeAllOpenPositions: false })?.message).to.match(
      /must be above absoluteRiskLimit/,
    );
    expect(checkRiskLimit({ ...base, absoluteRiskLimit: 300, fallbackRiskLimit: 0.05, closeAllOpenPositions: false })).to.equal(null);
  });
});

describe('risk limits: a daily equity-to-equity limit in Europe/Berlin', () => {
  // Wednesday 7 January 2026: the Berlin day runs from 23:00 UTC the day before (CET, +1).
  const DAY_START = '2026-01-06T23:00:00.000Z';
  const NEXT_DAY = '2026-01-07T23:00:00.000Z';

  it("records the day's reference at its first look, once, and marks it late when read over a minute after midnight", () => {
    const t = timeline([limit()]).look(at('10:00'), observed({ balance: 10_000, equity: 9_950 }));
    expect(t.events).to.have.length(1);
    expect(t.events[0]).to.deep.include({ type: 'ProtectionReferenceRecorded' });
    expect(t.events[0]!.data).to.deep.include({
      anchor: `day:${DAY_START}`,
      kind: 'PERIOD',
      start: DAY_START,
      label: '2026-01-07',
      balance: 10_000,
      equity: 9_950,
      late: true,
    });
    expect(t.look(at('10:01'), observed({ equity: 9_900 })).events).to.deep.equal([]);
    const onTime = timeline([limit()]).look('2026-01-06T23:00:30.000Z', observed());
    expect(onTime.events[0]!.data).to.deep.include({ late: false });
  });

  it('is not hit below the limit: a loss of 299.99 against absoluteRiskLimit 300', () => {
    const t = timeline([limit({ absoluteRiskLimit: 300 })])
      .look(at('10:00'), observed())
      .look(at('10:05'), observed({ equity: 9_700.01 }));
    expect(t.triggers()).to.deep.equal([]);
  });

  it('is hit when the loss reaches absoluteRiskLimit: copying stops until the next Berlin day and every position closes, once', () => {
    const t = timeline([limit({ absoluteRiskLimit: 300 })])
      .look(at('10:00'), observed())
      .look(at('10:05'), observed({ equity: 9_700 }));
    const [hit] = t.triggers();
    expect(hit).to.deep.include({
      level: 'LIMIT',
      action: 'CLOSE_ALL',
      until: NEXT_DAY,
      measured: 300,
      threshold: 300,
      thresholdMember: 'absoluteRiskLimit',
      ruleType: 'DAILY_EQUITY_TO_EQUITY',
    });
    expect(hit!.message).to.match(
      /^Risk limit DAILY_EQUITY_TO_EQUITY hit: loss 300\.00 USD reached absoluteRiskLimit 300\.00 USD, measured from 10000\.00 USD at the start of day 2026-01-07\. New copies to this account stop until 2026-01-07T23:00:00\.000Z/,
    );
    expect(t.look(at('10:06'), observed({ equity: 9_000 })).events).to.deep.equal([]);
  });

  it('is hit at riskLimit, a fraction of the reference: 0.025 is 2.5 %', () => {
    const t = timeline([limit({ absoluteRiskLimit: 0, riskLimit: 0.025 })])
      .look(at('10:00'), observed({ equity: 12_000 }))
      .look(at('11:00'), observed({ equity: 11_700 }));
    expect(t.triggers()[0]).to.deep.include({ thresholdMember: 'riskLimit', measured: 300, threshold: 0.025 });
    expect(t.triggers()[0]!.message).to.match(/loss 300\.00 USD \(2\.5 % of the reference\) reached riskLimit 0\.025 \(2\.5 %\)/);
  });

  it('a riskLimit of 0.05 acts at a 5 % loss and not before (a reference client sending 0.05 means 5 %, not 0.05 %)', () => {
    const t = timeline([limit({ absoluteRiskLimit: 0, riskLimit: 0.05 })])
      .look(at('10:00'), observed())
      .look(at('10:01'), observed({ equity: 9_995 }))
      .look(at('10:02'), observed({ equity: 9_500.01 }));
    expect(t.triggers(), 'a 4.9999 % loss').to.deep.equal([]);
    t.look(at('10:03'), observed({ equity: 9_500 }));
    expect(t.triggers()[0]).to.deep.include({ thresholdMember: 'riskLimit', measured: 500, threshold: 0.05 });
  });

  it('never acts with every member 0 (deactivated), whatever the loss', () => {
    const t = timeline([limit({ absoluteRiskLimit: 0, riskLimit: 0, relativeRiskLimit: 0 })])
      .look(at('10:00'), observed())
      .look(at('10:01'), observed({ equity: 1 }));
    expect(t.triggers()).to.deep.equal([]);
  });

  it("is hit by a trailing fall of relativeRiskLimit percent from the day's high, even in profit for the day", () => {
    const t = timeline([limit({ absoluteRiskLimit: 0, relativeRiskLimit: 0.05 })])
      .look(at('10:00'), observed())
      .look(at('11:00'), observed({ equity: 11_000 }))
      .look(at('12:00'), observed({ equity: 10_460 }));
    expect(t.triggers()).to.deep.equal([]);
    expect(t.eventsOfType('ProtectionPeakRecorded').map((e) => e.data)).to.deep.include.members([
      { accountId: 'acc', anchor: `day:${DAY_START}`, measure: 'EQUITY_TO_EQUITY', value: 11_000, at: at('11:00') },
    ]);
    t.look(at('12:01'), observed({ equity: 10_450 }));
    expect(t.triggers()[0]).to.deep.include({ thresholdMember: 'relativeRiskLimit', measured: 550, threshold: 0.05 });
  });

  it('keeps the trailing high across a restart from what was recorded, and the exact one from the monitor while it runs', () => {
    const t = timeline([limit({ absoluteRiskLimit: 0, relativeRiskLimit: 0.05 })])
      .look(at('10:00'), observed())
      .look(at('10:30'), observed({ equity: 11_000 }));
    // The monitor saw 11,004 a second later (above the recorded 11,000 by less than a step).
    t.look(at('10:31'), observed({ equity: 10_453.8, peaks: { [`day:${DAY_START}|EQUITY_TO_EQUITY`]: 11_004 } }));
    expect(t.triggers()[0]).to.deep.include({ thresholdMember: 'relativeRiskLimit', measured: 550.2 });
  });

  it('leaves deposits and withdrawals out of the loss', () => {
    const t = timeline([limit({ absoluteRiskLimit: 300 })])
      .look(at('10:00'), observed())
      .look(at('11:00'), observed({ balance: 9_000, equity: 9_000, balanceOperations: [{ id: 'w1', time: at('10:30'), amount: -1_000 }] }));
    expect(t.triggers()).to.deep.equal([]);
    t.look(at('11:30'), observed({ balance: 9_000, equity: 8_700, balanceOperations: [{ id: 'w1', time: at('10:30'), amount: -1_000 }] }));
    expect(t.triggers()[0]).to.deep.include({ measured: 300 });
  });

  it('measures each type from its own reference: balance to equity, balance to balance, smart reference', () => {
    // The day starts with a floating profit of 400: balance 10,000, equity 10,400.
    const start = observed({ balance: 10_000, equity: 10_400 });
    const now = observed({ balance: 10_000, equity: 10_050 });
    const hitTypes = (riskTypeId: number) =>
      timeline([limit({ riskTypeId, absoluteRiskLimit: 300 })])
        .look(at('00:00:10'), start)
        .look(at('10:00'), now)
        .triggers().length;
    expect(hitTypes(5), 'equity to equity: 350 lost').to.equal(1);
    expect(hitTypes(1), 'Daily, balance to equity: 50 won').to.equal(0);
    expect(hitTypes(11), 'balance to balance: nothing closed').to.equal(0);
    expect(hitTypes(8), 'smart: 10,400 - 10,050').to.equal(1);
    const closedLoss = observed({ balance: 9_700, equity: 9_700 });
    expect(
      timeline([limit({ riskTypeId: 11, absoluteRiskLimit: 300 })])
        .look(at('00:00:10'), start)
        .look(at('10:00'), closedLoss)
        .triggers(),
    ).to.have.length(1);
  });

  it('with closeAllOpenPositions false keeps positions at the hit and closes everything at the fallback', () => {
    const t = timeline([limit({ absoluteRiskLimit: 300, fallbackAbsoluteRiskLimit: 600, closeAllOpenPositions: false })])
      .look(at('10:00'), observed())
      .look(at('10:05'), observed({ equity: 9_650 }));
    expect(t.triggers().map((x) => [x.level, x.action])).to.deep.equal([['LIMIT', 'STOP_COPYING']]);
    t.look(at('10:06'), observed({ equity: 9_450 }));
    expect(t.triggers()).to.have.length(1);
    t.look(at('10:07'), observed({ equity: 9_400 }));
    expect(t.triggers().map((x) => [x.level, x.action])).to.deep.equal([
      ['LIMIT', 'STOP_COPYING'],
      ['FALLBACK', 'CLOSE_ALL'],
    ]);
    expect(t.triggers()[1]!.message).to.match(/fallback reached: loss 600\.00 USD reached fallbackAbsoluteRiskLimit 600\.00 USD.*Every position is closed/);
  });

  it('hits the limit and its fallback in one look when the loss jumps past both', () => {
    const t = timeline([limit({ absoluteRiskLimit: 300, fallbackAbsoluteRiskLimit: 600, closeAllOpenPositions: false })])
      .look(at('10:00'), observed())
      .look(at('10:05'), observed({ equity: 9_300 }));
    expect(t.triggers().map((x) => x.level)).to.deep.equal(['LIMIT', 'FALLBACK']);
  });

  it('clears the hit when the Berlin day ends and measures the new day from its own reference', () => {
    const t = timeline([limit({ absoluteRiskLimit: 300 })])
      .look(at('10:00'), observed())
      .look(at('10:05'), observed({ equity: 9_600 }));
    expect(t.triggers()).to.have.length(1);
    t.look('2026-01-07T22:59:59.000Z', observed({ equity: 9_600 }));
    expect(t.events).to.deep.equal([]);
    t.look(NEXT_DAY, observed({ balance: 9_600, equity: 9_600 }));
    expect(t.events.map((e) => e.type)).to.deep.equal(['ProtectionCleared', 'ProtectionReferenceRecorded']);
    expect(t.events[0]!.data).to.deep.include({ reason: 'NEXT_PERIOD' });
    expect(t.events[1]!.data).to.deep.include({ anchor: `day:${NEXT_DAY}`, balance: 9_600, late: false });
    expect(t.active()).to.deep.equal([]);
    t.look('2026-01-08T10:00:00.000Z', observed({ balance: 9_600, equity: 9_300 }));
    expect(t.triggers().at(-1)).to.deep.include({ anchor: `day:${NEXT_DAY}`, until: '2026-01-08T23:00:00.000Z' });
  });

  it('after a reset, lifts the hit and measures from the first look after it until the day ends', () => {
    const t = timeline([limit({ absoluteRiskLimit: 300 })])
      .look(at('10:00'), observed())
      .look(at('10:05'), observed({ equity: 9_600 }));
    t.reset(at('10:10'));
    expect(t.active()).to.deep.equal([]);
    t.look(at('10:10:01'), observed({ equity: 9_600 }));
    expect(t.events.map((e) => e.type)).to.deep.equal(['ProtectionReferenceRecorded']);
    expect(t.events[0]!.data).to.deep.include({ kind: 'RESET', anchor: `reset:L1:${at('10:10')}`, equity: 9_600 });
    t.look(at('10:20'), observed({ equity: 9_350 }));
    expect(t.events, '250 lost since the reset').to.deep.equal([]);
    t.look(at('10:21'), observed({ equity: 9_300 }));
    expect(t.triggers().at(-1)).to.deep.include({ anchor: `reset:L1:${at('10:10')}`, until: NEXT_DAY, measured: 300 });
    expect(t.triggers().at(-1)!.message).to.match(/measured from 9600\.00 USD at the reset at 2026-01-07T10:10:00\.000Z/);
    // The next day measures from its own start again.
    t.look(NEXT_DAY, observed({ equity: 9_300, balance: 9_300 }));
    expect(t.events.map((e) => e.type)).to.deep.equal(['ProtectionCleared', 'ProtectionReferenceRecorded']);
  });

  it('clears the hit of a limit no longer listed (deleted or deactivated), and without a venue session decides only that', () => {
    const t = timeline([limit({ absoluteRiskLimit: 300 })])
      .look(at('10:00'), observed())
      .look(at('10:05'), observed({ equity: 9_600 }));
    t.withRules([]).look(at('10:06'), null);
    expect(t.events.map((e) => [e.type, (e.data as { reason?: string }).reason])).to.deep.equal([['ProtectionCleared', 'RULE_REMOVED']]);
    expect(timeline([limit()]).look(at('10:00'), null).events).to.deep.equal([]);
  });

  it('is hit again when its rule is listed again in the same period, under another event id', () => {
    const rule = limit({ absoluteRiskLimit: 300 });
    const t = timeline([rule])
      .look(at('10:00'), observed())
      .look(at('10:05'), observed({ equity: 9_600 }));
    t.withRules([]).look(at('10:06'), observed({ equity: 9_600 }));
    t.withRules([rule]).look(at('10:07'), observed({ equity: 9_600 }));
    const [first, second] = t.eventsOfType('ProtectionTriggered');
    expect(second!.data.triggerId).to.equal(first!.data.triggerId);
    expect(protectionEventKey(second!)).not.to.equal(protectionEventKey(first!));
  });

  it('decides nothing twice: the events folded again (a restart) and the same look give nothing new', () => {
    const t = timeline([limit({ absoluteRiskLimit: 300 })])
      .look(at('10:00'), observed())
      .look(at('10:05'), observed({ equity: 9_600 }));
    const replayed = timeline([limit({ absoluteRiskLimit: 300 })]).replay(t.all);
    expect(replayed.look(at('10:06'), observed({ equity: 9_500 })).events).to.deep.equal([]);
  });

  it('judges no limit on history that does not reach back to its reference', () => {
    const t = timeline([limit({ absoluteRiskLimit: 300 })]).look(at('10:00'), observed());
    t.look(at('11:00'), observed({ equity: 9_000, historyFrom: at('10:30') }));
    expect(t.triggers()).to.deep.equal([]);
  });
});

describe('risk limits: periods in the time zone, across daylight-saving changes', () => {
  it('a Berlin day of 23 hours (clocks forward on 29 March 2026) ends at 22:00 UTC, not 23:00', () => {
    const t = timeline([limit({ absoluteRiskLimit: 300 })])
      .look('2026-03-29T10:00:00.000Z', observed())
      .look('2026-03-29T12:00:00.000Z', observed({ equity: 9_600 }));
    expect(t.triggers()[0]).to.deep.include({ until: '2026-03-29T22:00:00.000Z', anchor: 'day:2026-03-28T23:00:00.000Z' });
    t.look('2026-03-29T21:59:59.000Z', observed({ equity: 9_600 }));
    expect(t.active()).to.have.length(1);
    t.look('2026-03-29T22:00:00.000Z', observed({ equity: 9_600 }));
    expect(t.events.map((e) => e.type)).to.deep.equal(['ProtectionCleared', 'ProtectionReferenceRecorded']);
    expect(t.events[1]!.data).to.deep.include({ anchor: 'day:2026-03-29T22:00:00.000Z', label: '2026-03-30' });
  });

  it('a New York day of 25 hours (clocks back on 1 November 2026) ends at 05:00 UTC the next day', () => {
    const t = timeline([limit({ absoluteRiskLimit: 300 })], 'America/New_York')
      .look('2026-11-01T12:00:00.000Z', observed())
      .look('2026-11-01T13:00:00.000Z', observed({ equity: 9_600 }));
    expect(t.triggers()[0]).to.deep.include({ anchor: 'day:2026-11-01T04:00:00.000Z', until: '2026-11-02T05:00:00.000Z' });
  });

  it('a weekly limit runs from Monday 00:00 and a monthly one from the 1st, local time', () => {
    const weekly = timeline([limit({ riskTypeId: 6, absoluteRiskLimit: 300 })])
      .look(at('10:00'), observed())
      .look(at('11:00'), observed({ equity: 9_700 }));
    expect(weekly.triggers()[0]).to.deep.include({ anchor: 'week:2026-01-04T23:00:00.000Z', until: '2026-01-11T23:00:00.000Z' });
    const monthly = timeline([limit({ riskTypeId: 7, absoluteRiskLimit: 300 })])
      .look(at('10:00'), observed())
      .look(at('11:00'), observed({ equity: 9_700 }));
    expect(monthly.triggers()[0]).to.deep.include({ anchor: 'month:2025-12-31T23:00:00.000Z', until: '2026-01-31T23:00:00.000Z' });
  });

  it("keeps one reference per period: a new day does not touch the week's", () => {
    const t = timeline([limit({ absoluteRiskLimit: 300 }), limit({ riskTypeId: 6, absoluteRiskLimit: 400 }, 'L2')]).look(at('10:00'), observed());
    expect(t.events.map((e) => (e.data as { anchor: string }).anchor)).to.deep.equal(['day:2026-01-06T23:00:00.000Z', 'week:2026-01-04T23:00:00.000Z']);
    t.look('2026-01-08T10:00:00.000Z', observed({ equity: 9_800 }));
    expect(t.events.map((e) => (e.data as { anchor: string }).anchor)).to.deep.equal(['day:2026-01-07T23:00:00.000Z']);
    t.look('2026-01-08T11:00:00.000Z', observed({ equity: 9_550 }));
    expect(
      t.triggers().map((x) => x.ruleId),
      'the day lost 250, the week 450',
    ).to.deep.equal(['L2']);
  });
});

describe('risk limits: fulfillSeconds, the Actual type and resetTime (the reference document)', () => {
  it('fulfillSeconds: a reached limit acts only once it has held that long at every look', () => {
    const t = timeline([limit({ absoluteRiskLimit: 0, riskLimit: 0.05, fulfillSeconds: 5 })])
      .look(at('10:00'), observed())
      .look(at('10:00:01'), observed({ equity: 9_500 }));
    expect(t.triggers()).to.deep.equal([]);
    expect(t.events.map((e) => e.type)).to.deep.equal(['ProtectionThresholdReached']);
    expect(t.events[0]!.data).to.deep.include({ level: 'LIMIT', fulfillSeconds: 5, at: at('10:00:01') });
    t.look(at('10:00:05'), observed({ equity: 9_400 }));
    expect(t.triggers(), '4 s held').to.deep.equal([]);
    t.look(at('10:00:06'), observed({ equity: 9_450 }));
    expect(t.triggers()[0]).to.deep.include({ thresholdMember: 'riskLimit', measured: 550, at: at('10:00:06') });
    expect(t.state().pending).to.deep.equal({});
  });

  it('fulfillSeconds: a look that finds it no longer reached ends the wait, which starts over at the next reach', () => {
    const t = timeline([limit({ absoluteRiskLimit: 300, fulfillSeconds: 5 })])
      .look(at('10:00'), observed())
      .look(at('10:00:01'), observed({ equity: 9_700 }))
      .look(at('10:00:04'), observed({ equity: 9_701 }));
    expect(t.events.map((e) => e.type)).to.deep.equal(['ProtectionThresholdReceded']);
    t.look(at('10:00:05'), observed({ equity: 9_600 }));
    t.look(at('10:00:09'), observed({ equity: 9_600 }));
    expect(t.triggers(), 'reached again at 10:00:05, 4 s held').to.deep.equal([]);
    t.look(at('10:00:10'), observed({ equity: 9_600 }));
    expect(t.triggers()).to.have.length(1);
  });

  it('fulfillSeconds: the wait survives a restart (it is in the events), and ends with its rule', () => {
    const rule = limit({ absoluteRiskLimit: 300, fulfillSeconds: 60 });
    const t = timeline([rule])
      .look(at('10:00'), observed())
      .look(at('10:00:01'), observed({ equity: 9_600 }));
    const replayed = timeline([rule]).replay(t.all);
    replayed.look(at('10:01:01'), observed({ equity: 9_600 }));
    expect(replayed.triggers()).to.have.length(1);
    t.withRules([]).look(at('10:00:30'), observed({ equity: 9_600 }));
    expect(t.events.map((e) => e.type)).to.deep.equal(['ProtectionThresholdReceded']);
  });

  it('fulfillSeconds applies to the fallback too', () => {
    const t = timeline([limit({ absoluteRiskLimit: 300, fallbackAbsoluteRiskLimit: 600, closeAllOpenPositions: false, fulfillSeconds: 2 })])
      .look(at('10:00'), observed())
      .look(at('10:00:01'), observed({ equity: 9_300 }))
      .look(at('10:00:03'), observed({ equity: 9_300 }));
    expect(t.triggers().map((x) => x.level)).to.deep.equal(['LIMIT']);
    expect(t.eventsOfType('ProtectionThresholdReached').map((e) => e.data.level)).to.deep.equal(['LIMIT', 'FALLBACK']);
    t.look(at('10:00:05'), observed({ equity: 9_300 }));
    expect(t.triggers().map((x) => x.level)).to.deep.equal(['LIMIT', 'FALLBACK']);
  });

  it("the reference's example values: riskLimit 0.7061 with fallbacks ignored (closeAllOpenPositions true) acts at a 70.61 % loss after 5 s", () => {
    const example = {
      riskTypeId: 9,
      absoluteRiskLimit: 0,
      riskLimit: 0.7061401241503109,
      relativeRiskLimit: 0,
      fallbackRiskLimit: 0.5962133916683182,
      fallbackAbsoluteRiskLimit: 0.6027456183070403,
      fallbackRelativeRiskLimit: 0.14658129805029452,
      closeAllOpenPositions: true,
      fulfillSeconds: 5,
    };
    expect(checkRiskLimit({ ...RISK_LIMIT_DEFAULTS, ...example })).to.equal(null);
    const t = timeline([limit(example)])
      .look(at('10:00'), observed())
      .look(at('10:00:01'), observed({ equity: 3_000 }))
      .look(at('10:00:07'), observed({ equity: 3_000 }));
    expect(t.triggers(), 'a 70 % loss').to.deep.equal([]);
    t.look(at('10:00:08'), observed({ equity: 2_900 }));
    t.look(at('10:00:13'), observed({ equity: 2_900 }));
    expect(t.triggers().map((x) => [x.level, x.action, x.thresholdMember])).to.deep.equal([['LIMIT', 'CLOSE_ALL', 'riskLimit']]);
  });

  it('Actual (4): the floating loss against the balance now, whatever the day began with; a hit lasts until the day ends', () => {
    const t = timeline([limit({ riskTypeId: 4, absoluteRiskLimit: 0, riskLimit: 0.05 })])
      .look(at('10:00'), observed({ balance: 10_000, equity: 10_000 }))
      // 600 realised losses since the day began: no floating loss now
      .look(at('11:00'), observed({ balance: 9_400, equity: 9_400 }))
      .look(at('11:01'), observed({ balance: 9_400, equity: 8_931 }));
    expect(t.triggers(), '469 floating of 9,400: 4.99 %').to.deep.equal([]);
    t.look(at('11:02'), observed({ balance: 9_400, equity: 8_930 }));
    expect(t.triggers()[0]).to.deep.include({ measured: 470, until: '2026-01-07T23:00:00.000Z', ruleType: 'DAILY_ACTUAL' });
    expect(t.triggers()[0]!.message).to.match(/measured from the balance now, 9400\.00 USD/);
  });

  it('resetTime (types 1-3): the day begins at its time of day in UTC, and the hit lasts until the next one', () => {
    const daily = (resetTime: string) => limit({ riskTypeId: 1, absoluteRiskLimit: 300, resetTime });
    const t = timeline([daily('2023-12-30T22:00:00.000Z')])
      .look(at('21:59'), observed())
      .look(at('21:59:30'), observed({ equity: 9_700 }));
    expect(t.all[0]!.data).to.deep.include({ anchor: 'day@79200s:2026-01-06T22:00:00.000Z', start: '2026-01-06T22:00:00.000Z', label: '2026-01-06' });
    expect(t.triggers()[0]).to.deep.include({ until: '2026-01-07T22:00:00.000Z' });
    t.look(at('22:00'), observed({ balance: 9_700, equity: 9_700 }));
    expect(t.events.map((e) => e.type)).to.deep.equal(['ProtectionCleared', 'ProtectionReferenceRecorded']);
    expect(t.events[1]!.data).to.deep.include({ anchor: 'day@79200s:2026-01-07T22:00:00.000Z', balance: 9_700 });
    // The offset given counts: 23:30+02:00 is 21:30 UTC.
    const offset = timeline([daily('2023-12-30 23:30:00+02:00')]).look(at('10:00'), observed());
    expect(offset.events[0]!.data).to.deep.include({ start: '2026-01-06T21:30:00.000Z' });
  });

  it("resetTime: a limit's own periods and the TIME_ZONE day keep their references apart", () => {
    const t = timeline([limit({ riskTypeId: 1, absoluteRiskLimit: 300, resetTime: '2023-12-30T00:00:00Z' }), limit({ absoluteRiskLimit: 300 }, 'L2')]);
    t.look(at('10:00'), observed());
    expect(t.events.map((e) => (e.data as { anchor: string }).anchor)).to.deep.equal(['day@0s:2026-01-07T00:00:00.000Z', 'day:2026-01-06T23:00:00.000Z']);
    t.look(at('10:01'), observed({ equity: 9_800 }));
    expect(t.events, 'nothing recorded again').to.deep.equal([]);
    t.look(at('23:30'), observed({ equity: 9_800 }));
    expect(t.events.map((e) => (e.data as { anchor: string }).anchor)).to.deep.equal(['day:2026-01-07T23:00:00.000Z']);
    t.look(at('23:31'), observed({ equity: 9_650 }));
    expect(
      t.triggers().map((x) => x.ruleId),
      'the UTC day lost 350, the Berlin day 150',
    ).to.deep.equal(['L1']);
  });

  it('resetTime is ignored by the other types (the reference: only used for 1-3)', () => {
    const t = timeline([limit({ riskTypeId: 5, absoluteRiskLimit: 300, resetTime: '2023-12-30T22:00:00.000Z' })]).look(at('10:00'), observed());
    expect(t.events[0]!.data).to.deep.include({ anchor: 'day:2026-01-06T23:00:00.000Z' });
  });
});
