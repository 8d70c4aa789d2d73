// A profit target locks the account in close mode: what opens meanwhile is decided closed first
// (ProtectionLockedCloseDecided, with the close's client request id), and its outcome is recorded once
// after the close: closed, gone, or a refusal, which goes to the account log once per code.
import { expect } from 'chai';
import { protectionDecider } from '../../../domain/protection/decider.js';
import type { ProtectionEvent, TriggerData } from '../../../domain/protection/events.js';
import type { LockedCloseOutcome } from '../../../domain/protection/commands.js';
import { systemContext } from '../../../domain/shared/command.js';
import { protectionLogLine } from '../../../projections/protections/logLines.js';
import { givenDecider } from '../givenDecider.js';

const given = givenDecider(protectionDecider);
const accountId = '11111111-1111-4111-8111-111111111111';
const at = '2026-01-07T16:00:00.000Z';
const metadata = { now: at, context: systemContext('spec') };

const trigger: TriggerData = {
  accountId,
  triggerId: 'T1',
  ruleKind: 'PROFIT_TARGET',
  ruleId: 'R1',
  ruleType: 'FeatureDailyProfitTargetDTO',
  level: 'TARGET',
  anchor: 'day:2026-01-07',
  symbol: null,
  until: '2026-01-08T00:00:00.000Z',
  action: 'CLOSE_ALL',
  measured: 300,
  threshold: 300,
  thresholdMember: 'dailyRelativeProfitTarget',
  currency: 'USD',
  at: '2026-01-07T15:00:00.000Z',
  message: 'Profit target locked',
};
const locked: ProtectionEvent[] = [
  { type: 'ProtectionTriggered', data: trigger },
  { type: 'ProtectionPositionsClosed', data: { accountId, triggerId: 'T1', ruleId: 'R1', closedPositions: ['1'], cancelledOrders: [], at: trigger.at } },
];
const item = { accountId, triggerId: 'T1', positionId: '7', kind: 'position' as const, symbol: 'US500', volume: 0.2, outside: true };
const decision = { ...item, ruleId: 'R1', ruleType: 'FeatureDailyProfitTargetDTO', until: trigger.until };
const decided: ProtectionEvent = { type: 'ProtectionLockedCloseDecided', data: { ...decision, requestId: 'req-7', at } };
const record = (outcome: LockedCloseOutcome) => ({
  type: 'RecordLockedClose' as const,
  data: { accountId, triggerId: 'T1', positionId: '7', outcome },
  metadata,
});

describe('closes while a profit target locks the account', () => {
  it('are decided before the close, with the request id every attempt sends, once per position', () => {
    given(locked)
      .when({ type: 'DecideLockedClose', data: { ...item, requestId: 'req-7' }, metadata })
      .then([decided]);
    given([...locked, decided])
      .when({ type: 'DecideLockedClose', data: { ...item, requestId: 'req-7' }, metadata })
      .then([]);
    // Not for a trigger whose own closing is not done, nor for a risk limit.
    given(locked.slice(0, 1))
      .when({ type: 'DecideLockedClose', data: { ...item, requestId: 'req-7' }, metadata })
      .then([]);
  });

  it('record the outcome once: a repeat after a restart records nothing more', () => {
    const closed: ProtectionEvent = { type: 'ProtectionLockedPositionClosed', data: { ...decision, at } };
    given([...locked, decided])
      .when(record({ type: 'closed' }))
      .then([closed]);
    given([...locked, decided, closed])
      .when(record({ type: 'closed' }))
      .then([]);
    given([...locked, decided])
      .when(record({ type: 'gone' }))
      .then([{ type: 'ProtectionLockedPositionClosed', data: { ...decision, gone: true, at } }]);
  });

  it('are finished when the lock ends before they are (a crash between the close and its record): done, gone, or a final refusal', () => {
    const cleared: ProtectionEvent = { type: 'ProtectionCleared', data: { accountId, ruleId: 'R1', triggerIds: ['T1'], reason: 'NEXT_PERIOD', at } };
    const reset: ProtectionEvent = {
      type: 'ProtectionReset',
      data: { accountId, ruleId: 'R1', ruleKind: 'PROFIT_TARGET', reason: 'API', at, message: 'reset' },
    };
    const removed: ProtectionEvent = { type: 'ProtectionCleared', data: { accountId, ruleId: 'R1', triggerIds: ['T1'], reason: 'RULE_REMOVED', at } };
    for (const ended of [cleared, reset, removed]) {
      // The close sent before the crash: the broker answers the same request id with its first result.
      given([...locked, decided, ended])
        .when(record({ type: 'closed' }))
        .then([{ type: 'ProtectionLockedPositionClosed', data: { ...decision, at } }]);
      given([...locked, decided, ended])
        .when(record({ type: 'gone' }))
        .then([{ type: 'ProtectionLockedPositionClosed', data: { ...decision, gone: true, at } }]);
      const final: ProtectionEvent = {
        type: 'ProtectionCloseFailed',
        data: { accountId, triggerId: 'T1', ruleId: 'R1', positionId: '7', code: '[MARKET_CLOSED]', message: 'the market of US500 is closed', final: true, at },
      };
      given([...locked, decided, ended])
        .when(record({ type: 'failed', code: '[MARKET_CLOSED]', message: 'the market of US500 is closed' }))
        .then([final]);
      // Recorded once: the refusal after the lock is the decision's last word, nothing is sent or recorded again.
      given([...locked, decided, ended, final])
        .when(record({ type: 'closed' }))
        .then([]);
      expect(
        protectionDecider.evolve([...locked, decided, ended, final].reduce(protectionDecider.evolve, protectionDecider.initialState), final).lockedCloses,
      ).to.deep.equal({});
    }
    // Refused while locked (logged once), then the lock ended: the same refusal again is recorded, final.
    const whileLocked: ProtectionEvent = {
      type: 'ProtectionCloseFailed',
      data: { accountId, triggerId: 'T1', ruleId: 'R1', positionId: '7', code: '[MARKET_CLOSED]', message: 'closed', at },
    };
    given([...locked, decided, whileLocked, cleared])
      .when(record({ type: 'failed', code: '[MARKET_CLOSED]', message: 'closed' }))
      .then([{ type: 'ProtectionCloseFailed', data: { ...whileLocked.data, final: true } }]);
    const line = protectionLogLine({ type: 'ProtectionCloseFailed', data: { ...whileLocked.data, final: true } })!;
    expect(line.message).to.equal('Protection R1 could not close #7: closed; its lock has ended: not tried again');
  });

  it("put a refusal in the account log with the broker's reason, once per code, and keep the decision open", () => {
    const failed: ProtectionEvent = {
      type: 'ProtectionCloseFailed',
      data: { accountId, triggerId: 'T1', ruleId: 'R1', positionId: '7', code: '[MARKET_CLOSED]', message: 'the market of US500 is closed', at },
    };
    given([...locked, decided])
      .when(record({ type: 'failed', code: '[MARKET_CLOSED]', message: 'the market of US500 is closed' }))
      .then([failed]);
    given([...locked, decided, failed])
      .when(record({ type: 'failed', code: '[MARKET_CLOSED]', message: 'the market of US500 is closed' }))
      .then([]);
    given([...locked, decided, failed])
      .when(record({ type: 'closed' }))
      .then([{ type: 'ProtectionLockedPositionClosed', data: { ...decision, at } }]);
    const line = protectionLogLine(failed)!;
    expect(line).to.deep.include({ accountId, code: '[MARKET_CLOSED]', positionId: '7', category: 'PROTECTION' });
    expect(line.message).to.equal('Protection R1 could not close #7: the market of US500 is closed; trying again every second');
    expect(protectionLogLine(decided)).to.equal(null);
  });
});
