import { maxLotSize } from '../../../../domain/copy/features/maxLotSize.js';
import { progressiveTradeSizing, type ProgressiveTradeSizingSettings } from '../../../../domain/copy/features/progressiveTradeSizing.js';
import { given, masterOpened, record } from '../given.js';
import { closedCopies } from './closedCopies.js';

describe('feature: FeatureProgressiveTradeSizingDTO', () => {
  const progressive = (settings: Partial<ProgressiveTradeSizingSettings> = {}) => ({ feature: progressiveTradeSizing, settings });
  /** The lot of the next copy after copies closed with these net results (the slave's balance 10,000). */
  const lotAfter = (results: readonly (number | null)[], settings: Partial<ProgressiveTradeSizingSettings> = {}) =>
    given({ features: [progressive(settings)], history: closedCopies(results) }).when(masterOpened({ volume: 1 }));

  it('opens the base lot with no loss behind it', () => {
    lotAfter([]).then([{ type: 'open', volume: 1 }]);
    lotAfter([5]).then([{ type: 'open', volume: 1 }]);
  });

  it('multiplies the lot after a loss (default multiplier 2), again after each further loss', () => {
    lotAfter([-5]).then([{ type: 'open', volume: 2 }]);
    lotAfter([-5, -5]).then([{ type: 'open', volume: 4 }]);
    lotAfter([-5], { multiplier: 1.5 }).then([{ type: 'open', volume: 1.5 }]);
    lotAfter([-5], { multiplier: 0.5 }).then([{ type: 'open', volume: 0.5 }]);
  });

  it('raises the lot at most limitLevels times (default 3) in a row', () => {
    lotAfter([-5, -5, -5, -5, -5]).then([{ type: 'open', volume: 8 }]);
    lotAfter([-5, -5, -5], { limitLevels: 1 }).then([{ type: 'open', volume: 2 }]);
  });

  it('counts only losses greater than lastLossGreaterThanInPercentage of the balance', () => {
    // 1 % of 10,000 is 100: a loss of 100 is not greater, one of 100.01 is.
    lotAfter([-100], { lastLossGreaterThanInPercentage: 1 }).then([{ type: 'open', volume: 1 }]);
    lotAfter([-100.01], { lastLossGreaterThanInPercentage: 1 }).then([{ type: 'open', volume: 2 }]);
    // A smaller loss or a close at exactly 0 changes nothing; a cancelled order is no trade.
    lotAfter([-500, -50, 0, null], { lastLossGreaterThanInPercentage: 1 }).then([{ type: 'open', volume: 2 }]);
  });

  it('with one cycle (the default) a profitable copy at the raised level sends the lot back to base', () => {
    lotAfter([-5, 5]).then([{ type: 'open', volume: 1 }]);
    lotAfter([-5, -5, 5, -5]).then([{ type: 'open', volume: 2 }]);
  });

  it('stays raised for `cycles` profitable copies in a row, then resets', () => {
    lotAfter([-5, 5, 5], { cycles: 3 }).then([{ type: 'open', volume: 2 }]);
    lotAfter([-5, 5, 5, 5], { cycles: 3 }).then([{ type: 'open', volume: 1 }]);
    // A loss in between raises again and starts the count over.
    lotAfter([-5, 5, 5, -5, 5, 5], { cycles: 3 }).then([{ type: 'open', volume: 4 }]);
  });

  it('looks back only at copies opened in the last lookBackInDays days (default 5)', () => {
    const old = record({
      masterPositionId: 'm-old',
      slavePositionId: 's-old',
      openedAt: '2026-01-01T09:00:00.000Z',
      closedAt: '2026-01-01T10:00:00.000Z',
      result: -50,
    });
    const recent = record({
      masterPositionId: 'm-new',
      slavePositionId: 's-new',
      openedAt: '2026-01-06T09:00:00.000Z',
      closedAt: '2026-01-06T10:00:00.000Z',
      result: -50,
    });
    given({ features: [progressive()], history: [recent, old] })
      .when(masterOpened({ volume: 1 }))
      .then([{ type: 'open', volume: 2 }]);
    given({ features: [progressive({ lookBackInDays: 7 })], history: [recent, old] })
      .when(masterOpened({ volume: 1 }))
      .then([{ type: 'open', volume: 4 }]);
  });

  it("the raised lot stays within a second feature's cap", () =>
    given({ features: [progressive(), { feature: maxLotSize, settings: { maxLotSize: 1.5 } }], history: closedCopies([-5]) })
      .when(masterOpened({ volume: 1 }))
      .then([{ type: 'open', volume: 1.5 }]));
});
