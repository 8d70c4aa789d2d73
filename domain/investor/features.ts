// The investor program's roles (spec "Feature DTOs": FeatureTraderDTO, FeatureInvestorDTO, scope
// account, "investor-program roles"; their members are not shown, these are ours).
//
// - FeatureTraderDTO makes an account an approved trader of its project. Attaching it is the approval:
//   only a project-level key of the account's project may attach, change or remove it (an account-level
//   key cannot approve its own account: 403 [PROJECT_LEVEL_API_KEY_REQUIRED]).
// - FeatureInvestorDTO makes an account an investor. A project with an investor account (a project-level
//   key), or the investor account itself (its account-level key), sees the approved traders of every
//   project under /investorProgram/traders: their public data only (domain/investor/program.ts).
import { type Static, Type } from '@sinclair/typebox';
import type { FeatureDefinition } from '../feature/definition.js';

export const TRADER_FEATURE = 'FeatureTraderDTO';
export const INVESTOR_FEATURE = 'FeatureInvestorDTO';

/** The roles only a project-level key may give, change or take. */
export const PROJECT_APPROVED_ROLES: ReadonlySet<string> = new Set([TRADER_FEATURE, INVESTOR_FEATURE]);

const traderMembers = Type.Object({
  name: Type.String({
    maxLength: 255,
    description: "the trader's public name, shown to investors; default '' (investors then see 'Trader' and the trader id)",
  }),
  description: Type.String({ maxLength: 400, description: "a short public summary of the trader's approach; default ''" }),
  makeHistoryPublic: Type.Boolean({
    description:
      "true (default): investors may read the trader's closed positions (/investorProgram/traders/{traderId}/history/positions); false: 403 [TRADER_HISTORY_NOT_PUBLIC]. Performance metrics are always shown",
  }),
});
export type TraderSettings = Static<typeof traderMembers>;

export const traderFeature: FeatureDefinition<TraderSettings> = {
  type: TRADER_FEATURE,
  scopes: ['account'],
  multiple: false,
  members: traderMembers,
  defaults: { name: '', description: '', makeHistoryPublic: true },
  description:
    "Investor program: the account is an approved trader of its project. Attaching the role is the project's approval, so only a project-level key of the project may attach, change or remove it (an account-level key: 403 [PROJECT_LEVEL_API_KEY_REQUIRED]). Listed in GET /projects/{projectId}/traders and, for investors of any project, in GET /investorProgram/traders with public data only (name, description, account type, currency, score; never the account, its login, its project or its open positions). A deleted account is no trader any more.",
};

const investorMembers = Type.Object({
  name: Type.String({ maxLength: 255, description: "the investor's name, for the project's own use; default ''" }),
});
export type InvestorSettings = Static<typeof investorMembers>;

export const investorFeature: FeatureDefinition<InvestorSettings> = {
  type: INVESTOR_FEATURE,
  scopes: ['account'],
  multiple: false,
  members: investorMembers,
  defaults: { name: '' },
  description:
    "Investor program: the account is an investor. Its project (any project-level key of it) and the account itself (its account-level key) may read GET /investorProgram/traders and each trader's public data, closed positions (when the trader makes its history public) and performance metrics, across projects; without an investor account, 403 [INVESTOR_ROLE_REQUIRED]. Only a project-level key of the project may attach, change or remove the role (an account-level key: 403 [PROJECT_LEVEL_API_KEY_REQUIRED]).",
};
