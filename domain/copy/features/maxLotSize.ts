// FeatureMaxLotSizeDTO (reference: maxLotSize, skipIfExceedsMax, checkMasterLotSize, symbolsConfiguration).
// The copier's maxLotSize caps the slave lot; this feature sets the cap and how it acts: skipIfExceedsMax
// skips a trade over the cap instead of reducing it, and with it checkMasterLotSize compares the master's
// lot with the cap instead of the slave's (the reference: "only active when skipIfExceedsMax is true";
// without it the slave lot is reduced to the cap as usual). symbolsConfiguration gives a slave symbol its
// own members (perSymbol.ts): EURUSD {maxLotSize: 1} caps EURUSD copies at 1 lot.
import { type Static, Type } from '@sinclair/typebox';
import type { CopierSettings } from '../../copier/settings.js';
import { exact, show } from '../../shared/decimal.js';
import { checkSymbolsConfiguration, perSymbolRules, withSymbolsConfiguration } from './perSymbol.js';
import { type CopierFeature, skip } from './rules.js';

const general = Type.Object({
  maxLotSize: Type.Number({
    minimum: 0,
    maximum: 1e6,
    description: "lots: the cap (replaces the copier's maxLotSize while the feature exists); default 0 = deactivated (the copier's own maxLotSize applies)",
  }),
  skipIfExceedsMax: Type.Boolean({
    description: 'true: a trade over the cap is not copied (MAX_LOT_SIZE_EXCEEDED); false (default): it is reduced to the cap',
  }),
  checkMasterLotSize: Type.Boolean({
    description:
      "true: the master's lot is compared with the cap instead of the slave's calculated lot; only with skipIfExceedsMax (the reference), ignored otherwise. Default false",
  }),
});
type General = Static<typeof general>;
const members = withSymbolsConfiguration(general, 'The max lot size per symbol: e.g. {"EURUSD": {"maxLotSize": 1}}.');
export type MaxLotSizeSettings = Static<typeof members>;

/** Skipping needs the uncapped lot, measured on the master's side or the slave's. */
const skipping = (s: General): boolean => s.maxLotSize > 0 && s.skipIfExceedsMax;

export const maxLotSize: CopierFeature<MaxLotSizeSettings> = {
  type: 'FeatureMaxLotSizeDTO',
  scopes: ['copier'],
  multiple: false,
  members,
  defaults: { maxLotSize: 0, skipIfExceedsMax: false, checkMasterLotSize: false, symbolsConfiguration: {} },
  description:
    "A cap on the lot of each copy: maxLotSize replaces the copier's maxLotSize (0, the default: the feature is deactivated and the copier's own maxLotSize applies). A slave lot over the cap is reduced to it; with skipIfExceedsMax the trade is skipped instead (MAX_LOT_SIZE_EXCEEDED), and with checkMasterLotSize as well the master's lot is measured against the cap rather than the slave's. symbolsConfiguration gives a slave symbol its own members (maxLotSize 0 there: the copier's own maxLotSize applies to that symbol).",
  check: (s) => checkSymbolsConfiguration(s),
  rules: perSymbolRules<General>({
    filterOpen: (s, { trade }) =>
      skipping(s) && s.checkMasterLotSize && exact(trade.volume).greaterThan(exact(s.maxLotSize))
        ? skip('MAX_LOT_SIZE_EXCEEDED', `the master lot ${show(exact(trade.volume))} is above the maximum lot size ${s.maxLotSize}`)
        : null,
    // Reducing to the cap is the sizing's maxLotSize step; skipping instead needs the uncapped lot.
    sizing: (s, copier): CopierSettings => (s.maxLotSize > 0 ? { ...copier, maxLotSize: skipping(s) ? 0 : s.maxLotSize } : copier),
    adjustVolume: (s, volume) => {
      if (!skipping(s) || s.checkMasterLotSize || exact(volume).lessThanOrEqualTo(exact(s.maxLotSize))) return { volume };
      return skip('MAX_LOT_SIZE_EXCEEDED', `the slave lot ${show(exact(volume))} is above the maximum lot size ${s.maxLotSize}`);
    },
  }),
};
