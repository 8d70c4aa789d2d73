import { expect } from 'chai';
import { signalFollower, type SignalFollowerSettings } from '../../../../domain/copy/features/signalFollower.js';
import { tradeGuardrails } from '../../../../domain/copy/features/tradeGuardrails.js';
import { given, masterOpened, symbolSpec } from '../given.js';

describe('feature: FeatureSignalFollowerDTO', () => {
  const follower = (settings: Partial<SignalFollowerSettings>) => ({ feature: signalFollower, settings });
  // Forcing 0.01 lots up to the slave's 0.1 multiplies the lot by 10, at or above the threshold 5.
  const forcedTenfold = {
    settings: { multiplier: 0.01, forcePositionLotSize: true, minVolumeSafetySkipThresholdMultiplier: 5 },
    slaveSymbols: [symbolSpec({ minLot: 0.1 })],
  };

  it("monitorOnly makes the account's copiers monitor-only: nothing placed, the log says what would have been", () => {
    const skip = given({ features: [follower({ monitorOnly: true })] })
      .when(masterOpened({ volume: 0.4 }))
      .thenSkips('MONITOR_ONLY', /would have: open Buy 0\.4 EURUSD/);
    expect(skip.wouldHave).to.have.length(1);
  });

  it('changes nothing with both members false', () =>
    given({ ...forcedTenfold, features: [follower({})] })
      .when(masterOpened({ volume: 1 }))
      .thenSkips('MIN_VOLUME_SAFETY'));

  it('disableMinVolumeSafetySkip switches the min volume safety skip off: the lot is forced to the minimum', () =>
    given({ ...forcedTenfold, features: [follower({ disableMinVolumeSafetySkip: true })] })
      .when(masterOpened({ volume: 1 }))
      .then([{ type: 'open', volume: 0.1 }]));

  it("a monitor-only follower still reports another feature's skip as that skip", () =>
    given({ features: [follower({ monitorOnly: true }), { feature: tradeGuardrails, settings: { maxLotSizeThreshold: 0.1 } }] })
      .when(masterOpened({ volume: 0.4 }))
      .thenSkips('GUARDRAIL'));

  it('attaches to an account only', () => expect(signalFollower.scopes).to.deep.equal(['account']));
});
