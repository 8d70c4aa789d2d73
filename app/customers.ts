// Customers of a white-label brand (issue 23): the brand is an operator's project with a FeatureWhiteLabelDTO
// (domain/whiteLabel/feature.ts); its customers register and sign in by e-mail (app/customersSignIn.ts), own
// projects (app/customersProjects.ts) and may be blocked by the operator (app/customersBlock.ts). This file
// finds brands and answers the operator's list.
import { customerStream, normaliseEmail } from '../domain/customer/events.js';
import { customerDecider } from '../domain/customer/decider.js';
import type { RequestContext } from '../domain/shared/command.js';
import { notFound } from '../domain/shared/errors.js';
import { membersOf } from '../domain/feature/definition.js';
import { WHITE_LABEL, whiteLabelFeature, type WhiteLabelSettings } from '../domain/whiteLabel/feature.js';
import { customerByEmail, customersOfBrand, type CustomerRow } from '../projections/customers/queries.js';
import type { ReadModels } from '../projections/schema.js';
import { findProject } from '../projections/projects/queries.js';
import { EMAIL_DELIVERY_KIND } from '../engine/notifications/email.js';
import type { Kysely } from 'kysely';
import { commandMetadata, type CommandServices, execute, oneAtATime, type Services, settle } from './services.js';

export const CUSTOMER_READ_MODELS = ['customers'];

export interface Brand {
  /** The FeatureWhiteLabelDTO's id: the brand's id. */
  readonly featureId: string;
  /** The operator's project that holds it. */
  readonly projectId: string;
  readonly settings: WhiteLabelSettings;
}

const brandRows = (db: Kysely<ReadModels>) =>
  db
    .selectFrom('features')
    .innerJoin('projects', 'projects.id', 'features.project_id')
    .select(['features.id', 'features.project_id', 'features.setting'])
    .where('features.type', '=', WHITE_LABEL)
    .where('features.scope_kind', '=', 'project')
    .where('projects.deleted', 'is', null);

const toBrand = (row: { id: string; project_id: string; setting: unknown }): Brand => ({
  featureId: row.id,
  projectId: row.project_id,
  settings: { ...whiteLabelFeature.defaults, ...membersOf<Partial<WhiteLabelSettings>>(row.setting as { type: string }) } as WhiteLabelSettings,
});

/** The brand with this feature id (a live project's white label), if any. */
export const brandById = async (services: Pick<CommandServices, 'db'>, featureId: string): Promise<Brand | undefined> => {
  const row = await brandRows(services.db).where('features.id', '=', featureId).executeTakeFirst();
  return row ? toBrand(row) : undefined;
};

/**
 * The brand customers reach at this host name (its `subdomain`, case-insensitive). Should two brands name
 * the same one, the older brand answers.
 */
export const brandBySubdomain = async (services: Pick<CommandServices, 'db'>, subdomain: string): Promise<Brand | undefined> => {
  const host = subdomain.trim().toLowerCase();
  if (host === '') return undefined;
  const rows = await brandRows(services.db).orderBy('features.created').orderBy('features.id').execute();
  const row = rows.find((r) => String((r.setting as { subdomain?: unknown }).subdomain ?? '').toLowerCase() === host);
  return row ? toBrand(row) : undefined;
};

/** The brand `featureId` of the operator's project `projectId`, or 404 [FEATURE_NOT_FOUND] (another project's brand too). */
export const loadBrandOfProject = async (services: Pick<CommandServices, 'db'>, projectId: string, featureId: string): Promise<Brand> => {
  const brand = await brandById(services, featureId);
  if (!brand || brand.projectId !== projectId) throw notFound('[FEATURE_NOT_FOUND]', `no white label ${featureId} in project ${projectId}`);
  return brand;
};

/** The operator's list: every customer of the brand, in order of registration. */
export const listCustomers = async (services: Pick<CommandServices, 'db'>, projectId: string, featureId: string): Promise<CustomerRow[]> => {
  const brand = await loadBrandOfProject(services, projectId, featureId);
  return customersOfBrand(services.db, brand.featureId);
};

/**
 * Registers `email` under the brand (no-op when it is registered already) and answers the customer. Its
 * id is the next integer after the highest of the service (CustomerDTO.id is int32), drawn one
 * registration at a time across instances; ids live in the events, so a rebuild keeps them.
 */
export const registerCustomer = async (services: CommandServices, brand: Brand, emailGiven: string, context: RequestContext): Promise<CustomerRow> => {
  const email = normaliseEmail(emailGiven);
  const known = await customerByEmail(services.db, brand.featureId, email);
  if (known) return known;
  await oneAtATime(services, 'customer-ids', async () => {
    await settle(services, CUSTOMER_READ_MODELS);
    const row = await services.db
      .selectFrom('customers')
      .select((eb) => eb.fn.max('customer_id').as('top'))
      .executeTakeFirst();
    const customerId = Number(row?.top ?? 0) + 1;
    await execute(
      services,
      customerStream(brand.featureId, email),
      customerDecider,
      {
        type: 'RegisterCustomer',
        data: { customerId, brandFeatureId: brand.featureId, brandProjectId: brand.projectId, email },
        metadata: commandMetadata(services, context),
      },
      CUSTOMER_READ_MODELS,
    );
  });
  const registered = await customerByEmail(services.db, brand.featureId, email);
  if (!registered) throw new Error(`customer ${email} was registered but the read model does not show it`);
  return registered;
};

/**
 * Mails the brand's operator (the brand project's owner address, else SMTP_FROM's) through the outbox;
 * `id` makes it once only. Without SMTP_URL it only logs that no mail goes out.
 */
export const mailBrandOperator = async (
  services: Services,
  brandProjectId: string,
  mail: { id: string; what: string; subject: string; text: string },
): Promise<void> => {
  const smtp = services.config.notifications;
  if (!smtp.smtpUrl) {
    services.log.warn(`${mail.what}; no summary e-mail (SMTP_URL is not set)`);
    return;
  }
  const owner = (await findProject(services.db, brandProjectId))?.owner ?? null;
  const to = owner ?? /<([^>]+)>/.exec(smtp.smtpFrom)?.[1] ?? smtp.smtpFrom;
  await services.outbox.enqueue(services.db, {
    id: mail.id,
    kind: EMAIL_DELIVERY_KIND,
    url: `mailto:${to}`,
    headers: {},
    body: { subject: mail.subject, text: mail.text },
    maxAttempts: 6,
    backoffMs: [30_000, 60_000, 120_000, 300_000, 600_000],
    timeoutMs: 30_000,
    rateLimit: null,
    webhook: null,
  });
  services.outbox.wake();
};
