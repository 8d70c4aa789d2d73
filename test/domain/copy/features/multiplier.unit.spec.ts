import { maxLotSize } from '../../../../domain/copy/features/maxLotSize.js';
import { multiplier } from '../../../../domain/copy/features/multiplier.js';
import { given, masterOpened } from '../given.js';

describe('feature: FeatureMultiplierDTO', () => {
  const fixed = (settings: { fixMasterBalanceAndEquity?: number; fixSlaveBalanceAndEquity?: number }) => ({ feature: multiplier, settings });
  const ratio = { scaleType: 'BALANCE' as const };

  it("sizes a balance ratio with the slave's fixed balance instead of its live one", () =>
    given({ settings: ratio, features: [fixed({ fixSlaveBalanceAndEquity: 20_000 })] })
      .when(masterOpened({ volume: 1 }))
      .then([{ type: 'open', volume: 2 }]));

  it('fixes both sides at once, for the equity ratio too', () =>
    given({
      settings: { scaleType: 'EQUITY' },
      master: { equity: 50_000 },
      features: [fixed({ fixMasterBalanceAndEquity: 20_000, fixSlaveBalanceAndEquity: 5_000 })],
    })
      .when(masterOpened({ volume: 1 }))
      .then([{ type: 'open', volume: 0.25 }]));

  it("replaces the copier's own members, 0 included: 0 means the live figures", () => {
    // The copier alone would size with its fixed master balance of 5,000: 2 lots.
    given({ settings: { ...ratio, fixMasterBalanceAndEquity: 5_000 } })
      .when(masterOpened({ volume: 1 }))
      .then([{ type: 'open', volume: 2 }]);
    given({ settings: { ...ratio, fixMasterBalanceAndEquity: 5_000 }, features: [fixed({})] })
      .when(masterOpened({ volume: 1 }))
      .then([{ type: 'open', volume: 1 }]);
  });

  it('leaves the scale types without a ratio alone', () =>
    given({ settings: { multiplier: 1.5 }, features: [fixed({ fixSlaveBalanceAndEquity: 100_000 })] })
      .when(masterOpened({ volume: 1 }))
      .then([{ type: 'open', volume: 1.5 }]));

  it('gives its lot to the caps of a second feature', () =>
    given({ settings: ratio, features: [fixed({ fixSlaveBalanceAndEquity: 30_000 }), { feature: maxLotSize, settings: { maxLotSize: 2.5 } }] })
      .when(masterOpened({ volume: 1 }))
      .then([{ type: 'open', volume: 2.5 }]));
});
