import { exitSignalOverride } from '../../../../domain/copy/features/exitSignalOverride.js';
import type { AccountPosition } from '../../../../domain/copy/features/rules.js';
import { tpSlManagement } from '../../../../domain/copy/features/tpSlManagement.js';
import { given, masterClosed, masterModified, masterPartiallyClosed, masterPendingCancelled, NOW, SLAVE_POSITION, slaveCopy } from '../given.js';

describe('feature: FeatureExitSignalOverrideDTO', () => {
  const override = (settings: Record<string, unknown> = {}) => ({ feature: exitSignalOverride, settings });
  const copy = { copies: [slaveCopy()] };
  /** The slave's copy at its venue, with these stops. */
  const atVenue = (stopLoss: number | null, takeProfit: number | null): AccountPosition[] => [
    { positionId: SLAVE_POSITION, symbol: 'EURUSD', side: 'Buy', volume: 1, openPrice: 1.1, stopLoss, takeProfit, result: 0 },
  ];
  const withStops = { slave: copy, slavePositions: atVenue(1.095, 1.11) };
  const seconds = (n: number) => new Date(Date.parse(NOW) + n * 1000).toISOString();

  it("holds the master's close back ignoreForSeconds (default 5) after the master closed, when the copy has both stops", () =>
    given({ features: [override()], ...withStops, eventTime: NOW })
      .when(masterClosed())
      .then([{ type: 'defer', until: seconds(5), by: 'FeatureExitSignalOverrideDTO' }]));

  it('copies the close once ignoreForSeconds have passed since the master closed', () =>
    given({ features: [override({ ignoreForSeconds: 30 })], ...withStops, eventTime: seconds(-30), deferredBy: ['FeatureExitSignalOverrideDTO'] })
      .when(masterClosed())
      .then([{ type: 'close', slavePositionId: SLAVE_POSITION }]));

  it('ignoreForSeconds 0 ignores the exit signal for good: the copy stays open', () =>
    given({ features: [override({ ignoreForSeconds: 0 })], ...withStops })
      .when(masterClosed())
      .thenSkips('EXIT_SIGNAL_OVERRIDDEN', /the master's close is ignored \(exit signal override\); the copy stays open/));

  it('holds a partial close back alike', () => {
    given({ features: [override({ ignoreForSeconds: 10 })], ...withStops, eventTime: NOW })
      .when(masterPartiallyClosed(0.5, 0.5))
      .then([{ type: 'defer', until: seconds(10) }]);
    given({ features: [override({ ignoreForSeconds: 0 })], ...withStops })
      .when(masterPartiallyClosed(0.5, 0.5))
      .thenSkips('EXIT_SIGNAL_OVERRIDDEN', /partial close/);
  });

  it('with onlyIfTpSlAreSet (default) a copy without a stop loss or a take profit closes with the master at once', () => {
    for (const [stopLoss, takeProfit] of [
      [null, 1.11],
      [1.095, null],
      [0, 0],
    ] as const) {
      given({ features: [override({ ignoreForSeconds: 0 })], slave: copy, slavePositions: atVenue(stopLoss, takeProfit) })
        .when(masterClosed())
        .then([{ type: 'close' }]);
    }
    // Its stops unknown (the venue did not answer): nothing says both are set.
    given({ features: [override({ ignoreForSeconds: 0 })], slave: copy, slavePositions: null })
      .when(masterClosed())
      .then([{ type: 'close' }]);
  });

  it('with onlyIfTpSlAreSet false a copy without stops is held back too', () =>
    given({ features: [override({ ignoreForSeconds: 0, onlyIfTpSlAreSet: false })], slave: copy, slavePositions: atVenue(null, null) })
      .when(masterClosed())
      .thenSkips('EXIT_SIGNAL_OVERRIDDEN'));

  it('still cancels a slave pending order whose master order is gone, and copies stop changes', () => {
    const pending = { copies: [slaveCopy({ kind: 'pendingOrder', orderType: 'BuyLimit' })] };
    given({ features: [override({ ignoreForSeconds: 0 })], slave: pending })
      .when(masterPendingCancelled())
      .then([{ type: 'cancel' }]);
    given({ features: [override({ ignoreForSeconds: 0 })], ...withStops })
      .when(masterModified(1.09, 1.12))
      .then([{ type: 'modify', stopLoss: 1.09 }]);
  });

  it('with lockTpSl beside it, the copy neither closes nor follows the stops: it is left to itself', () => {
    const both = [override({ ignoreForSeconds: 0 }), { feature: tpSlManagement, settings: { lockTpSl: true } }];
    given({ features: both, ...withStops })
      .when(masterClosed())
      .thenSkips('EXIT_SIGNAL_OVERRIDDEN');
    given({ features: both, ...withStops })
      .when(masterModified(1.09, 1.12))
      .thenSkips('TP_SL_LOCKED');
  });
});
