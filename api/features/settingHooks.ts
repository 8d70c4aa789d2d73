// What some features need between the request and the store, beyond their schema and `check`: a
// webhook's URL is checked against the outbound rules (the operator's ALLOW_PRIVATE_OUTBOUND and DNS),
// and its secrets are sealed before they reach an event and masked in every answer
// (domain/webhook/secrets.ts); a home proxy's password likewise (domain/accountFeatures/myHomeIp.ts).
// A multiplier's scaleType and a fallback setting's regions are answered with their names. Features
// without hooks pass through unchanged.
import { scaleTypeById } from '../../domain/copier/settings.js';
import type { FeatureSetting } from '../../domain/feature/events.js';
import { WEBHOOK_FEATURE_TYPE } from '../../domain/webhook/feature.js';
import { maskWebhookSecrets, sealWebhookSecrets } from '../../domain/webhook/secrets.js';
import { fallbackSetting, withRegionNames } from '../../domain/copy/features/fallbackSetting.js';
import { maskMyHomeIpPassword, MY_HOME_IP, sealMyHomeIpPassword } from '../../domain/accountFeatures/myHomeIp.js';
import { checkOutboundUrl, OutboundUrlError } from '../../app/outbound.js';
import { CHARTING_WEBHOOK, webhookPathOf } from '../../domain/chartingWebhook/feature.js';
import { issueWebhookId } from '../../app/chartingWebhook/webhookIds.js';
import { API_PREFIX } from '../openapi.js';
import { ApiError } from '../errors.js';
import { MESSAGING_ACCOUNT, MESSAGING_CONNECTOR } from '../../domain/messaging/feature.js';
import { prepareMessagingAccount, prepareMessagingConnector, presentMessagingAccount } from '../messaging/settingHooks.js';
import { MESSAGING_NOTIFICATION, TELEGRAM_NOTIFICATION } from '../../domain/notification/chatFeatures.js';
import { prepareChatNotification } from '../notificationChannels/settingHooks.js';
import type { FeatureScope } from '../../domain/feature/events.js';
import { presentWhiteLabel, sealWhiteLabel, WHITE_LABEL } from '../../domain/whiteLabel/feature.js';
import type { Services } from '../../app/services.js';
import { SIGNAL_FOLLOWER } from '../../domain/signal/follower.js';
import { SIGNAL_PROVIDER } from '../../domain/signal/provider.js';
import { prepareSignalFollower, prepareSignalProvider, presentSignalProvider } from '../signals/featureHooks.js';

/** Where the feature is attached (connectors need their account). */
export interface FeatureWhere {
  readonly projectId: string;
  readonly scope: FeatureScope;
}

interface SettingHooks {
  /** The setting to store; `previous` is the stored one on a PUT. Throws ApiError with what is wrong. */
  prepare(services: Services, setting: FeatureSetting, previous: FeatureSetting | null, where: FeatureWhere | null): Promise<FeatureSetting>;
  /** The stored setting as answered. */
  present(setting: FeatureSetting): FeatureSetting;
}

const WEBHOOK_URL_CODES = {
  EMPTY: '[WEBHOOK_URL_INVALID]',
  INVALID: '[WEBHOOK_URL_INVALID]',
  PROTOCOL: '[WEBHOOK_URL_INVALID_PROTOCOL]',
  NOT_ALLOWED: '[WEBHOOK_URL_NOT_ALLOWED]',
} as const;

/** https only, http too when the operator allows private outbound (closed networks, tests); no private address either way unless allowed. */
const checkWebhookUrl = async (services: Services, raw: string): Promise<void> => {
  const allowPrivate = services.config.allowPrivateOutbound;
  let url: URL;
  try {
    url = await checkOutboundUrl(raw, { allowPrivate });
  } catch (error) {
    if (error instanceof OutboundUrlError) throw new ApiError(400, WEBHOOK_URL_CODES[error.reason], `setting.url: ${error.message}`);
    throw error;
  }
  if (url.protocol !== 'https:' && !allowPrivate) {
    throw new ApiError(400, WEBHOOK_URL_CODES.PROTOCOL, 'setting.url: the protocol must be https (http needs ALLOW_PRIVATE_OUTBOUND)');
  }
};

const webhookHooks: SettingHooks = {
  async prepare(services, setting, previous) {
    await checkWebhookUrl(services, String(setting.url));
    const sealed = sealWebhookSecrets(setting, previous, { seal: (p) => services.cipher.encrypt(p), unseal: (c) => services.cipher.decrypt(c) });
    if (!sealed.ok) {
      throw new ApiError(400, '[VALIDATION_FAILED]', `body.setting: ${sealed.problem}`, [{ field: 'body.setting.authentication', message: sealed.problem }]);
    }
    return sealed.setting;
  },
  present: maskWebhookSecrets,
};

/** A ScaleTypeDTO as answered: `{id, name}`, the name from the catalogue (a name sent is ignored). */
const scaleTypeAnswer = (value: unknown): unknown => {
  if (value === null || typeof value !== 'object' || !('id' in value)) return value;
  const type = scaleTypeById(Number(value.id));
  return type ? { id: type.id, name: type.name } : value;
};

/** FeatureMultiplierDTO: its scaleType, general and per symbol, answered with its name; multiplier and scaleType not set are left out. */
const multiplierHooks: SettingHooks = {
  prepare: (_services, setting) => Promise.resolve(setting),
  present: (setting) => {
    const symbols = (setting.symbolsConfiguration ?? {}) as Record<string, Record<string, unknown>>;
    // Not set (the copier's own): left out, as the reference types both as non-null.
    const { multiplier, scaleType, ...rest } = setting;
    return {
      ...rest,
      ...(multiplier != null ? { multiplier } : {}),
      ...(scaleType != null ? { scaleType: scaleTypeAnswer(scaleType) } : {}),
      symbolsConfiguration: Object.fromEntries(
        Object.entries(symbols).map(([symbol, own]) => [symbol, 'scaleType' in own ? { ...own, scaleType: scaleTypeAnswer(own.scaleType) } : own]),
      ),
    };
  },
};

const myHomeIpHooks: SettingHooks = {
  prepare(services, setting, previous) {
    const sealed = sealMyHomeIpPassword(setting, previous, { seal: (p) => services.cipher.encrypt(p), unseal: (c) => services.cipher.decrypt(c) });
    if (!sealed.ok) {
      return Promise.reject(
        new ApiError(400, '[VALIDATION_FAILED]', `body.setting: ${sealed.problem}`, [{ field: 'body.setting.password', message: sealed.problem }]),
      );
    }
    return Promise.resolve(sealed.setting);
  },
  present: maskMyHomeIpPassword,
};

/** The white-label brand: its secrets sealed and masked, its enumerations answered with names (domain/whiteLabel/feature.ts). */
const whiteLabelHooks: SettingHooks = {
  prepare(services, setting, previous) {
    const sealed = sealWhiteLabel(setting, previous, { seal: (p) => services.cipher.encrypt(p), unseal: (c) => services.cipher.decrypt(c) });
    if (!sealed.ok) return Promise.reject(new ApiError(400, '[VALIDATION_FAILED]', `body.setting: ${sealed.problem}`));
    return Promise.resolve(sealed.setting);
  },
  present: presentWhiteLabel,
};

const fallbackHooks: SettingHooks = { prepare: (_services, setting) => Promise.resolve(setting), present: withRegionNames };

/**
 * FeatureChartingWebhookDTO: a new webhookId when the feature is added or a PUT sends rotateWebhookId
 * true (app/chartingWebhook/webhookIds.ts), else the stored one; rotateWebhookId is never stored true.
 */
const chartingWebhookHooks: SettingHooks = {
  prepare: (_services, setting, previous) => {
    const kept = previous && typeof previous.webhookId === 'string' && setting.rotateWebhookId !== true ? previous.webhookId : null;
    const webhookId = kept ?? issueWebhookId();
    return Promise.resolve({ ...setting, webhookId, webhookUrl: webhookPathOf(API_PREFIX, webhookId), rotateWebhookId: false });
  },
  present: (setting) => setting,
};

const hooks: Readonly<Record<string, SettingHooks>> = {
  [CHARTING_WEBHOOK]: chartingWebhookHooks,
  [WEBHOOK_FEATURE_TYPE]: webhookHooks,
  [MY_HOME_IP]: myHomeIpHooks,
  [WHITE_LABEL]: whiteLabelHooks,
  [fallbackSetting.type]: fallbackHooks,
  FeatureMultiplierDTO: multiplierHooks,
  [MESSAGING_ACCOUNT]: { prepare: prepareMessagingAccount, present: presentMessagingAccount },
  [MESSAGING_CONNECTOR]: { prepare: prepareMessagingConnector, present: (setting) => setting },
  [MESSAGING_NOTIFICATION]: { prepare: prepareChatNotification, present: (setting) => setting },
  [TELEGRAM_NOTIFICATION]: { prepare: prepareChatNotification, present: (setting) => setting },
  [SIGNAL_PROVIDER]: { prepare: prepareSignalProvider, present: presentSignalProvider },
  [SIGNAL_FOLLOWER]: { prepare: prepareSignalFollower, present: (setting) => setting },
};

export const prepareSetting = (
  services: Services,
  setting: FeatureSetting,
  previous: FeatureSetting | null,
  where: FeatureWhere | null = null,
): Promise<FeatureSetting> => hooks[setting.type]?.prepare(services, setting, previous, where) ?? Promise.resolve(setting);

export const presentSetting = (setting: FeatureSetting): FeatureSetting => hooks[setting.type]?.present(setting) ?? setting;
