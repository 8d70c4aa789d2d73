// FeatureSignalFollowerDTO (spec "Feature DTOs": scope account; the reference's members, spec 1.2.6's
// disableMinVolumeSafetySkip): an account of any project following a signal provider's trades. The
// follower's copier is a copier of the follower's project whose id is the follower feature's id (the
// signalFollowerId of /accounts/{accountId}/signalFollowers/{signalFollowerId}/features) and whose master
// is the provider's account: the one deliberate exception to copying inside one project (app/signals.ts).
//
// Its settings (followerCopierSettings): the copier defaults, under the provider's `copier`, under the
// follower's own `copier` members that the provider allows (allowedOverrideFields, only with
// allowOverrideCopierSetting; a member it does not allow is refused, 400 [SIGNAL_OVERRIDE_NOT_ALLOWED]);
// then active = the follower's `active` and not `suspended`; monitorOnly when the follower or the
// provider's copier asks for it; disableMinVolumeSafetySkip sets minVolumeSafetySkipThresholdMultiplier
// to 0 (the check off).
//   - suspended: set by the provider only (PUT /signals/{signalProviderId}/accounts/{accountId}/followerFeature);
//     what the follower sends for it is replaced by the value the provider set.
//   - signalProviderName, signalProviderAvailable: read-only, the service's.
import { type Static, Type } from '@sinclair/typebox';
import { type CopierSettings, defaultCopierSettings, scaleTypeById } from '../copier/settings.js';
import type { FeatureDefinition } from '../feature/definition.js';
import type { SignalProviderSettings } from './provider.js';

export const SIGNAL_FOLLOWER = 'FeatureSignalFollowerDTO';

const members = Type.Object({
  signalProviderId: Type.String({
    format: 'uuid',
    description: 'the FeatureSignalProviderDTO followed (its feature id; GET /projects/{projectId}/signals lists them)',
  }),
  active: Type.Boolean({ description: "false: the follower's copier is deactivated. Default true" }),
  monitorOnly: Type.Boolean({ description: 'true: the copier manages the copies it holds but copies no new trade. Default false' }),
  suspended: Type.Boolean({
    description:
      "set by the signal provider only (the copier is deactivated while true); what the follower sends is replaced by the provider's value. Default false",
  }),
  disableMinVolumeSafetySkip: Type.Boolean({
    description: "(spec 1.2.6) true: the copier's minVolumeSafetySkipThresholdMultiplier check is off (0) whatever the provider's copier says. Default false",
  }),
  copier: Type.Object(
    {},
    {
      additionalProperties: true,
      description:
        "a CopierDTO of the follower's own settings over the provider's: only members the provider's allowedOverrideFields allow (with allowOverrideCopierSetting) may differ from the provider's copier (400 [SIGNAL_OVERRIDE_NOT_ALLOWED] otherwise); answered as sent (the follower's own members; the others are the provider's)",
    },
  ),
  signalProviderName: Type.String({ readOnly: true, description: "read-only: the provider's name when the follower last wrote the feature" }),
  signalProviderAvailable: Type.Boolean({ readOnly: true, description: 'read-only: the provider still exists (its feature and account)' }),
});

export type SignalFollowerSettings = Static<typeof members>;

export const signalFollowerDefaults: Partial<SignalFollowerSettings> = {
  active: true,
  monitorOnly: false,
  suspended: false,
  disableMinVolumeSafetySkip: false,
  copier: {},
  signalProviderName: '',
  signalProviderAvailable: true,
};

/** Copier members a CopierDTO carries that are no setting: which accounts and strategies, ids, times. */
const REFERENCE_MEMBERS = new Set(['id', 'fromAccountId', 'fromAccountAlias', 'toAccountId', 'fromStrategyId', 'fromStrategyName', 'toStrategyId', 'created']);

const settingKeys = Object.keys(defaultCopierSettings) as (keyof CopierSettings)[];

/** The copier settings a CopierDTO-shaped object gives (scaleType `{id}`), over `base`; unknown members ignored. */
export const copierSettingsOf = (dto: Readonly<Record<string, unknown>>, base: CopierSettings = defaultCopierSettings): CopierSettings => {
  const out: Record<string, unknown> = { ...base };
  for (const key of settingKeys) {
    if (dto[key] === undefined) continue;
    if (key === 'scaleType') {
      const id = (dto[key] as { id?: number } | null)?.id;
      const known = id === undefined ? undefined : scaleTypeById(id);
      if (known) out[key] = known.key;
      continue;
    }
    out[key] = dto[key];
  }
  return out as unknown as CopierSettings;
};

/** The setting members of a CopierDTO-shaped object, without the reference members. */
export const copierSettingMembers = (dto: Readonly<Record<string, unknown>>): string[] =>
  Object.keys(dto).filter((k) => !REFERENCE_MEMBERS.has(k) && dto[k] !== undefined);

/** The copier settings followers may override: none without allowOverrideCopierSetting, all when the list is empty. */
export const overridableFields = (
  provider: Pick<SignalProviderSettings, 'allowOverrideCopierSetting' | 'allowedOverrideFields'>,
): ReadonlySet<string> | 'ALL' => {
  if (!provider.allowOverrideCopierSetting) return new Set();
  const fields = provider.allowedOverrideFields ?? [];
  return fields.length === 0 ? 'ALL' : new Set(fields);
};

/**
 * The follower's copier members the provider does not allow it to set, where they differ from the
 * provider's copier (a member sent back with the provider's value is no override).
 */
export const forbiddenOverrides = (
  provider: Pick<SignalProviderSettings, 'allowOverrideCopierSetting' | 'allowedOverrideFields' | 'copier'>,
  followerCopier: Readonly<Record<string, unknown>>,
): string[] => {
  const allowed = overridableFields(provider);
  if (allowed === 'ALL') return [];
  const base = copierSettingsOf(provider.copier);
  const own = copierSettingsOf(followerCopier, base);
  return copierSettingMembers(followerCopier).filter(
    (k) =>
      settingKeys.includes(k as keyof CopierSettings) &&
      k !== 'active' &&
      k !== 'monitorOnly' &&
      !allowed.has(k) &&
      JSON.stringify(own[k as keyof CopierSettings]) !== JSON.stringify(base[k as keyof CopierSettings]),
  );
};

/** The settings the follower's copier runs with (see the head of this file). */
export const followerCopierSettings = (
  provider: Pick<SignalProviderSettings, 'allowOverrideCopierSetting' | 'allowedOverrideFields' | 'copier'>,
  follower: Pick<SignalFollowerSettings, 'active' | 'monitorOnly' | 'suspended' | 'disableMinVolumeSafetySkip' | 'copier'>,
): CopierSettings => {
  const base = copierSettingsOf(provider.copier);
  const allowed = overridableFields(provider);
  const overrides = Object.fromEntries(
    Object.entries(follower.copier).filter(([k]) => k !== 'active' && k !== 'monitorOnly' && (allowed === 'ALL' || allowed.has(k))),
  );
  const merged = copierSettingsOf(overrides, base);
  return {
    ...merged,
    active: follower.active && !follower.suspended,
    monitorOnly: follower.monitorOnly || base.monitorOnly,
    minVolumeSafetySkipThresholdMultiplier: follower.disableMinVolumeSafetySkip ? 0 : merged.minVolumeSafetySkipThresholdMultiplier,
  };
};

export const signalFollowerFeature: FeatureDefinition<SignalFollowerSettings> = {
  type: SIGNAL_FOLLOWER,
  scopes: ['account'],
  multiple: true,
  members,
  defaults: signalFollowerDefaults,
  description:
    "Follows a signal provider (signalProviderId: a FeatureSignalProviderDTO of this or another project): the provider's trades are copied to this account by a copier of this project whose id is this feature's id, starting from the provider's copier settings; `copier` may override the members the provider allows. The provider must be followable by this project (isPublic, makeVisibleInMarketplace, or the project's owner in allowCustomers: 404 [SIGNAL_PROVIDER_NOT_FOUND] otherwise), the account's loginServer must match allowedBrokers (400 [SIGNAL_BROKER_NOT_ALLOWED]), an account follows a provider once (409 [SIGNAL_ALREADY_FOLLOWED]) and never its own provider account (400 [COPIER_SELF_REFERENCE]). signalProviderId cannot change (400 [SIGNAL_PROVIDER_IMMUTABLE]). The follower sees the provider's public members and trades (the copies), never its account. Follower-scope features: /accounts/{accountId}/signalFollowers/{signalFollowerId}/features.",
  stateMembers: ['signalProviderName', 'signalProviderAvailable'],
};
