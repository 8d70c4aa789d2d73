// Registration and sign-in of a brand's customers by e-mail (issue 23: "a one-time link or code sent
// through the SMTP channel; no passwords to store"):
//   1. requestCustomerCode: the person names the brand (its subdomain) and an address. An address not
//      registered under the brand must pass its registration controls (restrictRegistration,
//      allowedEmailDomains, allowedRegistrationEmails: domain/customer/registration.ts); a blocked customer
//      is refused. An 8-digit code goes out by e-mail through SMTP_URL, at most CODE_SEND_LIMIT per address
//      and brand an hour; only its hash is kept (domain/customer/signInCode.ts).
//   2. signInCustomer: the code, good for 10 minutes and 5 guesses, registers the address (first time;
//      the controls are checked again) and opens a session: a bearer token (shown once, its SHA-256 kept)
//      for the customer's own operations (app/customersProjects.ts), valid SESSION_TTL_MS.
import { createHash, randomBytes, randomInt } from 'node:crypto';
import { customerBlocked, customerDecider } from '../domain/customer/decider.js';
import { customerStream, normaliseEmail } from '../domain/customer/events.js';
import { checkCustomerEmail, registrationRefusal } from '../domain/customer/registration.js';
import {
  CODE_DIGITS,
  CODE_SEND_LIMIT,
  CODE_SEND_WINDOW_MS,
  CODE_TTL_MS,
  type CodePurpose,
  customerCodeDecider,
  customerCodeStream,
  hashCode,
} from '../domain/customer/signInCode.js';
import type { RequestContext } from '../domain/shared/command.js';
import { DomainError, invalid, notFound } from '../domain/shared/errors.js';
import { emailSender } from '../engine/notifications/email.js';
import { codesSentSince, customerByEmail, type CustomerRow, sessionByTokenHash } from '../projections/customers/queries.js';
import { type Brand, brandBySubdomain, CUSTOMER_READ_MODELS, registerCustomer } from './customers.js';
import { commandMetadata, type CommandServices, execute } from './services.js';
import { aggregateStream } from '../store/commandHandler.js';

export const SESSION_TTL_MS = 12 * 3600_000;
export const CUSTOMER_TOKEN_PREFIX = 'cst_';

const forbidden = (code: string, message: string) => new DomainError('forbidden', code, message);

export const hashCustomerToken = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

/** The brand at `subdomain`, or 404 [WHITE_LABEL_NOT_FOUND]. */
export const loadBrandAt = async (services: Pick<CommandServices, 'db'>, subdomain: string): Promise<Brand> => {
  const brand = await brandBySubdomain(services, subdomain);
  if (!brand) throw notFound('[WHITE_LABEL_NOT_FOUND]', `no white-label brand at ${subdomain}`);
  return brand;
};

const checkMayRegister = (brand: Brand, email: string): void => {
  const refusal = registrationRefusal(brand.settings, email);
  if (refusal) throw forbidden('[CUSTOMER_REGISTRATION_NOT_ALLOWED]', `${email}: ${refusal}`);
};

export interface SentCode {
  readonly codeId: string;
  readonly purpose: CodePurpose;
  readonly expiresAt: string;
}

const sendCodeMail = async (services: CommandServices, brand: Brand, email: string, code: string, purpose: CodePurpose): Promise<void> => {
  const smtp = services.config.notifications;
  if (!smtp.smtpUrl)
    throw Object.assign(new Error('no e-mail'), {
      temporarilyUnavailable: true,
      code: '[EMAIL_UNAVAILABLE]',
      message: 'this service sends no e-mail (SMTP_URL is not set): customers cannot sign in',
      retryAfterSeconds: 60,
    });
  const minutes = CODE_TTL_MS / 60_000;
  const words = purpose === 'REGISTRATION' ? `Your code to register with ${brand.settings.name}` : `Your code to sign in to ${brand.settings.name}`;
  const result = await emailSender({ url: smtp.smtpUrl, from: smtp.smtpFrom })({
    url: `mailto:${email}`,
    body: JSON.stringify({
      subject: `${words}: ${code}`,
      text: `${words}: ${code}\n\nIt is good for ${minutes} minutes and one use. If you did not ask for it, ignore this e-mail.\n\n${brand.settings.name} — https://${brand.settings.subdomain}`,
    }),
    timeoutMs: 15_000,
  });
  if (!result.ok) {
    services.log.warn(`customer sign-in code to ${email} not sent: ${result.error ?? 'unknown'}`);
    throw Object.assign(new Error('mail failed'), {
      temporarilyUnavailable: true,
      code: '[EMAIL_UNAVAILABLE]',
      message: 'the code could not be sent by e-mail; try again',
      retryAfterSeconds: 30,
    });
  }
};

/** Step 1: sends a code to `emailGiven` under the brand at `subdomain`. */
export const requestCustomerCode = async (services: CommandServices, subdomain: string, emailGiven: string, context: RequestContext): Promise<SentCode> => {
  const email = normaliseEmail(emailGiven);
  checkCustomerEmail(email);
  const brand = await loadBrandAt(services, subdomain);
  const customer = await customerByEmail(services.db, brand.featureId, email);
  if (customer?.status === 'BLOCKED') throw customerBlocked();
  if (!customer) checkMayRegister(brand, email);
  const now = services.clock();
  if ((await codesSentSince(services.db, brand.featureId, email, new Date(now.getTime() - CODE_SEND_WINDOW_MS))) >= CODE_SEND_LIMIT) {
    throw new DomainError('tooManyRequests', '[RATE_LIMITED]', `at most ${CODE_SEND_LIMIT} codes an hour go to one address`, {
      retryAfterSeconds: CODE_SEND_WINDOW_MS / 1000 / CODE_SEND_LIMIT,
    });
  }
  const codeId = crypto.randomUUID();
  const code = String(randomInt(0, 10 ** CODE_DIGITS)).padStart(CODE_DIGITS, '0');
  const purpose: CodePurpose = customer ? 'SIGN_IN' : 'REGISTRATION';
  const expiresAt = new Date(now.getTime() + CODE_TTL_MS).toISOString();
  await execute(
    services,
    customerCodeStream(codeId),
    customerCodeDecider,
    {
      type: 'SendCustomerCode',
      data: { codeId, brandFeatureId: brand.featureId, email, purpose, codeHash: hashCode(codeId, code), expiresAt },
      metadata: commandMetadata(services, context),
    },
    CUSTOMER_READ_MODELS,
  );
  await sendCodeMail(services, brand, email, code, purpose);
  return { codeId, purpose, expiresAt };
};

export interface CustomerSession {
  readonly token: string;
  readonly sessionId: string;
  readonly expiresAt: string;
  readonly customer: CustomerRow;
  readonly registered: boolean;
}

/** Step 2: the code opens a session (and registers the address the first time). */
export const signInCustomer = async (
  services: CommandServices,
  subdomain: string,
  input: { codeId: string; code: string },
  context: RequestContext,
): Promise<CustomerSession> => {
  const brand = await loadBrandAt(services, subdomain);
  // Another brand's code is refused before it is used: it stays good at its own brand.
  const before = await aggregateStream(services.store, customerCodeStream(input.codeId), customerCodeDecider.evolve, customerCodeDecider.initialState);
  if (before.state.exists && before.state.brandFeatureId !== brand.featureId)
    throw invalid('[CUSTOMER_CODE_INVALID]', 'the code is wrong, used or unknown: ask for a new one');
  const used = await execute(
    services,
    customerCodeStream(input.codeId),
    customerCodeDecider,
    { type: 'UseCustomerCode', data: { codeId: input.codeId, codeHash: hashCode(input.codeId, input.code) }, metadata: commandMetadata(services, context) },
    CUSTOMER_READ_MODELS,
  );
  if (used.state.brandFeatureId !== brand.featureId) throw invalid('[CUSTOMER_CODE_INVALID]', 'the code is wrong, used or unknown: ask for a new one');
  if (used.events.some((e) => e.type === 'CustomerCodeRejected')) {
    throw invalid('[CUSTOMER_CODE_INVALID]', 'the code is wrong, used or unknown: ask for a new one');
  }
  const email = used.state.email;
  let customer = await customerByEmail(services.db, brand.featureId, email);
  const registered = !customer;
  if (!customer) {
    checkMayRegister(brand, email);
    customer = await registerCustomer(services, brand, email, context);
  }
  if (customer.status === 'BLOCKED') throw customerBlocked();
  const token = `${CUSTOMER_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
  const sessionId = crypto.randomUUID();
  const expiresAt = new Date(services.clock().getTime() + SESSION_TTL_MS).toISOString();
  await execute(
    services,
    customerStream(brand.featureId, email),
    customerDecider,
    {
      type: 'SignInCustomer',
      data: { sessionId, tokenHash: hashCustomerToken(token), codeId: input.codeId, expiresAt },
      metadata: commandMetadata(services, context),
    },
    CUSTOMER_READ_MODELS,
  );
  return { token, sessionId, expiresAt, customer: (await customerByEmail(services.db, brand.featureId, email)) ?? customer, registered };
};

export interface SignedInCustomer {
  readonly sessionId: string;
  readonly customerId: number;
  readonly brandFeatureId: string;
  readonly email: string;
}

/** The customer of a bearer token: 401 [CUSTOMER_TOKEN_INVALID] when unknown, expired or signed out; 403 [CUSTOMER_BLOCKED]. */
export const customerOfToken = async (services: Pick<CommandServices, 'db' | 'clock'>, token: string | null): Promise<SignedInCustomer> => {
  const unknown = () => new DomainError('unauthorized', '[CUSTOMER_TOKEN_INVALID]', 'sign in again: the customer token is unknown, expired or signed out');
  if (!token || !token.startsWith(CUSTOMER_TOKEN_PREFIX) || token.length > 128) throw unknown();
  const session = await sessionByTokenHash(services.db, hashCustomerToken(token), services.clock());
  if (!session) throw unknown();
  if (session.status === 'BLOCKED') throw customerBlocked();
  return { sessionId: session.session_id, customerId: session.customer_id, brandFeatureId: session.brand_feature_id, email: session.email };
};

/** Ends the session of this token. */
export const signOutCustomer = async (services: CommandServices, customer: SignedInCustomer, context: RequestContext): Promise<void> => {
  await execute(
    services,
    customerStream(customer.brandFeatureId, customer.email),
    customerDecider,
    { type: 'SignOutCustomer', data: { sessionId: customer.sessionId }, metadata: commandMetadata(services, context) },
    CUSTOMER_READ_MODELS,
  );
};
