// What a signed-in customer does with its projects, and the brand's controls on them (issue 23):
//   - createCustomerProject: a new project owned by the customer (ProjectCreated with its e-mail as owner,
//     then CustomerProjectOwned), at most maxProjectsPerUser (0: DEFAULT_MAX_PROJECTS_PER_CUSTOMER), with a
//     first project-level key (shown once). Customer projects are never dedicated (disableDedicatedProjects
//     holds by construction) and their names need not be unique (unlike the operator's, scripts/project.ts).
//   - issueCustomerProjectKey: another project-level key of one of its own live projects.
//   The customer's credentials are thus ordinary API keys of its own projects: they reach nothing else
//   (api/shared/projects.ts), and once the customer is blocked they are refused at the next request
//   (api/auth.ts reads the project's customer status with the key) and then revoked (app/customersBlock.ts).
//   - checkCustomerAccountCreation: account creation in a customer's project honours the brand's
//     maxAccountsPerProject (0: DEFAULT_MAX_ACCOUNTS_PER_CUSTOMER_PROJECT), allowedRegions, the allowed
//     account types (allowedAccountTypeIds) and disableDedicatedIpPurchase.
import { AccountStatus } from '../domain/account/enums.js';
import type { AccountSettings } from '../domain/account/events.js';
import { customerBlocked, customerDecider, projectLimit } from '../domain/customer/decider.js';
import { customerStream } from '../domain/customer/events.js';
import { projectDecider } from '../domain/project/decider.js';
import { projectStream } from '../domain/project/events.js';
import type { RequestContext } from '../domain/shared/command.js';
import { DomainError, illegalState, invalid, notFound } from '../domain/shared/errors.js';
import { presentWhiteLabel } from '../domain/whiteLabel/feature.js';
import type { FeatureSetting } from '../domain/feature/events.js';
import { customerById, customerOfProject, type CustomerRow } from '../projections/customers/queries.js';
import { payoutMethodOf } from '../projections/payouts/queries.js';
import { findProject, type ProjectRow } from '../projections/projects/queries.js';
import type { IssuedKey } from './commands/apiKeys.js';
import { issueProjectLevelKey } from './commands/projects.js';
import { type Brand, brandById, CUSTOMER_READ_MODELS } from './customers.js';
import type { SignedInCustomer } from './customersSignIn.js';
import { commandMetadata, type CommandServices, execute, oneAtATime } from './services.js';

/** Accounts per customer project when the brand's maxAccountsPerProject is 0 (spec: "0 = platform default"). */
export const DEFAULT_MAX_ACCOUNTS_PER_CUSTOMER_PROJECT = 100;

const forbidden = (code: string, message: string) => new DomainError('forbidden', code, message);

export const accountLimit = (brand: Brand): number =>
  brand.settings.maxAccountsPerProject > 0 ? brand.settings.maxAccountsPerProject : DEFAULT_MAX_ACCOUNTS_PER_CUSTOMER_PROJECT;

/** The platform types the brand allows (its accountTypes less OAuth types without their pair). */
const allowedTypes = (brand: Brand): number[] =>
  (presentWhiteLabel({ type: 'FeatureWhiteLabelDTO', ...brand.settings } as unknown as FeatureSetting) as unknown as { allowedAccountTypeIds: number[] })
    .allowedAccountTypeIds;

export interface CustomerOverview {
  readonly customer: CustomerRow;
  readonly brand: Brand;
  readonly projects: readonly ProjectRow[];
  readonly maxProjects: number;
  readonly maxAccountsPerProject: number;
  readonly allowedAccountTypeIds: readonly number[];
  readonly allowedRegionIds: readonly number[];
  /** Its payout method: Wise e-mail addresses (empty: none recorded). */
  readonly payoutEmails: readonly string[];
}

export const loadSignedIn = async (services: Pick<CommandServices, 'db'>, who: SignedInCustomer): Promise<{ customer: CustomerRow; brand: Brand }> => {
  const customer = await customerById(services.db, who.customerId);
  if (!customer) throw notFound('[CUSTOMER_NOT_FOUND]', `customer ${who.customerId} not found`);
  if (customer.status === 'BLOCKED') throw customerBlocked();
  const brand = await brandById(services, customer.brandFeatureId);
  if (!brand) throw notFound('[WHITE_LABEL_NOT_FOUND]', 'the brand of this customer was removed');
  return { customer, brand };
};

/** The signed-in customer, its brand's controls and its live projects. */
export const customerOverview = async (services: Pick<CommandServices, 'db'>, who: SignedInCustomer): Promise<CustomerOverview> => {
  const { customer, brand } = await loadSignedIn(services, who);
  const projects: ProjectRow[] = [];
  for (const id of customer.liveProjectIds) {
    const row = await findProject(services.db, id);
    if (row) projects.push(row);
  }
  return {
    customer,
    brand,
    projects,
    maxProjects: projectLimit(brand.settings.maxProjectsPerUser),
    maxAccountsPerProject: accountLimit(brand),
    allowedAccountTypeIds: allowedTypes(brand),
    allowedRegionIds: brand.settings.allowedRegions.map((r) => r.id),
    payoutEmails: await payoutMethodOf(services.db, customer.customerId),
  };
};

/** A new project of the customer, with its first project-level key. */
export const createCustomerProject = async (
  services: CommandServices,
  who: SignedInCustomer,
  nameGiven: string,
  context: RequestContext,
): Promise<{ project: ProjectRow; key: IssuedKey }> => {
  const name = nameGiven.trim();
  if (name === '') throw invalid('[VALIDATION_FAILED]', 'name: not blank', { field: 'body.name' });
  return oneAtATime(services, `customer-projects:${who.customerId}`, async () => {
    const { customer, brand } = await loadSignedIn(services, who);
    const limit = projectLimit(brand.settings.maxProjectsPerUser);
    if (customer.liveProjectIds.length >= limit) {
      throw illegalState('[CUSTOMER_PROJECT_LIMIT_REACHED]', `a customer of this brand owns at most ${limit} projects (maxProjectsPerUser)`);
    }
    const projectId = crypto.randomUUID();
    const ctx = { ...context, projectId };
    await execute(
      services,
      projectStream(projectId),
      projectDecider,
      { type: 'CreateProject', data: { projectId, name, owner: customer.email }, metadata: commandMetadata(services, ctx) },
      ['projects'],
    );
    await execute(
      services,
      customerStream(brand.featureId, customer.email),
      customerDecider,
      { type: 'OwnProject', data: { projectId, maxProjects: brand.settings.maxProjectsPerUser }, metadata: commandMetadata(services, ctx) },
      CUSTOMER_READ_MODELS,
    );
    const key = await issueProjectLevelKey(services, projectId, `customer key of ${customer.email}`, ctx);
    const project = await findProject(services.db, projectId);
    if (!project) throw new Error(`project ${projectId} was created but the read model does not show it`);
    return { project, key };
  });
};

/** Another project-level key of one of the customer's own live projects (404 for any other project). */
export const issueCustomerProjectKey = async (
  services: CommandServices,
  who: SignedInCustomer,
  projectId: string,
  context: RequestContext,
): Promise<IssuedKey> => {
  const { customer } = await loadSignedIn(services, who);
  if (!customer.liveProjectIds.includes(projectId)) throw notFound('[PROJECT_NOT_FOUND]', `project ${projectId} not found`);
  return issueProjectLevelKey(services, projectId, `customer key of ${customer.email}`, { ...context, projectId });
};

/**
 * The brand's controls on a new account in a customer's project; nothing for the operator's own projects.
 * Called under the project's creation lock (app/commands/createAccount.ts), so the count is exact.
 */
export const checkCustomerAccountCreation = async (
  services: Pick<CommandServices, 'db'>,
  projectId: string,
  settings: Pick<AccountSettings, 'accountTypeId' | 'regionId' | 'dedicatedIp'>,
): Promise<void> => {
  const owner = await customerOfProject(services.db, projectId);
  if (!owner) return;
  if (owner.status === 'BLOCKED') throw customerBlocked();
  const brand = await brandById(services, owner.brandFeatureId);
  if (!brand) return;
  const regions = brand.settings.allowedRegions.map((r) => r.id);
  if (regions.length > 0 && !regions.includes(settings.regionId)) {
    throw forbidden('[REGION_NOT_ALLOWED]', `region ${settings.regionId} is not among the regions this brand allows (${regions.join(', ')}; allowedRegions)`);
  }
  const types = allowedTypes(brand);
  if (!types.includes(settings.accountTypeId)) {
    throw forbidden('[ACCOUNT_TYPE_NOT_ALLOWED]', `account type ${settings.accountTypeId} is not among the types this brand allows (${types.join(', ')})`);
  }
  if (brand.settings.disableDedicatedIpPurchase && settings.dedicatedIp) {
    throw forbidden('[DEDICATED_IP_NOT_ALLOWED]', 'this brand does not offer dedicated IP addresses (disableDedicatedIpPurchase)');
  }
  const limit = accountLimit(brand);
  const row = await services.db
    .selectFrom('accounts')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('project_id', '=', projectId)
    .where('account_status_id', '<>', AccountStatus.Deleted)
    .executeTakeFirst();
  if (Number(row?.n ?? 0) >= limit) {
    throw illegalState('[CUSTOMER_ACCOUNT_LIMIT_REACHED]', `a project of this brand's customers holds at most ${limit} accounts (maxAccountsPerProject)`);
  }
};
