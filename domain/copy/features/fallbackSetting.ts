// FeatureFallbackSettingDTO (the spec names it only). Our reading: a fixed fallback lot for the opens
// the copier's sizing refuses for a reason a fixed lot can fix, instead of not copying them:
//   - VOLUME_BELOW_MINIMUM: the sized lot is below the slave's minimum;
//   - CURRENCY_RATE_MISSING: a ratio scale type has no rate between the two account currencies;
//   - MASTER_FUNDS_NOT_POSITIVE: a ratio scale type finds the master's balance or equity at 0 or less;
//   - FIXED_LOT_SIZE_MISSING: scale type FIXED_LOT without a fixedLotSize.
// `reasons` picks which (default the first three). Refusals a lot cannot fix (a symbol not mapped, the
// min volume safety skip, the copier's maximumLot) stand. The fallback lot is rounded down to the lot
// step and must lie within the broker's limits; it respects the copier's maxLotSize (capped at it) and
// maximumLot (no fallback when it would exceed it); the features that cap the lot apply to it after.
import { type Static, Type } from '@sinclair/typebox';
import { exact, ZERO } from '../../shared/decimal.js';
import type { CopierFeature } from './rules.js';

export const fallbackReasons = ['VOLUME_BELOW_MINIMUM', 'CURRENCY_RATE_MISSING', 'MASTER_FUNDS_NOT_POSITIVE', 'FIXED_LOT_SIZE_MISSING'] as const;

const members = Type.Object({
  fallbackLotSize: Type.Number({ exclusiveMinimum: 0, maximum: 1e6, description: 'lots opened when sizing refuses an open for one of `reasons`' }),
  reasons: Type.Array(Type.Union(fallbackReasons.map((r) => Type.Literal(r))), {
    minItems: 1,
    maxItems: fallbackReasons.length,
    uniqueItems: true,
    description: 'the refusals of sizing the fallback lot replaces (default VOLUME_BELOW_MINIMUM, CURRENCY_RATE_MISSING, MASTER_FUNDS_NOT_POSITIVE)',
  }),
});
export type FallbackSettingSettings = Static<typeof members>;

export const fallbackSetting: CopierFeature<FallbackSettingSettings> = {
  type: 'FeatureFallbackSettingDTO',
  scopes: ['copier'],
  multiple: false,
  members,
  defaults: { reasons: ['VOLUME_BELOW_MINIMUM', 'CURRENCY_RATE_MISSING', 'MASTER_FUNDS_NOT_POSITIVE'] },
  description:
    "A fixed lot for opens the copier's sizing refuses for a reason a fixed lot can fix: VOLUME_BELOW_MINIMUM (sized below the slave's minimum), CURRENCY_RATE_MISSING (no rate between the account currencies for a ratio scale type), MASTER_FUNDS_NOT_POSITIVE (master balance or equity 0 or less for a ratio scale type), FIXED_LOT_SIZE_MISSING (scale type 3 without a fixedLotSize above 0); `reasons` picks which. Instead of skipping, fallbackLotSize is opened: rounded down to the lot step, capped at the copier's maxLotSize, and only within the broker's limits and the copier's maximumLot; caps of other features apply after. Other refusals stand.",
  rules: {
    fallback: (s, refusal, { copier, copies }) => {
      if (!(s.reasons as readonly string[]).includes(refusal.reason)) return null;
      const volume = copier.maxLotSize > 0 ? Math.min(s.fallbackLotSize, copier.maxLotSize) : s.fallbackLotSize;
      if (copier.maximumLot > 0) {
        const open = copies.reduce((sum, copy) => sum.plus(exact(copy.volume)), ZERO);
        if (open.plus(exact(volume)).greaterThan(exact(copier.maximumLot))) return null;
      }
      return { volume };
    },
  },
};
