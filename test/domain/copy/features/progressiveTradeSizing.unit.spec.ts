import { maxLotSize } from '../../../../domain/copy/features/maxLotSize.js';
import { progressiveTradeSizing, type ProgressiveTradeSizingSettings } from '../../../../domain/copy/features/progressiveTradeSizing.js';
import { given, masterOpened } from '../given.js';
import { closedCopies } from './closedCopies.js';

describe('feature: FeatureProgressiveTradeSizingDTO', () => {
  const progressive = (settings: Partial<ProgressiveTradeSizingSettings> = {}) => ({ feature: progressiveTradeSizing, settings });
  const lotAfter = (results: readonly (number | null)[], settings: Partial<ProgressiveTradeSizingSettings> = {}) =>
    given({ features: [progressive(settings)], history: closedCopies(results) }).when(masterOpened({ volume: 1 }));

  it('opens the base lot with nothing won behind it', () => {
    lotAfter([]).then([{ type: 'open', volume: 1 }]);
    lotAfter([-5]).then([{ type: 'open', volume: 1 }]);
  });

  it('raises the lot by the factor after a profitable copy', () => {
    lotAfter([5]).then([{ type: 'open', volume: 2 }]);
    lotAfter([5], { factor: 1.5 }).then([{ type: 'open', volume: 1.5 }]);
  });

  it('with one cycle (the default) a profitable copy at the elevated level sends the lot back to base', () => {
    lotAfter([5, 5]).then([{ type: 'open', volume: 1 }]);
    lotAfter([5, 5, 5]).then([{ type: 'open', volume: 2 }]);
  });

  it('stays elevated for `cycles` profitable copies, then resets', () => {
    lotAfter([5, 5, 5], { cycles: 3 }).then([{ type: 'open', volume: 2 }]);
    lotAfter([5, 5, 5, 5], { cycles: 3 }).then([{ type: 'open', volume: 1 }]);
  });

  it('a losing copy resets at once; a close at exactly 0 or a cancelled order changes nothing', () => {
    lotAfter([5, -1]).then([{ type: 'open', volume: 1 }]);
    lotAfter([5, 0, null]).then([{ type: 'open', volume: 2 }]);
  });

  it("the elevated lot stays within a second feature's cap", () =>
    given({ features: [progressive(), { feature: maxLotSize, settings: { maxLotSize: 1.5 } }], history: closedCopies([5]) })
      .when(masterOpened({ volume: 1 }))
      .then([{ type: 'open', volume: 1.5 }]));
});
