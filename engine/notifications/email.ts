// The e-mail channel's sender (ARCHITECTURE "Outside systems": notification channels over SMTP, on
// nodemailer): one attempt of an outbox message of kind EMAIL_DELIVERY_KIND. The message's url is
// `mailto:<address>`, its body {subject, text}; the outbox keeps it durable, retries it and shows it per
// channel, like a webhook's deliveries.
import nodemailer, { type Transporter } from 'nodemailer';
import type { AttemptResult } from '../delivery/httpSender.js';
import type { OutboxSender } from '../delivery/outbox.js';

export const EMAIL_DELIVERY_KIND = 'EMAIL';

export interface SmtpSettings {
  /** smtp://user:password@host:port or smtps://...; nodemailer's connection URL. */
  readonly url: string;
  /** The From header. */
  readonly from: string;
}

export const emailSender = (smtp: SmtpSettings): OutboxSender => {
  let transport: Transporter | null = null;
  return async ({ url, body, timeoutMs }): Promise<AttemptResult> => {
    if (!url.startsWith('mailto:')) return { ok: false, status: null, error: `not an e-mail recipient: ${url}` };
    const message = JSON.parse(body) as { subject?: string; text?: string };
    const address = new URL(smtp.url);
    transport ??= nodemailer.createTransport({
      host: address.hostname,
      port: Number(address.port || (address.protocol === 'smtps:' ? 465 : 587)),
      secure: address.protocol === 'smtps:',
      ...(address.username ? { auth: { user: decodeURIComponent(address.username), pass: decodeURIComponent(address.password) } } : {}),
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
    });
    try {
      await transport.sendMail({ from: smtp.from, to: url.slice('mailto:'.length), subject: message.subject ?? '', text: message.text ?? '' });
      return { ok: true, status: null, error: null };
    } catch (error) {
      const code = (error as { responseCode?: number }).responseCode ?? null;
      return { ok: false, status: code, error: error instanceof Error ? error.message : String(error) };
    }
  };
};
