// FeatureMaxLotSizeDTO (spec: skipIfExceedsMax, checkMasterLotSize). The copier's maxLotSize caps the
// slave lot; this feature sets the cap and how it acts: skipIfExceedsMax skips a trade over the cap
// instead of reducing it, and checkMasterLotSize compares the master's lot with the cap instead of
// the slave's.
import { type Static, Type } from '@sinclair/typebox';
import type { CopierSettings } from '../../copier/settings.js';
import { exact, show } from '../../shared/decimal.js';
import { type CopierFeature, skip } from './rules.js';

const members = Type.Object({
  maxLotSize: Type.Number({
    minimum: 0,
    maximum: 1e6,
    description: "lots: the cap (replaces the copier's maxLotSize while the feature exists); default 0 = deactivated (the copier's own maxLotSize applies)",
  }),
  skipIfExceedsMax: Type.Boolean({
    description: 'true: a trade over the cap is not copied (MAX_LOT_SIZE_EXCEEDED); false (default): it is reduced to the cap',
  }),
  checkMasterLotSize: Type.Boolean({ description: "true: the master's lot is compared with the cap; false (default): the slave's calculated lot" }),
});
export type MaxLotSizeSettings = Static<typeof members>;

export const maxLotSize: CopierFeature<MaxLotSizeSettings> = {
  type: 'FeatureMaxLotSizeDTO',
  scopes: ['copier'],
  multiple: false,
  members,
  defaults: { maxLotSize: 0, skipIfExceedsMax: false, checkMasterLotSize: false },
  description:
    "A cap on the lot: maxLotSize replaces the copier's maxLotSize (0, the default: the feature is deactivated and the copier's own maxLotSize applies). With skipIfExceedsMax a trade over the cap is skipped instead of reduced; with checkMasterLotSize the master's lot is measured against the cap (a master trade over it is skipped or, without skipIfExceedsMax, the slave lot is reduced to the cap).",
  rules: {
    filterOpen: (s, { trade }) =>
      s.maxLotSize > 0 && s.checkMasterLotSize && s.skipIfExceedsMax && exact(trade.volume).greaterThan(exact(s.maxLotSize))
        ? skip('MAX_LOT_SIZE_EXCEEDED', `the master lot ${show(exact(trade.volume))} is above the maximum lot size ${s.maxLotSize}`)
        : null,
    // Reducing to the cap is the sizing's maxLotSize step; skipping instead needs the uncapped lot.
    sizing: (s, copier): CopierSettings =>
      s.maxLotSize > 0 ? { ...copier, maxLotSize: s.skipIfExceedsMax || s.checkMasterLotSize ? 0 : s.maxLotSize } : copier,
    adjustVolume: (s, volume, { trade }) => {
      if (!(s.maxLotSize > 0)) return { volume };
      if (s.checkMasterLotSize) {
        return exact(trade.volume).greaterThan(exact(s.maxLotSize)) ? { volume: Math.min(volume, s.maxLotSize) } : { volume };
      }
      if (exact(volume).lessThanOrEqualTo(exact(s.maxLotSize))) return { volume };
      return s.skipIfExceedsMax
        ? skip('MAX_LOT_SIZE_EXCEEDED', `the slave lot ${show(exact(volume))} is above the maximum lot size ${s.maxLotSize}`)
        : { volume: s.maxLotSize };
    },
  },
};
