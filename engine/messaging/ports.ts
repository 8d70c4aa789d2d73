// The chat port of a FeatureMessagingAccountDTO: kept per feature while its platform and token stay
// the same (a Telegram or Discord client is made once, not per poll).
import type { MessagingConfig } from '../../app/messaging/config.js';
import { offlineChat } from './offline.js';
import { DiscordChat } from './discord.js';
import type { ChatPort } from './port.js';
import { TelegramChat } from './telegram.js';

export interface MessagingAccountRef {
  readonly featureId: string;
  readonly platform: 'OFFLINE' | 'TELEGRAM' | 'DISCORD';
  /** The bot token in clear (unsealed by the caller); null for OFFLINE. */
  readonly token: string | null;
}

const made = new Map<string, { key: string; port: ChatPort }>();

export const chatPortFor = (account: MessagingAccountRef, config: Pick<MessagingConfig, 'telegramApiRoot' | 'discordApiRoot'>): ChatPort => {
  if (account.platform === 'OFFLINE' || account.token === null) return offlineChat(account.featureId);
  const key = `${account.platform}/${account.token}`;
  const kept = made.get(account.featureId);
  if (kept && kept.key === key) return kept.port;
  const port =
    account.platform === 'TELEGRAM' ? new TelegramChat(account.token, config.telegramApiRoot) : new DiscordChat(account.token, config.discordApiRoot);
  made.set(account.featureId, { key, port });
  return port;
};
