// What an account template holds (spec "Account templates"): a configuration snapshot of an account, its
// copiers (each naming its master by account id, with its settings, symbol mappings and features), its
// account features, its risk limits and the account settings that are configuration rather than
// identity. Login, password, alias, type, region, proxies and labels are the account's own and stay out.
import type { CopierSettings } from '../copier/settings.js';
import type { FeatureSetting } from '../feature/events.js';
import type { RiskLimitSettings } from '../riskLimit/settings.js';

export interface TemplateCopier {
  /** The master account, by id: a template applies within its project. */
  readonly fromAccountId: string;
  readonly settings: CopierSettings;
  readonly symbolMappings: Readonly<Record<string, string>>;
  /** The copier's features as stored (secrets sealed), in the order they were added. */
  readonly features: readonly FeatureSetting[];
}

export interface TemplateRiskLimit {
  /** A limit scoped to one copier names that copier's master (copiers are one per master); null: the whole account. */
  readonly copierFromAccountId: string | null;
  readonly settings: RiskLimitSettings;
}

/** The account settings a template carries. */
export interface TemplateAccountSettings {
  readonly tradingDisabled: boolean;
  readonly closeUnmanagedPositions: boolean;
  readonly nativeMode: boolean;
  readonly propFirm: boolean;
}

export const TEMPLATE_ACCOUNT_SETTINGS = ['tradingDisabled', 'closeUnmanagedPositions', 'nativeMode', 'propFirm'] as const;

export interface TemplatePayload {
  readonly copiers: readonly TemplateCopier[];
  /** Account-scope features as stored, in the order they were added. */
  readonly features: readonly FeatureSetting[];
  readonly riskLimits: readonly TemplateRiskLimit[];
  readonly settings: TemplateAccountSettings;
}

/** The master accounts a payload refers to, each once, in order. */
export const referencedMasters = (payload: TemplatePayload): string[] => [...new Set(payload.copiers.map((c) => c.fromAccountId))];
