import { martingaleStrategy, type MartingaleStrategySettings } from '../../../../domain/copy/features/martingaleStrategy.js';
import { progressiveTradeSizing } from '../../../../domain/copy/features/progressiveTradeSizing.js';
import { given, masterOpened, record } from '../given.js';
import { closedCopies } from './closedCopies.js';

describe('feature: FeatureMartingaleStrategyDTO', () => {
  const martingale = (settings: Partial<MartingaleStrategySettings> = {}) => ({ feature: martingaleStrategy, settings });
  const lotAfter = (results: readonly (number | null)[], settings: Partial<MartingaleStrategySettings> = {}, copier = {}) =>
    given({ settings: copier, features: [martingale(settings)], history: closedCopies(results) }).when(masterOpened({ volume: 1 }));

  it('opens the base lot without losses behind it', () => lotAfter([]).then([{ type: 'open', volume: 1 }]));

  it('multiplies the lot by the factor for each loss in a row: doubling by default', () => {
    lotAfter([-5]).then([{ type: 'open', volume: 2 }]);
    lotAfter([-5, -5]).then([{ type: 'open', volume: 4 }]);
    lotAfter([-5, -5], { factor: 1.5 }).then([{ type: 'open', volume: 2.25 }]);
  });

  it('a win goes back to the base lot, or one step down without resetAfterWin', () => {
    lotAfter([-5, -5, 8]).then([{ type: 'open', volume: 1 }]);
    lotAfter([-5, -5, 8], { resetAfterWin: false }).then([{ type: 'open', volume: 2 }]);
    lotAfter([8, 8], { resetAfterWin: false }).then([{ type: 'open', volume: 1 }]);
  });

  it('a loss at maxSteps starts over (RESET) or stays at the highest step (HOLD)', () => {
    lotAfter([-5, -5], { maxSteps: 2 }).then([{ type: 'open', volume: 4 }]);
    lotAfter([-5, -5, -5], { maxSteps: 2 }).then([{ type: 'open', volume: 1 }]);
    lotAfter([-5, -5, -5], { maxSteps: 2, afterMaxSteps: 'HOLD' }).then([{ type: 'open', volume: 4 }]);
  });

  it('a break-even close is ignored by default, or counts as a win or a loss', () => {
    lotAfter([-5, 0]).then([{ type: 'open', volume: 2 }]);
    lotAfter([-5, 0], { breakEven: 'WIN' }).then([{ type: 'open', volume: 1 }]);
    lotAfter([-5, 0], { breakEven: 'LOSS' }).then([{ type: 'open', volume: 4 }]);
  });

  it('a cancelled pending order is not a trade', () => lotAfter([-5, null]).then([{ type: 'open', volume: 2 }]));

  it('follows the order in which copies closed, not the one in which they opened', () => {
    // Opened loss first, win second; the win closed first, so the last close was a loss.
    const lossClosedLast = [
      record({ masterPositionId: 'm-2', openedAt: '2026-01-07T09:10:00.000Z', closedAt: '2026-01-07T09:20:00.000Z', result: 8 }),
      record({ masterPositionId: 'm-1', openedAt: '2026-01-07T09:00:00.000Z', closedAt: '2026-01-07T09:40:00.000Z', result: -5 }),
    ];
    given({ features: [martingale()], history: lossClosedLast })
      .when(masterOpened())
      .then([{ type: 'open', volume: 2 }]);
  });

  it("replaces the copier's own martingaleStrategy", () => {
    const threeLosses = { martingale: { consecutiveLosses: 3 } };
    given({ settings: { martingaleStrategy: true }, slave: threeLosses })
      .when(masterOpened({ volume: 1 }))
      .then([{ type: 'open', volume: 8 }]);
    given({ settings: { martingaleStrategy: true }, slave: threeLosses, features: [martingale()] })
      .when(masterOpened({ volume: 1 }))
      .then([{ type: 'open', volume: 1 }]);
  });

  it('perSymbol counts only the copies of the symbol being opened', () => {
    const gbpLosses = closedCopies([-5, -5], { symbol: 'GBPUSD' });
    given({ features: [martingale({ perSymbol: true })], history: gbpLosses })
      .when(masterOpened({ volume: 1 }))
      .then([{ type: 'open', volume: 1 }]);
    given({ features: [martingale()], history: gbpLosses })
      .when(masterOpened({ volume: 1 }))
      .then([{ type: 'open', volume: 4 }]);
  });

  it("multiplies every scale type's lot and stays within the copier's maxLotSize", () => {
    lotAfter([-5], {}, { scaleType: 'FIXED_LOT', fixedLotSize: 0.1 }).then([{ type: 'open', volume: 0.2 }]);
    given({ settings: { scaleType: 'NO_SCALING' }, features: [martingale()], history: closedCopies([-5]) })
      .when(masterOpened({ volume: 0.3 }))
      .then([{ type: 'open', volume: 0.6 }]);
    lotAfter([-5, -5], {}, { maxLotSize: 3 }).then([{ type: 'open', volume: 3 }]);
  });

  it('combines with progressive sizing: each multiplies the lot', () =>
    // One loss: martingale one step up (x2); progressive one level up (x2).
    given({ features: [martingale({ resetAfterWin: false }), { feature: progressiveTradeSizing, settings: {} }], history: closedCopies([-5]) })
      .when(masterOpened({ volume: 1 }))
      .then([{ type: 'open', volume: 4 }]));
});
