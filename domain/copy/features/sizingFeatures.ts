// Copier features that size the slave's lot and guard the account's risk (money management, caps):
// FeatureMultiplierDTO, FeatureMaximumLotDTO, FeatureMartingaleStrategyDTO, FeatureMasanielloDTO,
// FeatureProgressiveTradeSizingDTO, FeatureMarginCapDTO, FeatureFallbackSettingDTO. In the order the
// engine applies them:
//   1. the settings sizing reads: fixed balances, then the lot (Masaniello replaces it; martingale and
//      progressive sizing multiply whatever lot the copier or Masaniello gives);
//   2. the fallback lot when sizing refuses;
//   3. the caps on the final lot, the one that reduces first: the margin cap, then the copier's open-lot
//      maximum. (FeatureTradeGuardrailsDTO closes open positions instead: domain/tradeGuardrail.)
import { fallbackSetting } from './fallbackSetting.js';
import { marginCap } from './marginCap.js';
import { martingaleStrategy } from './martingaleStrategy.js';
import { masaniello } from './masaniello.js';
import { maximumLot } from './maximumLot.js';
import { multiplier } from './multiplier.js';
import { progressiveTradeSizing } from './progressiveTradeSizing.js';
import { type CopierFeature, erased } from './rules.js';

export const sizingFeatures: readonly CopierFeature<object>[] = [
  erased(multiplier),
  erased(masaniello),
  erased(martingaleStrategy),
  erased(progressiveTradeSizing),
  erased(fallbackSetting),
  erased(marginCap),
  erased(maximumLot),
];
