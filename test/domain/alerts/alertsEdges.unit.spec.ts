// The calendar alerting decider at its edges: a narrowed rule's alerts of events it no longer takes are
// disarmed (RULE_NARROWED), an alert past the cutoff is MISSED once, and ending a project's alerting
// disarms, deletes and revokes everything still live.
import { expect } from 'chai';
import type { AlertsCommand } from '../../../domain/alerts/commands.js';
import { alertsDecider } from '../../../domain/alerts/decider.js';
import type { AlertsEvent } from '../../../domain/alerts/events.js';
import { systemContext } from '../../../domain/shared/command.js';

const P = 'p-1';
const AT = '2026-01-07T10:00:00.000Z';
const metadata = { now: AT, context: systemContext('spec') };
const targets = [{ featureId: 'f-1', recipient: null }];
const rule = { name: 'majors', currencies: ['USD', 'EUR'], impacts: ['HIGH' as const], leadMinutes: 15, targets };
const history: AlertsEvent[] = [
  { type: 'CalendarAlertRuleSaved', data: { projectId: P, ruleId: 'r-1', rule, at: AT } },
  { type: 'CalendarAlertArmed', data: { projectId: P, alertId: 'a-usd', eventId: 'e-usd', leadMinutes: 15, targets, ruleId: 'r-1', at: AT } },
  { type: 'CalendarAlertArmed', data: { projectId: P, alertId: 'a-eur', eventId: 'e-eur', leadMinutes: 15, targets, ruleId: 'r-1', at: AT } },
  { type: 'CalendarAlertArmed', data: { projectId: P, alertId: 'a-manual', eventId: 'e-usd', leadMinutes: 30, targets, ruleId: null, at: AT } },
  {
    type: 'CalendarSubscriptionCreated',
    data: { projectId: P, subscriptionId: 's-1', name: 'phone', tokenHash: 'h', currencies: [], impacts: [], at: AT },
  },
];
const idOf = (e: AlertsEvent): unknown => {
  const d = e.data as Record<string, unknown>;
  return d.alertId ?? d.ruleId ?? d.subscriptionId;
};
const state = (events: readonly AlertsEvent[]) => events.reduce((s, e) => alertsDecider.evolve(s, e), alertsDecider.initialState);
const decide = (command: Omit<AlertsCommand, 'metadata'>, events: readonly AlertsEvent[] = history) =>
  alertsDecider.decide({ ...command, metadata } as AlertsCommand, state(events));

describe('calendar alerting: narrowed rules, the cutoff, a deleted project', () => {
  it("disarms a narrowed rule's alerts it names, only pending ones of that rule", () => {
    const events = decide({
      type: 'ApplyCalendarAlertRules',
      data: {
        projectId: P,
        matches: [],
        unmatched: [
          { ruleId: 'r-1', alertId: 'a-eur' },
          { ruleId: 'r-1', alertId: 'a-manual' },
          { ruleId: 'r-2', alertId: 'a-usd' },
        ],
      },
    });
    expect(events).to.deep.equal([{ type: 'CalendarAlertDisarmed', data: { projectId: P, alertId: 'a-eur', reason: 'RULE_NARROWED', at: AT } }]);
  });

  it('re-arms, when the rule takes the event again, what its narrowing disarmed, and nothing disarmed otherwise', () => {
    const narrowed: AlertsEvent[] = [
      ...history,
      { type: 'CalendarAlertDisarmed', data: { projectId: P, alertId: 'a-eur', reason: 'RULE_NARROWED', at: AT } },
      { type: 'CalendarAlertDisarmed', data: { projectId: P, alertId: 'a-usd', reason: 'DISARMED', at: AT } },
    ];
    const matches = [
      { ruleId: 'r-1', eventId: 'e-eur', alertId: 'a-eur-new' },
      { ruleId: 'r-1', eventId: 'e-usd', alertId: 'a-usd-new' },
    ];
    const events = decide({ type: 'ApplyCalendarAlertRules', data: { projectId: P, matches, unmatched: [] } }, narrowed);
    expect(events).to.deep.equal([
      { type: 'CalendarAlertArmed', data: { projectId: P, alertId: 'a-eur', eventId: 'e-eur', leadMinutes: 15, targets, ruleId: 'r-1', at: AT } },
    ]);
    expect(decide({ type: 'ApplyCalendarAlertRules', data: { projectId: P, matches, unmatched: [] } }, [...narrowed, ...events])).to.deep.equal([]);
  });

  it('marks a pending alert MISSED once', () => {
    const missed = decide({ type: 'MissCalendarAlert', data: { projectId: P, alertId: 'a-usd', eventTime: '2026-01-07T09:00:00.000Z' } });
    expect(missed).to.deep.equal([
      { type: 'CalendarAlertMissed', data: { projectId: P, alertId: 'a-usd', eventId: 'e-usd', eventTime: '2026-01-07T09:00:00.000Z', at: AT } },
    ]);
    expect(
      decide({ type: 'MissCalendarAlert', data: { projectId: P, alertId: 'a-usd', eventTime: '2026-01-07T09:00:00.000Z' } }, [...history, ...missed]),
    ).to.deep.equal([]);
    expect(
      decide({ type: 'FireCalendarAlert', data: { projectId: P, alertId: 'a-usd', eventTime: '2026-01-07T09:00:00.000Z', deliveries: 1 } }, [
        ...history,
        ...missed,
      ]),
    ).to.deep.equal([]);
  });

  it("ends a project's alerting: pending alerts disarmed, rules deleted, subscriptions revoked; again, nothing", () => {
    const ended = decide({ type: 'EndProjectAlerting', data: { projectId: P } });
    expect(ended.map((e) => [e.type, idOf(e)])).to.deep.equal([
      ['CalendarAlertDisarmed', 'a-usd'],
      ['CalendarAlertDisarmed', 'a-eur'],
      ['CalendarAlertDisarmed', 'a-manual'],
      ['CalendarAlertRuleDeleted', 'r-1'],
      ['CalendarSubscriptionRevoked', 's-1'],
    ]);
    expect(decide({ type: 'EndProjectAlerting', data: { projectId: P } }, [...history, ...ended])).to.deep.equal([]);
  });
});
