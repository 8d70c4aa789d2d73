// Every feature the service knows (spec "Feature DTOs"), by its DTO name. Copier features carry the
// copy rules (domain/copy/features); account and project features arrive with their areas.
import { accountFeatureDefinitions } from '../accountFeatures/catalogue.js';
import { chartingWebhookFeature } from '../chartingWebhook/feature.js';
import { messagingAccountFeature, messagingConnectorFeature } from '../messaging/feature.js';
import { messagingNotificationFeature, telegramNotificationFeature } from '../notification/chatFeatures.js';
import { dataCollectorFeature } from '../analytics/dataCollector.js';
import { copierFeatures } from '../copy/features/catalogue.js';
import { overallTargetFeature, periodTargetFeatures } from '../profitTarget/features.js';
import { tradeGuardrailsFeature } from '../tradeGuardrail/feature.js';
import { webhookFeature } from '../webhook/feature.js';
import { investorFeature, traderFeature } from '../investor/features.js';
import { whiteLabelFeature } from '../whiteLabel/feature.js';
import { signalFollowerFeature } from '../signal/follower.js';
import { signalProviderFeature } from '../signal/provider.js';
import type { FeatureDefinition } from './definition.js';

/** Account features without copy rules: their areas read them (the data collector's sampler, ...). */
const accountFeatures: readonly FeatureDefinition<object>[] = [
  dataCollectorFeature as unknown as FeatureDefinition<object>,
  webhookFeature as unknown as FeatureDefinition<object>,
  // On an account or a copier: the guardrail monitor reads it (engine/protection/tradeGuardrails.ts).
  tradeGuardrailsFeature as unknown as FeatureDefinition<object>,
  // Its address takes alerts from charting platforms (app/chartingWebhook).
  chartingWebhookFeature as unknown as FeatureDefinition<object>,
  // Trades from chats (app/messaging): the chat account, and a chat bound to a trading account.
  messagingAccountFeature as unknown as FeatureDefinition<object>,
  messagingConnectorFeature as unknown as FeatureDefinition<object>,
  // Notifications to chats (app/notificationsChat.ts): account log lines and notification targets.
  messagingNotificationFeature as unknown as FeatureDefinition<object>,
  telegramNotificationFeature as unknown as FeatureDefinition<object>,
  // The investor program's roles (domain/investor, app/investorProgram.ts).
  traderFeature as unknown as FeatureDefinition<object>,
  investorFeature as unknown as FeatureDefinition<object>,
  // Signal providers and their followers across projects (app/signals.ts).
  signalProviderFeature as unknown as FeatureDefinition<object>,
  signalFollowerFeature as unknown as FeatureDefinition<object>,
];

/** Profit targets: the protection monitor reads them (domain/protection). */
const profitTargetFeatures = [...periodTargetFeatures, overallTargetFeature] as unknown as readonly FeatureDefinition<object>[];

/** Project features of their own areas: the white-label brand (domain/whiteLabel). */
const projectFeatures = [whiteLabelFeature] as unknown as readonly FeatureDefinition<object>[];

export const featureCatalogue: readonly FeatureDefinition<object>[] = [
  ...copierFeatures,
  ...accountFeatures,
  ...accountFeatureDefinitions,
  ...profitTargetFeatures,
  ...projectFeatures,
];

const byType = new Map(featureCatalogue.map((f) => [f.type, f]));

export const featureDefinition = (type: string): FeatureDefinition<object> | undefined => byType.get(type);
