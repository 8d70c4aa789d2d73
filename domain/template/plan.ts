// What applying a template changes on an account (spec "Account templates": applying creates, updates
// and deletes the account's copiers, features and risk limits so that the account matches the
// template). A pure diff of the template's payload against the account's configuration now:
// - copiers are matched by master and strategies (an account has at most one copier per master and
//   strategy pair: copierKey);
// - features (of a copier, or of the account) are matched by type, in order: the first of a type with the
//   first of that type, and so on;
// - risk limits are matched by scope (the account, or the copier of one master) and risk type, in order.
// A match whose setting differs is updated; a template entry without a match is created; an account
// entry without a match is deleted. The account settings the template carries are set.
import type { CopierSettings } from '../copier/settings.js';
import type { FeatureSetting } from '../feature/events.js';
import { sameJson } from '../shared/json.js';
import type { RiskLimitSettings } from '../riskLimit/settings.js';
import {
  copierKey,
  riskLimitCopierKey,
  TEMPLATE_ACCOUNT_SETTINGS,
  type TemplateAccountSettings,
  type TemplateCopier,
  type TemplatePayload,
} from './payload.js';

export interface CurrentFeature {
  readonly id: string;
  readonly setting: FeatureSetting;
}

export interface CurrentCopier {
  readonly id: string;
  readonly fromAccountId: string;
  readonly fromStrategyId?: string | null;
  readonly toStrategyId?: string | null;
  readonly settings: CopierSettings;
  readonly symbolMappings: Readonly<Record<string, string>>;
  readonly features: readonly CurrentFeature[];
}

export interface CurrentRiskLimit {
  readonly id: string;
  /** The copier it is scoped to, null: the whole account. */
  readonly copierId: string | null;
  readonly settings: RiskLimitSettings;
}

/** An account's configuration as the read models have it. */
export interface AccountConfiguration {
  readonly copiers: readonly CurrentCopier[];
  readonly features: readonly CurrentFeature[];
  readonly riskLimits: readonly CurrentRiskLimit[];
  readonly settings: TemplateAccountSettings;
}

export interface FeatureChanges {
  readonly add: readonly FeatureSetting[];
  readonly update: readonly { readonly featureId: string; readonly setting: FeatureSetting }[];
  readonly remove: readonly string[];
}

export type CopierStep =
  | { readonly kind: 'create'; readonly copier: TemplateCopier }
  | {
      readonly kind: 'update';
      readonly copierId: string;
      readonly copier: TemplateCopier;
      /** Settings members that differ (none: nothing to change). */
      readonly changes: Partial<CopierSettings>;
      readonly mappingsChange: boolean;
      readonly features: FeatureChanges;
    };

export interface RiskLimitStep {
  /** null: a new limit. */
  readonly riskLimitId: string | null;
  /** The copier it is scoped to, by copierKey; null: the whole account. */
  readonly copierKey: string | null;
  readonly settings: RiskLimitSettings;
}

export interface ApplyPlan {
  readonly copiers: readonly CopierStep[];
  /** Copiers of masters the template does not name, with their features and scoped limits. */
  readonly deleteCopiers: readonly CurrentCopier[];
  readonly features: FeatureChanges;
  /** Risk limits to create or update (only those that differ). */
  readonly riskLimits: readonly RiskLimitStep[];
  readonly deleteRiskLimits: readonly string[];
  readonly settings: Partial<TemplateAccountSettings>;
}

/** Matches wanted settings to current features by type, in order. */
export const featureChanges = (wanted: readonly FeatureSetting[], current: readonly CurrentFeature[]): FeatureChanges => {
  const pool = [...current];
  const add: FeatureSetting[] = [];
  const update: { featureId: string; setting: FeatureSetting }[] = [];
  for (const setting of wanted) {
    const i = pool.findIndex((f) => f.setting.type === setting.type);
    if (i < 0) {
      add.push(setting);
      continue;
    }
    const [match] = pool.splice(i, 1);
    if (!sameJson(match!.setting, setting)) update.push({ featureId: match!.id, setting });
  }
  return { add, update, remove: pool.map((f) => f.id) };
};

const copierChanges = (current: CopierSettings, wanted: CopierSettings): Partial<CopierSettings> => {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(wanted)) {
    if (!sameJson(current[key as keyof CopierSettings], value)) out[key] = value;
  }
  return out as Partial<CopierSettings>;
};

export const planApply = (payload: TemplatePayload, account: AccountConfiguration): ApplyPlan => {
  const keyOf = (c: { fromAccountId: string; fromStrategyId?: string | null; toStrategyId?: string | null }) =>
    copierKey(c.fromAccountId, c.fromStrategyId, c.toStrategyId);
  const byKey = new Map(account.copiers.map((c) => [keyOf(c), c]));
  const copiers: CopierStep[] = payload.copiers.map((copier) => {
    const match = byKey.get(keyOf(copier));
    if (!match) return { kind: 'create', copier };
    return {
      kind: 'update',
      copierId: match.id,
      copier,
      changes: copierChanges(match.settings, copier.settings),
      mappingsChange: !sameJson(match.symbolMappings, copier.symbolMappings),
      features: featureChanges(copier.features, match.features),
    };
  });
  const named = new Set(payload.copiers.map(keyOf));
  const deleteCopiers = account.copiers.filter((c) => !named.has(keyOf(c)));

  // Risk limits: scope by copier key (a copier's limit moves with its copier), then by risk type, in order.
  const keyOfCopier = new Map(account.copiers.map((c) => [c.id, keyOf(c)]));
  const pool = account.riskLimits
    .map((r) => ({ ...r, key: r.copierId === null ? null : (keyOfCopier.get(r.copierId) ?? `?${r.copierId}`) }))
    .filter((r) => r.key === null || named.has(r.key));
  const riskLimits: RiskLimitStep[] = [];
  for (const wanted of payload.riskLimits) {
    const key = riskLimitCopierKey(wanted);
    const i = pool.findIndex((r) => r.key === key && r.settings.riskTypeId === wanted.settings.riskTypeId);
    if (i < 0) {
      riskLimits.push({ riskLimitId: null, copierKey: key, settings: wanted.settings });
      continue;
    }
    const [match] = pool.splice(i, 1);
    if (!sameJson(match!.settings, wanted.settings)) {
      riskLimits.push({ riskLimitId: match!.id, copierKey: key, settings: wanted.settings });
    }
  }
  // Limits of copiers that are deleted go with them (listed too, so nothing is left scoped to a gone copier).
  const deleted = new Set(deleteCopiers.map((c) => c.id));
  const deleteRiskLimits = [...pool.map((r) => r.id), ...account.riskLimits.filter((r) => r.copierId !== null && deleted.has(r.copierId)).map((r) => r.id)];

  const settings: Partial<Record<(typeof TEMPLATE_ACCOUNT_SETTINGS)[number], boolean>> = {};
  for (const key of TEMPLATE_ACCOUNT_SETTINGS) if (account.settings[key] !== payload.settings[key]) settings[key] = payload.settings[key];

  return { copiers, deleteCopiers, features: featureChanges(payload.features, account.features), riskLimits, deleteRiskLimits, settings };
};

/** Whether applying would change nothing: the account matches the template. */
export const planIsEmpty = (plan: ApplyPlan): boolean =>
  plan.deleteCopiers.length === 0 &&
  plan.deleteRiskLimits.length === 0 &&
  plan.riskLimits.length === 0 &&
  Object.keys(plan.settings).length === 0 &&
  plan.features.add.length + plan.features.update.length + plan.features.remove.length === 0 &&
  plan.copiers.every(
    (c) =>
      c.kind === 'update' &&
      Object.keys(c.changes).length === 0 &&
      !c.mappingsChange &&
      c.features.add.length + c.features.update.length + c.features.remove.length === 0,
  );
