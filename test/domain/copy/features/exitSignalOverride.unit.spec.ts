import { expect } from 'chai';
import { exitSignalOverride } from '../../../../domain/copy/features/exitSignalOverride.js';
import { tpSlManagement } from '../../../../domain/copy/features/tpSlManagement.js';
import { given, masterClosed, masterModified, masterPartiallyClosed, masterPendingCancelled, slaveCopy } from '../given.js';

describe('feature: FeatureExitSignalOverrideDTO', () => {
  const override = (settings: Record<string, unknown> = {}) => ({ feature: exitSignalOverride, settings });
  const copy = { copies: [slaveCopy()] };

  it("does not copy the master's close: the copy stays open", () =>
    given({ features: [override()], slave: copy })
      .when(masterClosed())
      .thenSkips('EXIT_SIGNAL_OVERRIDDEN', /closes are not copied/));

  it("does not copy the master's partial close", () =>
    given({ features: [override()], slave: copy })
      .when(masterPartiallyClosed(0.5, 0.5))
      .thenSkips('EXIT_SIGNAL_OVERRIDDEN', /partial closes/));

  it('ignoreCloses false copies closes while partial closes stay ignored', () => {
    given({ features: [override({ ignoreCloses: false })], slave: copy })
      .when(masterClosed())
      .then([{ type: 'close' }]);
    given({ features: [override({ ignoreCloses: false })], slave: copy })
      .when(masterPartiallyClosed(0.5, 0.5))
      .thenSkips('EXIT_SIGNAL_OVERRIDDEN');
  });

  it('ignorePartialCloses false copies partial closes while closes stay ignored', () => {
    given({ features: [override({ ignorePartialCloses: false })], slave: copy })
      .when(masterPartiallyClosed(0.5, 0.5))
      .then([{ type: 'partialClose', volume: 0.5 }]);
    given({ features: [override({ ignorePartialCloses: false })], slave: copy })
      .when(masterClosed())
      .thenSkips('EXIT_SIGNAL_OVERRIDDEN');
  });

  it('still cancels a slave pending order whose master order is gone, and copies stop changes', () => {
    const pending = { copies: [slaveCopy({ kind: 'pendingOrder', orderType: 'BuyLimit' })] };
    given({ features: [override()], slave: pending })
      .when(masterPendingCancelled())
      .then([{ type: 'cancel' }]);
    given({ features: [override()], slave: copy })
      .when(masterModified(1.09, 1.12))
      .then([{ type: 'modify', stopLoss: 1.09 }]);
  });

  it('refuses a setting that ignores nothing', () =>
    expect(exitSignalOverride.check!({ ignoreCloses: false, ignorePartialCloses: false })).to.match(/would do nothing/));

  it('with lockTpSl beside it, the copy neither closes nor follows the stops: it is left to itself', () => {
    const both = [override(), { feature: tpSlManagement, settings: { lockTpSl: true } }];
    given({ features: both, slave: copy }).when(masterClosed()).thenSkips('EXIT_SIGNAL_OVERRIDDEN');
    given({ features: both, slave: copy }).when(masterModified(1.09, 1.12)).thenSkips('TP_SL_LOCKED');
  });
});
