// FeatureMaximumLotDTO (spec: "maximum lot"). Our reading: maximumLot replaces the copier's maximumLot,
// the cap on the lots of this copier's open copies (positions and pending orders) on the slave. An open
// that would bring them above it is skipped (MAXIMUM_LOT_REACHED), or with reduceToFit opened with what
// still fits when that is at least the symbol's minimum. The check runs on the final lot, after money
// management, the fallback lot and the margin cap, so none of them can pass the cap.
import { type Static, Type } from '@sinclair/typebox';
import type { CopierSettings } from '../../copier/settings.js';
import { exact, show, toNumber, ZERO } from '../../shared/decimal.js';
import { floorToStep } from '../rounding.js';
import { type CopierFeature, skip } from './rules.js';

const members = Type.Object({
  maximumLot: Type.Number({
    minimum: 0,
    maximum: 1e6,
    description:
      "lots: the most this copier's open copies may hold together (replaces the copier's maximumLot); default 0 = deactivated (the copier's own maximumLot applies)",
  }),
  reduceToFit: Type.Boolean({
    description: 'false (default): an open that would exceed maximumLot is skipped; true: it opens with the lots that still fit, if at least the minimum lot',
  }),
});
export type MaximumLotSettings = Static<typeof members>;

export const maximumLot: CopierFeature<MaximumLotSettings> = {
  type: 'FeatureMaximumLotDTO',
  scopes: ['copier'],
  multiple: false,
  members,
  defaults: { maximumLot: 0, reduceToFit: false },
  description:
    "A cap on the lots this copier holds open on the slave (positions and pending orders together): maximumLot replaces the copier's maximumLot (0, the default: the feature is deactivated and the copier's own maximumLot applies). An open that would bring the open lots above it is skipped (MAXIMUM_LOT_REACHED); with reduceToFit it opens with the lots that still fit, rounded down to the lot step, and is skipped when that is below the symbol's minimum. Checked on the final lot, after money management, the fallback lot and the margin cap.",
  rules: {
    // The feature checks the final lot itself (adjustVolume); sizing must not check it a second time.
    sizing: (s, copier): CopierSettings => (s.maximumLot > 0 ? { ...copier, maximumLot: 0 } : copier),
    adjustVolume: (s, volume, { copies, slaveSpec }) => {
      if (!(s.maximumLot > 0)) return { volume };
      const open = copies.reduce((sum, copy) => sum.plus(exact(copy.volume)), ZERO);
      const total = open.plus(exact(volume));
      const cap = exact(s.maximumLot);
      if (total.lessThanOrEqualTo(cap)) return { volume };
      const room = open.greaterThanOrEqualTo(cap) ? ZERO : floorToStep(cap.minus(open), exact(slaveSpec.lotStep));
      if (s.reduceToFit && room.greaterThanOrEqualTo(exact(slaveSpec.minLot))) return { volume: toNumber(room) };
      return skip(
        'MAXIMUM_LOT_REACHED',
        `opening ${show(volume)} lots would bring this copier's open lots to ${show(total)}, above its maximum ${s.maximumLot}` +
          (s.reduceToFit ? `; the ${show(room)} lots that fit are below the minimum ${slaveSpec.minLot} of ${slaveSpec.symbol}` : ''),
      );
    },
  },
};
