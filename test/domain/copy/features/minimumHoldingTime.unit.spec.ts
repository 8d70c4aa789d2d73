import { expect } from 'chai';
import { exitSignalOverride } from '../../../../domain/copy/features/exitSignalOverride.js';
import { minimumHoldingTime } from '../../../../domain/copy/features/minimumHoldingTime.js';
import { given, MASTER_POSITION, masterClosed, masterModified, masterPartiallyClosed, record, slaveCopy } from '../given.js';

describe('feature: FeatureMinimumHoldingTimeDTO', () => {
  // NOW is 10:00:00; the copy opened at 09:59:00.
  const hold = (minimumHoldSeconds: number) => ({ feature: minimumHoldingTime, settings: { minimumHoldSeconds } });
  const copy = { copies: [slaveCopy()] };
  const opened = [
    record({
      masterPositionId: MASTER_POSITION,
      slavePositionId: 's-2002',
      openedAt: '2026-01-07T09:59:00.000Z',
      closedAt: null,
      result: null,
      closedBy: null,
    }),
  ];

  it("defers a master close until minimumHoldSeconds after the slave's copy opened", () =>
    given({ features: [hold(300)], slave: copy, history: opened })
      .when(masterClosed())
      .then([{ type: 'defer', until: '2026-01-07T10:04:00.000Z', by: 'FeatureMinimumHoldingTimeDTO' }]));

  it('defers a partial close the same way', () =>
    given({ features: [hold(300)], slave: copy, history: opened })
      .when(masterPartiallyClosed(0.5, 0.5))
      .then([{ type: 'defer', until: '2026-01-07T10:04:00.000Z' }]));

  it('copies the close once the copy is held long enough, and exactly at the boundary', () => {
    given({ features: [hold(60)], slave: copy, history: opened })
      .when(masterClosed())
      .then([{ type: 'close', slavePositionId: 's-2002' }]);
    given({ features: [hold(300)], slave: copy, history: opened, now: '2026-01-07T10:04:00.000Z', deferredBy: ['FeatureMinimumHoldingTimeDTO'] })
      .when(masterClosed())
      .then([{ type: 'close' }]);
  });

  it('holds nothing with 0 (deactivated, as the reference says); 5 seconds by default', () => {
    given({ features: [hold(0)], slave: copy, history: opened })
      .when(masterClosed())
      .then([{ type: 'close', slavePositionId: 's-2002' }]);
    expect(minimumHoldingTime.defaults).to.deep.equal({ minimumHoldSeconds: 5, symbolsConfiguration: {} });
  });

  it("holds a close by the minimumHoldSeconds of its copy's symbol in symbolsConfiguration", () => {
    const perSymbol = (symbolsConfiguration: Record<string, { minimumHoldSeconds: number }>) => ({
      feature: minimumHoldingTime,
      settings: { minimumHoldSeconds: 0, symbolsConfiguration },
    });
    given({ features: [perSymbol({ EURUSD: { minimumHoldSeconds: 300 } })], slave: copy, history: opened })
      .when(masterClosed())
      .then([{ type: 'defer', until: '2026-01-07T10:04:00.000Z' }]);
    given({ features: [perSymbol({ GBPUSD: { minimumHoldSeconds: 300 } })], slave: copy, history: opened })
      .when(masterClosed())
      .then([{ type: 'close' }]);
  });

  it('does not hold back stop changes', () =>
    given({ features: [hold(300)], slave: copy, history: opened })
      .when(masterModified(1.09, 1.12))
      .then([{ type: 'modify' }]));

  it('with an exit signal override that ignores the close beside it, the close is not copied at all rather than held back', () =>
    given({ features: [{ feature: exitSignalOverride, settings: { ignoreForSeconds: 0, onlyIfTpSlAreSet: false } }, hold(300)], slave: copy, history: opened })
      .when(masterClosed())
      .thenSkips('EXIT_SIGNAL_OVERRIDDEN'));
});
