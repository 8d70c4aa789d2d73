import { expect } from 'chai';
import { fallbackSetting, type FallbackSettingSettings, withRegionNames } from '../../../../domain/copy/features/fallbackSetting.js';
import { maxLotSize } from '../../../../domain/copy/features/maxLotSize.js';
import { given, masterOpened, slaveCopy, symbolSpec } from '../given.js';

describe('feature: FeatureFallbackSettingDTO', () => {
  it('takes the reference’s allowedRegions (known region ids, each once) and noFallback, configuration only; fallbackLotSize is ours and optional', () => {
    expect(fallbackSetting.defaults).to.deep.include({ allowedRegions: [], noFallback: false });
    expect(fallbackSetting.scopes).to.deep.equal(['copier', 'account', 'project']);
    const check = (s: Partial<FallbackSettingSettings>) => fallbackSetting.check!({ ...fallbackSetting.defaults, ...s } as FallbackSettingSettings);
    expect(check({ allowedRegions: [{ id: 1 }, { id: 4 }], noFallback: true })).to.equal(null);
    expect(check({ allowedRegions: [{ id: 9 }] })).to.match(/9 is no region/);
    expect(check({ allowedRegions: [{ id: 2 }, { id: 2 }] })).to.match(/twice/);
    expect(withRegionNames({ allowedRegions: [{ id: 2 }], noFallback: false })).to.deep.equal({
      allowedRegions: [{ id: 2, name: 'London' }],
      noFallback: false,
    });
  });

  it('without fallbackLotSize lets the refusal stand, whatever the regions say', () =>
    given({ settings: tooSmall, features: [{ feature: fallbackSetting, settings: { allowedRegions: [{ id: 1 }], noFallback: true } }] })
      .when(masterOpened({ volume: 1 }))
      .thenSkips('VOLUME_BELOW_MINIMUM'));

  const fallback = (settings: Partial<FallbackSettingSettings> & { fallbackLotSize: number }) => ({ feature: fallbackSetting, settings });
  // 1 lot x 0.001 = 0.001 lots, below EURUSD's minimum of 0.01, and not raised to it (forceMinTrade false).
  const tooSmall = { multiplier: 0.001, forceMinTrade: false };

  it('opens the fallback lot when the sized lot is below the minimum', () => {
    given({ settings: tooSmall })
      .when(masterOpened({ volume: 1 }))
      .thenSkips('VOLUME_BELOW_MINIMUM');
    given({ settings: tooSmall, features: [fallback({ fallbackLotSize: 0.05 })] })
      .when(masterOpened({ volume: 1 }))
      .then([{ type: 'open', volume: 0.05 }]);
  });

  it('opens it when a ratio has no currency rate or no master funds', () => {
    given({ settings: { scaleType: 'BALANCE' }, slave: { currency: 'EUR' }, features: [fallback({ fallbackLotSize: 0.1 })] })
      .when(masterOpened({ volume: 1 }))
      .then([{ type: 'open', volume: 0.1 }]);
    given({ settings: { scaleType: 'EQUITY' }, master: { equity: 0 }, features: [fallback({ fallbackLotSize: 0.1 })] })
      .when(masterOpened({ volume: 1 }))
      .then([{ type: 'open', volume: 0.1 }]);
  });

  it('replaces only the refusals listed in reasons', () => {
    given({ settings: tooSmall, features: [fallback({ fallbackLotSize: 0.05, reasons: ['CURRENCY_RATE_MISSING'] })] })
      .when(masterOpened({ volume: 1 }))
      .thenSkips('VOLUME_BELOW_MINIMUM');
    given({ settings: { scaleType: 'FIXED_LOT', fixedLotSize: 0 }, features: [fallback({ fallbackLotSize: 0.05 })] })
      .when(masterOpened())
      .thenSkips('FIXED_LOT_SIZE_MISSING');
    given({ settings: { scaleType: 'FIXED_LOT', fixedLotSize: 0 }, features: [fallback({ fallbackLotSize: 0.05, reasons: ['FIXED_LOT_SIZE_MISSING'] })] })
      .when(masterOpened())
      .then([{ type: 'open', volume: 0.05 }]);
  });

  it('never overrides the min volume safety skip', () =>
    given({
      settings: { multiplier: 0.01, forcePositionLotSize: true, minVolumeSafetySkipThresholdMultiplier: 5 },
      slaveSymbols: [symbolSpec({ minLot: 0.1 })],
      features: [
        fallback({ fallbackLotSize: 0.1, reasons: ['VOLUME_BELOW_MINIMUM', 'CURRENCY_RATE_MISSING', 'MASTER_FUNDS_NOT_POSITIVE', 'FIXED_LOT_SIZE_MISSING'] }),
      ],
    })
      .when(masterOpened({ volume: 1 }))
      .thenSkips('MIN_VOLUME_SAFETY'));

  it("rounds the fallback lot down to the step, caps it at the copier's maxLotSize, and gives up below the minimum", () => {
    given({ settings: tooSmall, features: [fallback({ fallbackLotSize: 0.057 })] })
      .when(masterOpened({ volume: 1 }))
      .then([{ type: 'open', volume: 0.05 }]);
    given({ settings: { ...tooSmall, maxLotSize: 0.02 }, features: [fallback({ fallbackLotSize: 0.05 })] })
      .when(masterOpened({ volume: 1 }))
      .then([{ type: 'open', volume: 0.02 }]);
    given({ settings: tooSmall, features: [fallback({ fallbackLotSize: 0.005 })] })
      .when(masterOpened({ volume: 1 }))
      .thenSkips('VOLUME_BELOW_MINIMUM');
  });

  it("gives up when the fallback lot would take the copier's open lots above its maximumLot", () =>
    given({
      settings: { ...tooSmall, maximumLot: 1 },
      slave: { copies: [slaveCopy({ masterPositionId: 'm-open', volume: 0.98 })] },
      features: [fallback({ fallbackLotSize: 0.05 })],
    })
      .when(masterOpened({ volume: 1 }))
      .thenSkips('VOLUME_BELOW_MINIMUM'));

  it('the caps of a second feature apply to the fallback lot', () =>
    given({
      settings: tooSmall,
      features: [fallback({ fallbackLotSize: 0.05 }), { feature: maxLotSize, settings: { maxLotSize: 0.03, skipIfExceedsMax: true } }],
    })
      .when(masterOpened({ volume: 1 }))
      .thenSkips('MAX_LOT_SIZE_EXCEEDED'));
});
