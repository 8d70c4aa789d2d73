// FeatureMultiplierDTO (spec: fixMasterBalanceAndEquity, fixSlaveBalanceAndEquity; int, default 0 =
// deactivated). While the feature exists its two members replace the copier's members of the same
// names, 0 included: a side whose value is above 0 is sized as if its balance and equity were that
// amount (in that account's currency), a side at 0 with its live figures. Only the ratio scale types
// (1 Balance, 2 Equity) read them (domain/copier/settings.ts).
import { type Static, Type } from '@sinclair/typebox';
import type { CopierSettings } from '../../copier/settings.js';
import type { CopierFeature } from './rules.js';

const amount = (side: string) =>
  Type.Integer({
    minimum: 0,
    maximum: 1_000_000_000,
    description: `the ${side}'s balance and equity for the balance and equity ratios, in that account's currency; 0 (default) = its live figures`,
  });

const members = Type.Object({
  fixMasterBalanceAndEquity: amount('master'),
  fixSlaveBalanceAndEquity: amount('slave'),
});
export type MultiplierSettings = Static<typeof members>;

export const multiplier: CopierFeature<MultiplierSettings> = {
  type: 'FeatureMultiplierDTO',
  scopes: ['copier'],
  multiple: false,
  members,
  defaults: { fixMasterBalanceAndEquity: 0, fixSlaveBalanceAndEquity: 0 },
  description:
    "Fixed balances for the ratio scale types: while the feature exists, fixMasterBalanceAndEquity and fixSlaveBalanceAndEquity replace the copier's members of the same names (0 included). Above 0, scale types 1 (Balance) and 2 (Equity) size as if that account's balance and equity were the amount (in its currency); 0 = the account's live figures. Other scale types do not read them.",
  rules: {
    sizing: (s, copier): CopierSettings => ({
      ...copier,
      fixMasterBalanceAndEquity: s.fixMasterBalanceAndEquity,
      fixSlaveBalanceAndEquity: s.fixSlaveBalanceAndEquity,
    }),
  },
};
