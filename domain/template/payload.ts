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
  /** A strategy copier's strategy (absent or null: none): copiers are one per master and strategy pair. */
  readonly fromStrategyId?: string | null;
  readonly toStrategyId?: string | null;
  readonly settings: CopierSettings;
  readonly symbolMappings: Readonly<Record<string, string>>;
  /** The copier's features as stored (secrets sealed), in the order they were added. */
  readonly features: readonly FeatureSetting[];
}

export interface TemplateRiskLimit {
  /** A limit scoped to one copier names that copier's master (and strategies, if any); null: the whole account. */
  readonly copierFromAccountId: string | null;
  readonly copierFromStrategyId?: string | null;
  readonly copierToStrategyId?: string | null;
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

/**
 * Which copier of an account a template copier is: its master and, for a strategy copier, its
 * strategies (an account may copy one master several times, once per strategy).
 */
export const copierKey = (fromAccountId: string, fromStrategyId?: string | null, toStrategyId?: string | null): string =>
  `${fromAccountId}|${fromStrategyId ?? ''}|${toStrategyId ?? ''}`;

/** The copier key a risk limit is scoped to (null: the whole account). */
export const riskLimitCopierKey = (limit: TemplateRiskLimit): string | null =>
  limit.copierFromAccountId === null ? null : copierKey(limit.copierFromAccountId, limit.copierFromStrategyId, limit.copierToStrategyId);

/** The strategies a payload's copiers refer to, each once. */
export const referencedStrategies = (payload: TemplatePayload): string[] => [
  ...new Set(payload.copiers.flatMap((c) => [c.fromStrategyId, c.toStrategyId].filter((id): id is string => typeof id === 'string'))),
];
