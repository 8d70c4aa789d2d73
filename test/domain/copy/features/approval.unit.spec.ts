import { expect } from 'chai';
import { approvalDecider } from '../../../../domain/approval/decider.js';
import type { ApprovalCommand } from '../../../../domain/approval/commands.js';
import { approval } from '../../../../domain/copy/features/approval.js';
import { copierFilter } from '../../../../domain/copy/features/copierFilter.js';
import { delayedExecution } from '../../../../domain/copy/features/delayedExecution.js';
import { given, masterClosed, masterOpened, masterPendingPlaced, NOW, slaveCopy, symbolSpec } from '../given.js';

describe('feature: FeatureApprovalDTO', () => {
  const TYPE = 'FeatureApprovalDTO';
  const asked = { feature: approval, settings: {} };
  const waited = { deferredBy: [TYPE], now: '2026-01-07T10:01:00.000Z' };
  const APPROVED = { decision: 'approved', volume: null } as const;
  const approvedWith = (volume: number) => ({ decision: 'approved', volume }) as const;

  it('holds a master open back for a decision until expirySeconds from now (default 300)', () => {
    given({ features: [asked] })
      .when(masterOpened())
      .then([{ type: 'defer', until: '2026-01-07T10:05:00.000Z', by: TYPE }]);
    given({ features: [{ feature: approval, settings: { expirySeconds: 10 } }] })
      .when(masterOpened())
      .then([{ type: 'defer', until: '2026-01-07T10:00:10.000Z', by: TYPE }]);
  });

  it('holds a pending order back too', () =>
    given({ features: [asked] })
      .when(masterPendingPlaced('BuyLimit', { openPrice: 1.09 }))
      .then([{ type: 'defer', by: TYPE }]));

  it('copies the open when it is decided again after an approval', () =>
    given({ features: [asked], ...waited, approval: APPROVED })
      .when(masterOpened({ volume: 0.3 }))
      .then([{ type: 'open', volume: 0.3, orderType: 'Buy' }]));

  describe('an approval with a volume override (ApprovalDTO.volume)', () => {
    it('places the copy with the chosen lot instead of the copier scaling (multiplier, fixed lot)', () => {
      given({ features: [asked], ...waited, settings: { multiplier: 3 }, approval: approvedWith(0.25) })
        .when(masterOpened({ volume: 0.3 }))
        .then([{ type: 'open', volume: 0.25, orderType: 'Buy' }]);
      given({ features: [asked], ...waited, settings: { scaleType: 'FIXED_LOT', fixedLotSize: 2 }, approval: approvedWith(0.07) })
        .when(masterOpened({ volume: 0.3 }))
        .then([{ type: 'open', volume: 0.07 }]);
    });

    it("rounds the lot down to the slave symbol's lot step and caps it at the symbol's maximum", () => {
      given({ features: [asked], ...waited, approval: approvedWith(0.379), slaveSymbols: [symbolSpec({ lotStep: 0.1, minLot: 0.1 })] })
        .when(masterOpened({ volume: 1 }))
        .then([{ type: 'open', volume: 0.3 }]);
      given({ features: [asked], ...waited, approval: approvedWith(250), slaveSymbols: [symbolSpec({ maxLot: 50 })] })
        .when(masterOpened({ volume: 1 }))
        .then([{ type: 'open', volume: 50 }]);
    });

    it("below the symbol's minimum: raised to it with forceMinTrade (the default), skipped without", () => {
      given({ features: [asked], ...waited, approval: approvedWith(0.05), slaveSymbols: [symbolSpec({ minLot: 0.1 })] })
        .when(masterOpened({ volume: 1 }))
        .then([{ type: 'open', volume: 0.1 }]);
      given({ features: [asked], ...waited, settings: { forceMinTrade: false }, approval: approvedWith(0.05), slaveSymbols: [symbolSpec({ minLot: 0.1 })] })
        .when(masterOpened({ volume: 1 }))
        .thenSkips('VOLUME_BELOW_MINIMUM', /below the minimum 0.1/);
    });

    it("keeps the copier's caps: maxLotSize caps it, maximumLot refuses what would exceed it", () => {
      given({ features: [asked], ...waited, settings: { maxLotSize: 0.5 }, approval: approvedWith(2) })
        .when(masterOpened({ volume: 0.1 }))
        .then([{ type: 'open', volume: 0.5 }]);
      given({ features: [asked], ...waited, settings: { maximumLot: 1 }, approval: approvedWith(1.5) })
        .when(masterOpened({ volume: 0.1 }))
        .thenSkips('MAXIMUM_LOT_REACHED', /above its maximum 1/);
    });
  });

  it('skips it with APPROVAL_REJECTED after a rejection', () =>
    given({ features: [asked], ...waited, approval: { decision: 'rejected', volume: null } })
      .when(masterOpened())
      .thenSkips('APPROVAL_REJECTED', /was rejected/));

  it('skips it with APPROVAL_EXPIRED when it is decided again without a decision (the wait ran out)', () =>
    given({ features: [asked], ...waited, approval: null })
      .when(masterOpened())
      .thenSkips('APPROVAL_EXPIRED', /no decision/));

  it('never holds back a close, nor asks about an open another rule refuses', () => {
    given({ features: [asked], slave: { copies: [slaveCopy()] } })
      .when(masterClosed())
      .then([{ type: 'close' }]);
    given({ features: [{ feature: copierFilter, settings: { minLotSize: 2, maxLotSize: null } }, asked] })
      .when(masterOpened({ volume: 1 }))
      .thenSkips('LOT_FILTERED');
  });

  it('a monitor-only copier asks nothing: it only says it would have waited', () => {
    const action = given({ features: [asked], settings: { monitorOnly: true } })
      .when(masterOpened())
      .thenSkips('MONITOR_ONLY');
    expect(action).to.have.nested.property('wouldHave[0].type', 'defer');
  });

  it('after another rule held the open back, asks then; an approved open is not held again by the rule it passed', () => {
    const delay = { feature: delayedExecution, settings: { minDelayOpen: 60, maxDelayOpen: 60, minDelayClose: 0, maxDelayClose: 0 } };
    given({ features: [delay, asked], eventTime: NOW })
      .when(masterOpened())
      .then([{ type: 'defer', by: 'FeatureDelayedExecutionDTO' }]);
    given({ features: [delay, asked], eventTime: NOW, now: '2026-01-07T10:01:00.000Z', deferredBy: ['FeatureDelayedExecutionDTO'] })
      .when(masterOpened())
      .then([{ type: 'defer', by: TYPE, until: '2026-01-07T10:06:00.000Z' }]);
    given({ features: [delay, asked], eventTime: NOW, now: '2026-01-07T10:02:00.000Z', deferredBy: ['FeatureDelayedExecutionDTO', TYPE], approval: APPROVED })
      .when(masterOpened())
      .then([{ type: 'open' }]);
  });
});

describe('approval decisions', () => {
  const decide = (approved: boolean, now: string, volume: number | null = null): ApprovalCommand => ({
    type: 'DecideApproval',
    data: { approvalId: 'a-1', accountId: 'acc', copierId: 'c-1', masterPositionId: 'm-1', approved, volume, expiresAt: '2026-01-07T10:05:00.000Z' },
    metadata: { now, context: { apiKeyId: null, projectId: null, clientIp: null, method: null, path: null, correlationId: 'x' } },
  });

  it('records the first decision taken before the expiry', () => {
    const events = approvalDecider.decide(decide(true, '2026-01-07T10:04:59.999Z'), approvalDecider.initialState);
    expect(events).to.deep.equal([
      {
        type: 'ApprovalDecided',
        data: { approvalId: 'a-1', accountId: 'acc', copierId: 'c-1', masterPositionId: 'm-1', approved: true, volume: null, at: '2026-01-07T10:04:59.999Z' },
      },
    ]);
  });

  it('records the volume override of an approval, and refuses one with a rejection or a lot not above 0', () => {
    const [event] = approvalDecider.decide(decide(true, NOW, 0.42), approvalDecider.initialState);
    expect(event).to.have.nested.property('data.volume', 0.42);
    expect(() => approvalDecider.decide(decide(false, NOW, 0.42), approvalDecider.initialState))
      .to.throw('only applies to an approved copy')
      .with.property('code', '[VOLUME_WITHOUT_APPROVAL]');
    expect(() => approvalDecider.decide(decide(true, NOW, -1), approvalDecider.initialState)).to.throw('not a lot above 0');
  });

  it('refuses a decision at the expiry or later with [APPROVAL_EXPIRED]', () =>
    expect(() => approvalDecider.decide(decide(true, '2026-01-07T10:05:00.000Z'), approvalDecider.initialState))
      .to.throw('expired')
      .with.property('code', '[APPROVAL_EXPIRED]'));

  it('refuses a second decision with [APPROVAL_ALREADY_DECIDED]', () => {
    const state = approvalDecider.decide(decide(false, NOW), approvalDecider.initialState).reduce(approvalDecider.evolve, approvalDecider.initialState);
    expect(state).to.deep.equal({ decided: true, approved: false });
    expect(() => approvalDecider.decide(decide(true, NOW), state))
      .to.throw('rejected already')
      .with.property('code', '[APPROVAL_ALREADY_DECIDED]');
  });
});
