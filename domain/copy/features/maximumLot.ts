// FeatureMaximumLotDTO (reference: maximumLot, symbolsConfiguration; reduceToFit is ours). maximumLot
// replaces the copier's maximumLot, the cap on the lots of this copier's open copies (positions and
// pending orders) on the slave. An open that would bring them above it is skipped (MAXIMUM_LOT_REACHED),
// or with reduceToFit opened with what still fits when that is at least the symbol's minimum. The check
// runs on the final lot, after money management, the fallback lot and the margin cap, so none of them
// can pass the cap.
// symbolsConfiguration (perSymbol.ts) gives a slave symbol its own cap on the copier's open lots on that
// symbol ("the maximum lot size per symbol"); the general cap still counts the open lots on every
// symbol, as the reference says of the open-position count (FeatureMaxOpenPositionsDTO). A symbol's
// maximumLot 0: no cap of its own. With the general maximumLot 0 the copier's own maximumLot stays the
// cap over all symbols.
import { type Static, Type } from '@sinclair/typebox';
import type { CopierSettings } from '../../copier/settings.js';
import { exact, show, toNumber, ZERO } from '../../shared/decimal.js';
import { floorToStep } from '../rounding.js';
import { checkSymbolsConfiguration, configuredSymbol, sameSymbol, settingsFor, withSymbolsConfiguration } from './perSymbol.js';
import { type CopierFeature, skip } from './rules.js';

const general = Type.Object({
  maximumLot: Type.Number({
    minimum: 0,
    maximum: 1e6,
    description:
      "lots: the most this copier's open copies may hold together (replaces the copier's maximumLot); default 0 = deactivated (the copier's own maximumLot applies)",
  }),
  reduceToFit: Type.Boolean({
    description:
      'ours: false (default): an open that would exceed maximumLot is skipped; true: it opens with the lots that still fit, if at least the minimum lot',
  }),
});
const members = withSymbolsConfiguration(
  general,
  'The maximum lot per symbol: e.g. {"EURUSD": {"maximumLot": 1}} caps the lots this copier holds open on EURUSD at 1, while the general maximumLot still caps the open lots on all symbols together; 0 there: no cap of its own.',
);
export type MaximumLotSettings = Static<typeof members>;

export const maximumLot: CopierFeature<MaximumLotSettings> = {
  type: 'FeatureMaximumLotDTO',
  scopes: ['copier'],
  multiple: false,
  members,
  defaults: { maximumLot: 0, reduceToFit: false, symbolsConfiguration: {} },
  description:
    "A cap on the lots this copier holds open on the slave (positions and pending orders together): maximumLot replaces the copier's maximumLot (0, the default: the feature is deactivated and the copier's own maximumLot applies). An open that would bring the open lots above it is skipped (MAXIMUM_LOT_REACHED); with reduceToFit it opens with the lots that still fit, rounded down to the lot step, and is skipped when that is below the symbol's minimum. Checked on the final lot, after money management, the fallback lot and the margin cap. symbolsConfiguration caps the open lots on one slave symbol as well (its reduceToFit applies to its trades).",
  check: (s) => checkSymbolsConfiguration(s),
  rules: {
    // The feature checks the final lot itself (adjustVolume); sizing must not check it a second time.
    sizing: (s, copier): CopierSettings => (s.maximumLot > 0 ? { ...copier, maximumLot: 0 } : copier),
    adjustVolume: (s, sized, { copies, slaveSpec, slaveSymbol }) => {
      const own = settingsFor(s, slaveSymbol);
      const caps = [{ cap: s.maximumLot, copies, where: "this copier's open lots" }];
      if (configuredSymbol(s, slaveSymbol) !== null) {
        caps.push({ cap: own.maximumLot, copies: copies.filter((c) => sameSymbol(c.symbol, slaveSymbol)), where: `this copier's open lots on ${slaveSymbol}` });
      }
      let volume = sized;
      for (const { cap: limit, copies: counted, where } of caps) {
        if (!(limit > 0)) continue;
        const open = counted.reduce((sum, copy) => sum.plus(exact(copy.volume)), ZERO);
        const total = open.plus(exact(volume));
        const cap = exact(limit);
        if (total.lessThanOrEqualTo(cap)) continue;
        const room = open.greaterThanOrEqualTo(cap) ? ZERO : floorToStep(cap.minus(open), exact(slaveSpec.lotStep));
        if (own.reduceToFit && room.greaterThanOrEqualTo(exact(slaveSpec.minLot))) {
          volume = toNumber(room);
          continue;
        }
        return skip(
          'MAXIMUM_LOT_REACHED',
          `opening ${show(volume)} lots would bring ${where} to ${show(total)}, above its maximum ${limit}` +
            (own.reduceToFit ? `; the ${show(room)} lots that fit are below the minimum ${slaveSpec.minLot} of ${slaveSpec.symbol}` : ''),
        );
      }
      return { volume };
    },
  },
};
