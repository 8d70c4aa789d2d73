// The notification channels' configuration (environment variables, checked at start with the rest, app/config.ts):
//   SMTP_URL    unset   the e-mail channel's SMTP server (smtp://user:password@host:587, smtps://...); unset: no e-mail channel
//   SMTP_FROM   copy-trading-service <notifications@localhost>   the From of every notification e-mail
//   SMTP_ALLOWED_RECIPIENTS   unset (any)   comma-separated domains (example.com) or addresses (ops@example.com)
//               the e-mail channel may send to: any project key names its recipients, and the mail leaves through
//               the operator's SMTP server, so an operator who gives keys to others should set it
import { ConfigError } from './config.js';

export interface NotificationsConfig {
  readonly smtpUrl: string | null;
  readonly smtpFrom: string;
  /** Lower-case domains and addresses a recipient must match; empty: any address. */
  readonly allowedRecipients: readonly string[];
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
  return { smtpUrl, smtpFrom: env.SMTP_FROM?.trim() || 'copy-trading-service <notifications@localhost>', allowedRecipients };
};
