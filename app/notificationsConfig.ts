// The notification channels' configuration (environment variables, checked at start with the rest, app/config.ts):
//   SMTP_URL    unset   the e-mail channel's SMTP server (smtp://user:password@host:587, smtps://...); unset: no e-mail channel
//   SMTP_FROM   copy-trading-service <notifications@localhost>   the From of every notification e-mail
//   SMTP_ALLOWED_RECIPIENTS   unset (any)   comma-separated domains (example.com) or addresses (ops@example.com)
//               the e-mail channel may send to: any project key names its recipients, and the mail leaves through
//               the operator's SMTP server, so an operator who gives keys to others should set it
//   TELEGRAM_BOT_TOKEN   unset   the operator's Telegram bot, which FeatureTelegramNotificationDTO sends with
//               (through MESSAGING_TELEGRAM_API_ROOT when set); unset: that feature is refused
//   NOTIFICATION_CHAT_RETRY_MS   5000,30000,60000,300000,600000   the waits between a chat delivery's 6 attempts
import { ConfigError } from './config.js';

export interface NotificationsConfig {
  readonly smtpUrl: string | null;
  readonly smtpFrom: string;
  /** Lower-case domains and addresses a recipient must match; empty: any address. */
  readonly allowedRecipients: readonly string[];
  /** The operator's Telegram bot (FeatureTelegramNotificationDTO); null: none. */
  readonly telegramBotToken: string | null;
  /** The waits after a chat delivery's failed attempts 1 to 5. */
  readonly chatRetryMs: readonly number[];
}

/** An address the configuration allows: itself, or its domain, is listed (case-insensitive); everything when nothing is. */
export const recipientAllowed = (config: NotificationsConfig, address: string): boolean => {
  if (config.allowedRecipients.length === 0) return true;
  const lower = address.toLowerCase();
  const domain = lower.slice(lower.lastIndexOf('@') + 1);
  return config.allowedRecipients.includes(lower) || config.allowedRecipients.includes(domain);
};

export const loadNotificationsConfig = (env: NodeJS.ProcessEnv): NotificationsConfig => {
  const smtpUrl = env.SMTP_URL?.trim() || null;
  if (smtpUrl) {
    let protocol = '';
    try {
      protocol = new URL(smtpUrl).protocol;
    } catch {
      protocol = '';
    }
    if (protocol !== 'smtp:' && protocol !== 'smtps:') throw new ConfigError('SMTP_URL must be an smtp:// or smtps:// URL');
  }
  const allowedRecipients = (env.SMTP_ALLOWED_RECIPIENTS ?? '')
    .split(',')
    .map((entry) => entry.trim().toLowerCase())
    .filter(Boolean);
  const wrong = allowedRecipients.find((entry) => !/^([^@\s,]+@)?[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(entry));
  if (wrong) throw new ConfigError(`SMTP_ALLOWED_RECIPIENTS must list domains (example.com) or addresses (ops@example.com), got "${wrong}"`);
  const telegramBotToken = env.TELEGRAM_BOT_TOKEN?.trim() || null;
  if (telegramBotToken && /\s/.test(telegramBotToken)) throw new ConfigError('TELEGRAM_BOT_TOKEN must be a token without spaces');
  const retry = env.NOTIFICATION_CHAT_RETRY_MS?.trim();
  const chatRetryMs = retry ? retry.split(',').map((n) => n.trim()) : ['5000', '30000', '60000', '300000', '600000'];
  if (chatRetryMs.length !== 5 || chatRetryMs.some((n) => !/^\d{1,7}$/.test(n)))
    throw new ConfigError(`NOTIFICATION_CHAT_RETRY_MS must list five waits in milliseconds (5000,30000,60000,300000,600000), got "${retry}"`);
  return {
    smtpUrl,
    smtpFrom: env.SMTP_FROM?.trim() || 'copy-trading-service <notifications@localhost>',
    allowedRecipients,
    telegramBotToken,
    chatRetryMs: chatRetryMs.map(Number),
  };
};
