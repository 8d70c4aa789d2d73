// The notification channels' configuration (environment variables, checked at start with the rest, app/config.ts):
//   SMTP_URL    unset   the e-mail channel's SMTP server (smtp://user:password@host:587, smtps://...); unset: no e-mail channel
//   SMTP_FROM   copy-trading-service <notifications@localhost>   the From of every notification e-mail
import { ConfigError } from './config.js';

export interface NotificationsConfig {
  readonly smtpUrl: string | null;
  readonly smtpFrom: string;
}

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
  return { smtpUrl, smtpFrom: env.SMTP_FROM?.trim() || 'copy-trading-service <notifications@localhost>' };
};
