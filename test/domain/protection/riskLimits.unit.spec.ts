// Risk limits, pure: references, the four measures, absolute, percent and trailing limits, fallbacks,
// deposits, the next period (across a daylight-saving change), resets and replays.
import { expect } from 'chai';
import { RISK_TYPES, referenceValue } from '../../../domain/riskLimit/riskTypes.js';
import { protectionEventKey } from '../../../domain/protection/events.js';
import { checkRiskLimit, RISK_LIMIT_DEFAULTS } from '../../../domain/riskLimit/settings.js';
import { at, limit, observed, timeline } from './timeline.js';

describe('risk types', () => {
  it('lists twelve types: four measures for each of the daily, weekly and monthly periods', () => {
    expect(RISK_TYPES.map((t) => `${t.id} ${t.name}`)).to.deep.equal([
      '1 DAILY_EQUITY_TO_EQUITY',
      '2 WEEKLY_EQUITY_TO_EQUITY',
      '3 MONTHLY_EQUITY_TO_EQUITY',
      '4 DAILY_BALANCE_TO_EQUITY',
      '5 WEEKLY_BALANCE_TO_EQUITY',
      '6 MONTHLY_BALANCE_TO_EQUITY',
      '7 DAILY_BALANCE_TO_BALANCE',
      '8 WEEKLY_BALANCE_TO_BALANCE',
      '9 MONTHLY_BALANCE_TO_BALANCE',
      '10 DAILY_SMART_REFERENCE',
      '11 WEEKLY_SMART_REFERENCE',
      '12 MONTHLY_SMART_REFERENCE',
    ]);
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
  it('needs a known risk type and at least one limit', () => {
    expect(checkRiskLimit({ ...base, riskTypeId: 13, absoluteRiskLimit: 1 })?.field).to.equal('body.riskTypeId');
    expect(checkRiskLimit(base)?.message).to.match(/at least one of absoluteRiskLimit, riskLimit and relativeRiskLimit/);
  });
  it('takes fallbacks only with closeAllOpenPositions false, and above their limit', () => {
    expect(checkRiskLimit({ ...base, absoluteRiskLimit: 300, fallbackAbsoluteRiskLimit: 600 })?.message).to.match(/only when closeAllOpenPositions is false/);
    expect(checkRiskLimit({ ...base, absoluteRiskLimit: 300, fallbackAbsoluteRiskLimit: 200, closeAllOpenPositions: false })?.message).to.match(
      /must be above absoluteRiskLimit/,
    );
    expect(checkRiskLimit({ ...base, absoluteRiskLimit: 300, fallbackRiskLimit: 5, closeAllOpenPositions: false })).to.equal(null);
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

  it('is hit at riskLimit percent of the reference', () => {
    const t = timeline([limit({ absoluteRiskLimit: 0, riskLimit: 2.5 })])
      .look(at('10:00'), observed({ equity: 12_000 }))
      .look(at('11:00'), observed({ equity: 11_700 }));
    expect(t.triggers()[0]).to.deep.include({ thresholdMember: 'riskLimit', measured: 300, threshold: 2.5 });
  });

  it("is hit by a trailing fall of relativeRiskLimit percent from the day's high, even in profit for the day", () => {
    const t = timeline([limit({ absoluteRiskLimit: 0, relativeRiskLimit: 5 })])
      .look(at('10:00'), observed())
      .look(at('11:00'), observed({ equity: 11_000 }))
      .look(at('12:00'), observed({ equity: 10_460 }));
    expect(t.triggers()).to.deep.equal([]);
    expect(t.eventsOfType('ProtectionPeakRecorded').map((e) => e.data)).to.deep.include.members([
      { accountId: 'acc', anchor: `day:${DAY_START}`, measure: 'EQUITY_TO_EQUITY', value: 11_000, at: at('11:00') },
    ]);
    t.look(at('12:01'), observed({ equity: 10_450 }));
    expect(t.triggers()[0]).to.deep.include({ thresholdMember: 'relativeRiskLimit', measured: 550, threshold: 5 });
  });

  it('keeps the trailing high across a restart from what was recorded, and the exact one from the monitor while it runs', () => {
    const t = timeline([limit({ absoluteRiskLimit: 0, relativeRiskLimit: 5 })])
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
    expect(hitTypes(1), 'equity to equity: 350 lost').to.equal(1);
    expect(hitTypes(4), 'balance to equity: 50 won').to.equal(0);
    expect(hitTypes(7), 'balance to balance: nothing closed').to.equal(0);
    expect(hitTypes(10), 'smart: 10,400 - 10,050').to.equal(1);
    const closedLoss = observed({ balance: 9_700, equity: 9_700 });
    expect(
      timeline([limit({ riskTypeId: 7, absoluteRiskLimit: 300 })])
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
    const weekly = timeline([limit({ riskTypeId: 2, absoluteRiskLimit: 300 })])
      .look(at('10:00'), observed())
      .look(at('11:00'), observed({ equity: 9_700 }));
    expect(weekly.triggers()[0]).to.deep.include({ anchor: 'week:2026-01-04T23:00:00.000Z', until: '2026-01-11T23:00:00.000Z' });
    const monthly = timeline([limit({ riskTypeId: 3, absoluteRiskLimit: 300 })])
      .look(at('10:00'), observed())
      .look(at('11:00'), observed({ equity: 9_700 }));
    expect(monthly.triggers()[0]).to.deep.include({ anchor: 'month:2025-12-31T23:00:00.000Z', until: '2026-01-31T23:00:00.000Z' });
  });

  it("keeps one reference per period: a new day does not touch the week's", () => {
    const t = timeline([limit({ absoluteRiskLimit: 300 }), limit({ riskTypeId: 2, absoluteRiskLimit: 400 }, 'L2')]).look(at('10:00'), observed());
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
