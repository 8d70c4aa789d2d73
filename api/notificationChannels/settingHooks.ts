// What the chat notification features need between the request and the store (api/features/settingHooks.ts
// registers them, domain/notification/chatFeatures.ts defines them): the messaging account checked (this
// project's, or this account's), the accounts named checked (this project's; on an account feature that
// account only), the log level answered with its name and aliasMapping filled from the accounts'
// aliases; a Telegram notification needs the operator's bot (TELEGRAM_BOT_TOKEN).
import type { FeatureSetting } from '../../domain/feature/events.js';
import { MESSAGING_ACCOUNT } from '../../domain/messaging/feature.js';
import { type ChatNotificationEntry, normalizedEntry, TELEGRAM_NOTIFICATION } from '../../domain/notification/chatFeatures.js';
import type { Services } from '../../app/services.js';
import { ApiError } from '../errors.js';
import type { FeatureWhere } from '../features/settingHooks.js';

const invalid = (field: string, problem: string) =>
  new ApiError(400, '[VALIDATION_FAILED]', `body.setting.${field}: ${problem}`, [{ field: `body.setting.${field}`, message: problem }]);

export const prepareChatNotification = async (
  services: Services,
  setting: FeatureSetting,
  _previous: FeatureSetting | null,
  where: FeatureWhere | null,
): Promise<FeatureSetting> => {
  const projectId = where?.projectId ?? '';
  const ownAccount = where?.scope.kind === 'account' ? where.scope.accountId : null;
  if (setting.type === TELEGRAM_NOTIFICATION && !services.config.notifications.telegramBotToken) {
    throw new ApiError(
      400,
      '[FEATURE_TYPE_NOT_SUPPORTED]',
      "FeatureTelegramNotificationDTO sends with the operator's Telegram bot, and this service has none (TELEGRAM_BOT_TOKEN); use FeatureMessagingNotificationDTO with a FeatureMessagingAccountDTO of your own bot",
    );
  }
  if (setting.type !== TELEGRAM_NOTIFICATION) {
    const account = await services.db
      .selectFrom('features')
      .select(['id', 'scope_kind', 'account_id'])
      .where('id', '=', String(setting.messagingAccountId))
      .where('type', '=', MESSAGING_ACCOUNT)
      .where('project_id', '=', projectId)
      .executeTakeFirst();
    if (!account || (account.scope_kind === 'account' && account.account_id !== ownAccount)) {
      throw new ApiError(
        400,
        '[MESSAGING_ACCOUNT_NOT_FOUND]',
        `setting.messagingAccountId: no FeatureMessagingAccountDTO ${String(setting.messagingAccountId)} on this project${ownAccount ? ' or this account' : ''}`,
      );
    }
  }
  const entries = (setting.notifications ?? []) as ChatNotificationEntry[];
  const named = [...new Set(entries.flatMap((e) => e.accountIds ?? []))];
  const accounts =
    named.length === 0
      ? []
      : await services.db.selectFrom('accounts').select(['id', 'alias']).where('project_id', '=', projectId).where('id', 'in', named).execute();
  const known = new Map(accounts.map((a) => [a.id, a.alias]));
  for (const [i, entry] of entries.entries()) {
    for (const id of entry.accountIds ?? []) {
      if (!known.has(id)) throw invalid(`notifications[${i}].accountIds`, `${id} is no account of this project`);
      if (ownAccount !== null && id !== ownAccount) throw invalid(`notifications[${i}].accountIds`, `a feature of account ${ownAccount} sends its lines only`);
    }
  }
  const aliases = Object.fromEntries([...known].filter(([, alias]) => alias).map(([id, alias]) => [id, alias!]));
  return { ...setting, notifications: entries.map((entry) => normalizedEntry(entry, aliases)) };
};
