// FeatureSignalProviderDTO and FeatureSignalFollowerDTO between the request and the store
// (api/features/settingHooks.ts): their `copier` member is a CopierDTO, checked as PUT
// /accounts/{accountId}/copiers/{copierId} checks its body and stored with every setting (defaults filled,
// scaleType as {id, name}) and without the members that name accounts or strategies; a provider's
// allowedOverrideFields must name copier settings (GET /types/copierSettings/availableFields); a PUT of a
// provider may not change its creation-only members nor raise a fee (domain/signal/provider.ts).
import { Type } from '@sinclair/typebox';
import { defaultCopierSettings } from '../../domain/copier/settings.js';
import type { FeatureSetting } from '../../domain/feature/events.js';
import { copierSettingsOf } from '../../domain/signal/follower.js';
import { providerChangeProblem, type SignalProviderSettings } from '../../domain/signal/provider.js';
import { toScaleTypeDTO } from '../copiers/dto.js';
import { CopierUpdateDTO } from '../copiers/schemas.js';
import { ApiError } from '../errors.js';
import { copierSettingFields } from '../types/copierSettingFields.js';
import { validate } from '../validation.js';

const wrappedCopier = Type.Object({ setting: Type.Object({ copier: CopierUpdateDTO }) });

const settingNames = new Set(copierSettingFields().map((f) => f.field));

/** The CopierDTO a setting stores: every setting member, scaleType {id, name}, no account or strategy members. */
export const storedCopier = (sent: Record<string, unknown>, base: Record<string, unknown> = {}): Record<string, unknown> => {
  validate(wrappedCopier, { setting: { copier: sent } }, 'body');
  const settings = copierSettingsOf({ ...base, ...sent }, defaultCopierSettings);
  const { scaleType, customComment, customMagicNumber, ...rest } = settings;
  return {
    ...rest,
    scaleType: toScaleTypeDTO(scaleType),
    ...(customComment === null ? {} : { customComment }),
    ...(customMagicNumber === null ? {} : { customMagicNumber }),
  };
};

/** Only the members sent (a follower's overrides), checked as a CopierDTO, scaleType as {id, name}. */
const sentCopier = (sent: Record<string, unknown>): Record<string, unknown> => {
  validate(wrappedCopier, { setting: { copier: sent } }, 'body');
  const {
    id: _id,
    created: _created,
    fromAccountId: _from,
    fromAccountAlias: _alias,
    toAccountId: _to,
    fromStrategyId: _fs,
    toStrategyId: _ts,
    fromStrategyName: _fn,
    ...rest
  } = sent;
  const scaleType = rest['scaleType'] as { id: number } | undefined;
  if (scaleType !== undefined) {
    const key = copierSettingsOf({ scaleType }).scaleType;
    rest['scaleType'] = toScaleTypeDTO(key);
  }
  return rest;
};

const refuse = (status: number, code: string, field: string, message: string) => new ApiError(status, code, `${field}: ${message}`, [{ field, message }]);

export const prepareSignalProvider = (_services: unknown, setting: FeatureSetting, previous: FeatureSetting | null): Promise<FeatureSetting> => {
  const fields = (setting.allowedOverrideFields as string[] | null) ?? [];
  const unknown = fields.find((f) => !settingNames.has(f));
  if (unknown !== undefined) {
    return Promise.reject(
      refuse(400, '[VALIDATION_FAILED]', 'body.setting.allowedOverrideFields', `${unknown} is no copier setting (GET /types/copierSettings/availableFields)`),
    );
  }
  let copier: Record<string, unknown>;
  try {
    copier = storedCopier(setting.copier as Record<string, unknown>);
  } catch (error) {
    return Promise.reject(error as Error);
  }
  const next = { ...setting, copier } as FeatureSetting;
  if (previous) {
    const problem = providerChangeProblem(previous as unknown as SignalProviderSettings, next as unknown as SignalProviderSettings);
    if (problem) {
      const status = problem.code === '[SIGNAL_FEE_RAISE_NOT_ALLOWED]' ? 409 : 400;
      return Promise.reject(new ApiError(status, problem.code, problem.message));
    }
    // The operator's mark stays what it was.
    return Promise.resolve({ ...next, verified: previous.verified ?? false });
  }
  return Promise.resolve(next);
};

export const prepareSignalFollower = (_services: unknown, setting: FeatureSetting): Promise<FeatureSetting> => {
  try {
    return Promise.resolve({ ...setting, copier: sentCopier(setting.copier as Record<string, unknown>) });
  } catch (error) {
    return Promise.reject(error as Error);
  }
};

/** A provider as its own project reads it: accessAllowed true (it may follow its own signal). */
export const presentSignalProvider = (setting: FeatureSetting): FeatureSetting => ({ ...setting, accessAllowed: true });
