// FeatureMarginCapDTO (spec: marginCapPercentage of account balance, kind CUMULATIVE or PER_TRADE,
// behavior, leverageOverride, symbolsConfiguration). A cap on the slave's margin, in percent of its
// balance:
//   - CUMULATIVE: the account's used margin after the open (used margin now + the open's margin) may
//     not exceed the cap; PER_TRADE: the open's own margin may not.
//   - behavior REDUCE_LOT_SIZE lowers the lot to the most that fits (whole lot steps), and skips when
//     that is below the symbol's minimum; SKIP_TRADE skips an open that does not fit (MARGIN_CAP).
//   - The open's margin is the venue's margin of one lot of the slave symbol now, at the account's
//     leverage, times the lot; a pending order is measured as if it filled now.
//   - leverageOverride: every margin is taken as if the account had that leverage: the one-lot margin
//     and the used margin are scaled by account leverage / override. That holds for symbols whose
//     margin follows the leverage (forex, leveraged CFDs); for others it is an approximation.
//   - symbolsConfiguration: another percentage for a slave symbol.
//   - Without the account's figures or the margin of a lot the open is skipped: a cap that cannot be
//     measured does not let trades through.
import { type Static, Type } from '@sinclair/typebox';
import { type Decimal, exact, ONE, show, toNumber, ZERO } from '../../shared/decimal.js';
import { floorToStep } from '../rounding.js';
import { sameSymbol, symbolConfiguredTwice } from './perSymbol.js';
import { type CopierFeature, skip } from './rules.js';

const Percentage = Type.Number({ exclusiveMinimum: 0, maximum: 100, description: "percent of the slave account's balance" });

const members = Type.Object({
  marginCapPercentage: Percentage,
  kind: Type.Union([Type.Literal('CUMULATIVE'), Type.Literal('PER_TRADE')], {
    description: "CUMULATIVE (default): the account's used margin after the open; PER_TRADE: the open's own margin",
  }),
  behavior: Type.Union([Type.Literal('REDUCE_LOT_SIZE'), Type.Literal('SKIP_TRADE')], {
    description: 'an open over the cap: REDUCE_LOT_SIZE (default) opens the most that fits (skipped below the minimum lot); SKIP_TRADE skips it',
  }),
  leverageOverride: Type.Union([Type.Integer({ minimum: 0, maximum: 10_000 }), Type.Null()], {
    description: "margins computed as if the account had this leverage (1:n); null or 0 (default) = the account's leverage",
  }),
  symbolsConfiguration: Type.Array(
    Type.Object(
      { symbol: Type.String({ minLength: 1, maxLength: 64, description: 'a slave symbol' }), marginCapPercentage: Percentage },
      { additionalProperties: false },
    ),
    { maxItems: 200, description: 'another marginCapPercentage for a slave symbol' },
  ),
});
export type MarginCapSettings = Static<typeof members>;

export const marginCap: CopierFeature<MarginCapSettings> = {
  type: 'FeatureMarginCapDTO',
  scopes: ['copier'],
  multiple: false,
  members,
  defaults: { kind: 'CUMULATIVE', behavior: 'REDUCE_LOT_SIZE', leverageOverride: null, symbolsConfiguration: [] },
  description:
    "Caps the slave's margin at marginCapPercentage % of its balance (symbolsConfiguration: another percentage for a slave symbol). CUMULATIVE: the used margin after the open (used margin + lot x margin of one lot now) may not exceed the cap; PER_TRADE: the open's own margin may not. An open over the cap is reduced to the most whole lot steps that fit (REDUCE_LOT_SIZE; skipped below the minimum lot) or skipped (SKIP_TRADE); skip reason MARGIN_CAP. A pending order is measured as if it filled now. leverageOverride computes every margin as if the account had that leverage (the venue's margins scaled by account leverage / override, exact for symbols whose margin follows the leverage). Without the account's figures or the margin of a lot the open is skipped.",
  check: (s) => symbolConfiguredTwice(s.symbolsConfiguration),
  rules: {
    needs: ['margin'],
    adjustVolume: (s, volume, { slaveAccount, marginPerLot, slaveSymbol, slaveSpec }) => {
      if (!slaveAccount || marginPerLot === null)
        return skip('MARGIN_CAP', `the margin of ${slaveSymbol} or the account's figures are not available to check the margin cap`);
      const percentage = s.symbolsConfiguration.find((c) => sameSymbol(c.symbol, slaveSymbol))?.marginCapPercentage ?? s.marginCapPercentage;
      const override = s.leverageOverride !== null && s.leverageOverride > 0 && slaveAccount.leverage > 0 ? s.leverageOverride : null;
      // As if at the override, margins scale by account leverage / override. The venue's margins are
      // kept as they are and the factor is applied to the other side, so comparisons are of exact
      // products and the lot that fits is one quotient (domain/shared/decimal.ts).
      const [leverage, over] = override === null ? [ONE, ONE] : [exact(slaveAccount.leverage), exact(override)];
      const atOverride = (margin: Decimal): Decimal => margin.times(leverage).dividedBy(over);
      const perLot = exact(marginPerLot);
      if (perLot.lessThanOrEqualTo(0)) return { volume };
      const cap = exact(slaveAccount.balance).times(exact(percentage)).dividedBy(100);
      const used = s.kind === 'CUMULATIVE' ? exact(slaveAccount.usedMargin) : ZERO;
      const margin = exact(volume).times(perLot);
      if (used.plus(margin).times(leverage).lessThanOrEqualTo(cap.times(over))) return { volume };
      const what =
        `${show(volume)} lots of ${slaveSymbol} need ${show(atOverride(margin))} ${slaveAccount.currency} margin` +
        (override === null ? '' : ` at 1:${override}`) +
        (s.kind === 'CUMULATIVE' ? `, ${show(atOverride(used.plus(margin)))} with the ${show(atOverride(used))} in use,` : '') +
        ` above the cap of ${percentage} % of the balance (${show(cap)})`;
      if (s.behavior === 'SKIP_TRADE') return skip('MARGIN_CAP', what);
      // The room at the override, over the margin of one lot at the override: (cap x override - used
      // x leverage) / (per lot x leverage).
      const room = cap.times(over).minus(used.times(leverage));
      const fits = room.greaterThan(0) ? floorToStep(room.dividedBy(perLot.times(leverage)), exact(slaveSpec.lotStep)) : ZERO;
      if (fits.lessThan(exact(slaveSpec.minLot)))
        return skip('MARGIN_CAP', `${what}; the ${show(fits)} lots that fit are below the minimum ${slaveSpec.minLot}`);
      return { volume: toNumber(fits) };
    },
  },
};
