// FeatureMultiplierDTO (reference: fixMasterBalanceAndEquity, fixSlaveBalanceAndEquity, multiplier,
// scaleType, fixedLotSize, symbolsConfiguration): how the lot is sized, for every symbol or per slave
// symbol. While the feature exists:
//   - multiplier replaces the copier's multiplier (null, the default: the copier's own). The reference
//     gives it the default 0 but the range 0.001 to 999.999; we read "not set" as null and keep its range.
//   - scaleType ({id}, ScaleTypeDTO) replaces the copier's scale type (null, the default: the copier's own);
//     fixedLotSize is the lot of scale type 3 when this feature (or the symbol's members) sets scale
//     type 3 ("only applicable when the scaleType is set to 3"); with the copier's own scale type the
//     copier's fixedLotSize stays.
//   - fixMasterBalanceAndEquity and fixSlaveBalanceAndEquity (int, default 0 = deactivated) replace the
//     copier's members of the same names, 0 included: a side above 0 is sized as if its balance and
//     equity were that amount (in that account's currency), a side at 0 with its live figures. Only the
//     ratio scale types (1 Balance, 2 Equity) read them (domain/copier/settings.ts).
//   - symbolsConfiguration gives a slave symbol its own members (perSymbol.ts): EURUSD {multiplier: 2}.
import { type Static, Type } from '@sinclair/typebox';
import { type CopierSettings, SCALE_TYPES, scaleTypeById } from '../../copier/settings.js';
import { checkSymbolsConfiguration, perSymbolRules, withSymbolsConfiguration } from './perSymbol.js';
import type { CopierFeature } from './rules.js';

const amount = (side: string) =>
  Type.Integer({
    minimum: 0,
    maximum: 1_000_000_000,
    description: `the ${side}'s balance and equity for the balance and equity ratios, in that account's currency; 0 (default) = its live figures`,
  });

const scaleTypes = SCALE_TYPES.map((t) => `${t.id}: ${t.name}`).join(', ');

const general = Type.Object({
  fixMasterBalanceAndEquity: amount('master'),
  fixSlaveBalanceAndEquity: amount('slave'),
  multiplier: Type.Optional(
    Type.Union([Type.Number({ minimum: 0.001, maximum: 999.999 }), Type.Null()], {
      description:
        "the lot factor of scale types 1, 2 and 4, in place of the copier's multiplier; left out or null (default) = the copier's own, and then left out of answers (the reference's default 0 lies outside its range 0.001 to 999.999: we read it as not set)",
    }),
  ),
  scaleType: Type.Optional(
    Type.Union(
      [
        Type.Object({
          id: Type.Integer({ minimum: -2147483648, maximum: 2147483647 }),
          name: Type.Optional(Type.String({ readOnly: true, description: 'answered by the service; ignored when sent' })),
        }),
        Type.Null(),
      ],
      {
        description: `ScaleTypeDTO, send only the id ({"id": 3}): in place of the copier's scaleType; ${scaleTypes}; left out or null (default) = the copier's own, and then left out of answers (the reference's ScaleTypeDTO is an object). An unknown id: 400 [VALIDATION_FAILED]`,
      },
    ),
  ),
  fixedLotSize: Type.Number({
    exclusiveMinimum: 0,
    maximum: 100000,
    description:
      "lots: the lot when this feature sets scaleType 3 (Fixed lot size), here or for the symbol; with the copier's own scale type the copier's fixedLotSize applies. Default 0.01",
  }),
});
type General = Static<typeof general>;
const members = withSymbolsConfiguration(general, 'The sizing per symbol: e.g. {"EURUSD": {"multiplier": 1.0}}.');
export type MultiplierSettings = Static<typeof members>;

const scaleTypeOfFeature = (s: General) => (s.scaleType == null ? null : (scaleTypeById(s.scaleType.id)?.key ?? null));

export const multiplier: CopierFeature<MultiplierSettings> = {
  type: 'FeatureMultiplierDTO',
  scopes: ['copier'],
  multiple: false,
  members,
  defaults: { fixMasterBalanceAndEquity: 0, fixSlaveBalanceAndEquity: 0, multiplier: null, scaleType: null, fixedLotSize: 0.01, symbolsConfiguration: {} },
  description:
    "How the lot is sized, for all symbols or per slave symbol (symbolsConfiguration). While the feature exists: multiplier replaces the copier's multiplier and scaleType the copier's scaleType (null, their default: the copier's own); fixedLotSize is the lot when this feature sets scaleType 3 (Fixed lot size); fixMasterBalanceAndEquity and fixSlaveBalanceAndEquity replace the copier's members of the same names (0 included): above 0, scale types 1 (Balance) and 2 (Equity) size as if that account's balance and equity were the amount (in its currency); 0 = the account's live figures. A symbol's members replace the general ones for its trades.",
  check: (s) =>
    checkSymbolsConfiguration<General>(s, (own) =>
      own.scaleType != null && !scaleTypeById(own.scaleType.id) ? `scaleType.id ${own.scaleType.id} is no scale type (${scaleTypes})` : null,
    ),
  rules: perSymbolRules<General>({
    sizing: (s, copier): CopierSettings => {
      const scaleType = scaleTypeOfFeature(s);
      return {
        ...copier,
        fixMasterBalanceAndEquity: s.fixMasterBalanceAndEquity,
        fixSlaveBalanceAndEquity: s.fixSlaveBalanceAndEquity,
        ...(s.multiplier != null ? { multiplier: s.multiplier } : {}),
        ...(scaleType !== null ? { scaleType } : {}),
        ...(scaleType === 'FIXED_LOT' ? { fixedLotSize: s.fixedLotSize } : {}),
      };
    },
  }),
};
