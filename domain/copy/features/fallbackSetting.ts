// FeatureFallbackSettingDTO. The reference ("fallback setting feature (account and project)"):
// `allowedRegions`, the regions an account may be moved to when an error or issue occurs (another IP
// address then; empty = all), and `noFallback`, which forbids the move. This self-hosted service runs
// every account's broker session in one place, in-process: no account is ever moved to another region,
// so both are validated (region ids of GET /types/regions), stored and returned, and change nothing.
// The spec lists the feature for copiers, the reference for accounts and projects: it attaches to a
// copier, an account (then it applies to every copier of which the account is the slave) or a project
// (every copier of the project); set at several scopes, the most specific applies (engine/copy/inputs.ts).
// Ours beside them, where the spec only named the feature: a fixed fallback lot (`fallbackLotSize`,
// optional: without it no lot falls back) for the opens the copier's sizing refuses for a reason a
// fixed lot can fix, instead of not copying them:
//   - VOLUME_BELOW_MINIMUM: the sized lot is below the slave's minimum;
//   - CURRENCY_RATE_MISSING: a ratio scale type has no rate between the two account currencies;
//   - MASTER_FUNDS_NOT_POSITIVE: a ratio scale type finds the master's balance or equity at 0 or less;
//   - FIXED_LOT_SIZE_MISSING: scale type FIXED_LOT without a fixedLotSize.
// `reasons` picks which (default the first three). Refusals a lot cannot fix (a symbol not mapped, the
// min volume safety skip, the copier's maximumLot) stand. The fallback lot is rounded down to the lot
// step and must lie within the broker's limits; it respects the copier's maxLotSize (capped at it) and
// maximumLot (no fallback when it would exceed it); the features that cap the lot apply to it after.
import { type Static, Type } from '@sinclair/typebox';
import { regions } from '../../account/enums.js';
import { exact, ZERO } from '../../shared/decimal.js';
import type { CopierFeature } from './rules.js';

export const fallbackReasons = ['VOLUME_BELOW_MINIMUM', 'CURRENCY_RATE_MISSING', 'MASTER_FUNDS_NOT_POSITIVE', 'FIXED_LOT_SIZE_MISSING'] as const;

const regionWords = regions.map((r) => `${r.id} ${r.name}`).join(', ');

const RegionDTO = Type.Object(
  {
    id: Type.Integer({ minimum: -2147483648, maximum: 2147483647, description: `the region: ${regionWords} (GET /types/regions)` }),
    name: Type.Optional(Type.String({ readOnly: true, description: "the region's name: answered, ignored when sent" })),
  },
  { additionalProperties: false, description: 'a region (RegionDTO): send {"id": n}' },
);

const members = Type.Object({
  allowedRegions: Type.Array(RegionDTO, {
    maxItems: regions.length,
    description: `the regions an account may be moved to when an error or issue occurs (another IP address then); empty (default) = all. Each region once; an unknown id gives 400 [VALIDATION_FAILED]. Answered with names. Configuration only here: this service runs every broker session in one place and never moves an account`,
  }),
  noFallback: Type.Boolean({
    description: 'true: the account is never moved to another region; default false. Configuration only here: no account is ever moved',
  }),
  fallbackLotSize: Type.Optional(
    Type.Number({
      exclusiveMinimum: 0,
      maximum: 1e6,
      description: 'ours: lots opened when sizing refuses an open for one of `reasons`; left out (default): no fallback lot, the refusal stands',
    }),
  ),
  reasons: Type.Array(Type.Union(fallbackReasons.map((r) => Type.Literal(r))), {
    minItems: 1,
    maxItems: fallbackReasons.length,
    uniqueItems: true,
    description: 'ours: the refusals of sizing the fallback lot replaces (default VOLUME_BELOW_MINIMUM, CURRENCY_RATE_MISSING, MASTER_FUNDS_NOT_POSITIVE)',
  }),
});
export type FallbackSettingSettings = Static<typeof members>;

export const fallbackSetting: CopierFeature<FallbackSettingSettings> = {
  type: 'FeatureFallbackSettingDTO',
  scopes: ['copier', 'account', 'project'],
  multiple: false,
  members,
  defaults: { allowedRegions: [], noFallback: false, reasons: ['VOLUME_BELOW_MINIMUM', 'CURRENCY_RATE_MISSING', 'MASTER_FUNDS_NOT_POSITIVE'] },
  description:
    "The reference's region fallback: allowedRegions (empty = all) are the regions an account may be moved to when an error occurs, noFallback forbids the move. Configuration only on this self-hosted service, which runs every broker session in one place and never moves an account: both are validated, stored and returned and change no behaviour. Ours beside them: a fixed lot for opens the copier's sizing refuses for a reason a fixed lot can fix: VOLUME_BELOW_MINIMUM (sized below the slave's minimum), CURRENCY_RATE_MISSING (no rate between the account currencies for a ratio scale type), MASTER_FUNDS_NOT_POSITIVE (master balance or equity 0 or less for a ratio scale type), FIXED_LOT_SIZE_MISSING (scale type 3 without a fixedLotSize above 0); `reasons` picks which. Instead of skipping, fallbackLotSize is opened: rounded down to the lot step, capped at the copier's maxLotSize, and only within the broker's limits and the copier's maximumLot; caps of other features apply after. Other refusals stand. Without fallbackLotSize (default) no lot falls back. On an account, it applies to every copier of which the account is the slave; on a project (the reference: 'applied to all accounts within that project'), to every copier of the project. Set at several scopes, the most specific applies to a copier: its own, else its slave account's, else the project's.",
  check: (s) => {
    const ids = s.allowedRegions.map((r) => r.id);
    const unknown = ids.find((id) => !regions.some((r) => r.id === id));
    if (unknown !== undefined) return `allowedRegions: ${unknown} is no region (GET /types/regions)`;
    if (new Set(ids).size !== ids.length) return 'allowedRegions: a region is named twice';
    return null;
  },
  rules: {
    fallback: (s, refusal, { copier, copies }) => {
      if (s.fallbackLotSize === undefined || !(s.reasons as readonly string[]).includes(refusal.reason)) return null;
      const volume = copier.maxLotSize > 0 ? Math.min(s.fallbackLotSize, copier.maxLotSize) : s.fallbackLotSize;
      if (copier.maximumLot > 0) {
        const open = copies.reduce((sum, copy) => sum.plus(exact(copy.volume)), ZERO);
        if (open.plus(exact(volume)).greaterThan(exact(copier.maximumLot))) return null;
      }
      return { volume };
    },
  },
};

/** The setting as answered: allowedRegions as RegionDTO {id, name}. */
export const withRegionNames = <S extends object>(setting: S & { allowedRegions?: unknown }): S =>
  Array.isArray(setting.allowedRegions)
    ? {
        ...setting,
        allowedRegions: (setting.allowedRegions as { id: number }[]).map(({ id }) => ({ id, name: regions.find((r) => r.id === id)?.name ?? String(id) })),
      }
    : setting;
