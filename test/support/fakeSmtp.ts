// A local SMTP server (smtp-server) that keeps every mail the service sends, for the specs that read
// e-mails: sign-in codes, alerts, invoices, block summaries. Nothing leaves the machine.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { eventually } from './trading.js';

export interface Mail {
  /** The envelope's recipients, comma-separated. */
  readonly to: string;
  /** The whole message as received (headers and body). */
  readonly raw: string;
}

export interface FakeSmtp {
  /** SMTP_URL for the service. */
  readonly url: string;
  /** Every mail received so far, in order. */
  readonly mails: Mail[];
  /** The sign-in code of the first mail to `email` among those from number `since` on (waits up to 15 s). */
  codeFor(email: string, since?: number): Promise<string>;
  close(): Promise<void>;
}

/** What a customer's sign-in mail says (app/customers.ts): "... code to register with Brand: 12345678". */
const SIGN_IN_CODE = /code to (?:register with|sign in to) [^:]+: (\d{8})/;

/** Starts a server on a free loopback port that takes any mail without authentication. */
export const startFakeSmtp = async (): Promise<FakeSmtp> => {
  const mails: Mail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (d: Buffer) => (raw += d.toString()));
      stream.on('end', () => {
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address).join(','), raw });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`,
    mails,
    async codeFor(email, since = 0) {
      const to = email.toLowerCase();
      const mail = await eventually(async () => mails.slice(since).find((m) => m.to === to), 15_000, `the code e-mail to ${to}`);
      const code = SIGN_IN_CODE.exec(mail.raw)?.[1];
      if (!code) throw new Error(`no sign-in code in the mail to ${to}:\n${mail.raw}`);
      return code;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};
