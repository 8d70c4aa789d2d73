// Lifting a customer's block (ours: PUT /projects/{projectId}/features/{featureId}/whitelabel/customers/
// unblock; the spec gives blocking only). What blocking stopped is restored, asynchronously like the block:
//   1. unblockCustomer (the request): CustomerUnblocked. From the next request on, the keys of the
//      customer's projects work again (they were suspended, never revoked: customer_projects.blocked is
//      false again), it may ask for a code, sign in and get projects, keys and accounts again. Its former
//      sessions stay ended (blocking ended them): it signs in anew.
//   2. The block job's loop (app/customersBlock.ts, one instance at a time) then starts again every
//      account the block stopped (those CustomerAccountStopped named) that is still stopped and not
//      deleted: its venue session first, as POST /accounts/{accountId}/actions/start does, so it trades and
//      copies again. An account whose login the venue refuses now stays stopped (its log has the refusal).
//      CustomerUnblockCompleted records which it started and which not, and a summary e-mail goes to the
//      brand's operator as for the block.
import { v5 as uuidv5 } from 'uuid';
import { accountDecider } from '../domain/account/decider.js';
import { AccountStatus } from '../domain/account/enums.js';
import { accountStream } from '../domain/account/events.js';
import { customerDecider } from '../domain/customer/decider.js';
import { customerStream, normaliseEmail } from '../domain/customer/events.js';
import { type RequestContext, systemContext } from '../domain/shared/command.js';
import { notFound } from '../domain/shared/errors.js';
import { customerByEmail, type CustomerRow } from '../projections/customers/queries.js';
import { brandById, CUSTOMER_READ_MODELS, loadBrandOfProject, mailBrandOperator } from './customers.js';
import { commandMetadata, type CommandServices, execute, type Services, settle } from './services.js';

/** Fixed forever: the unblock summary e-mail's outbox id derives from it and the job id. */
const UNBLOCK_MAIL_NAMESPACE = '0c6a1e5d-7b2f-4a39-8d4e-1f2a3b4c5d6e';

export interface UnblockStarted {
  readonly customer: CustomerRow;
  readonly jobId: string;
  /** The accounts the job starts again. */
  readonly accountIds: readonly string[];
}

/** Step 1: the operator lifts the block of the customer with this address under its brand. */
export const unblockCustomer = async (
  services: CommandServices,
  projectId: string,
  featureId: string,
  emailGiven: string,
  context: RequestContext,
): Promise<UnblockStarted> => {
  const brand = await loadBrandOfProject(services, projectId, featureId);
  const email = normaliseEmail(emailGiven);
  const customer = await customerByEmail(services.db, brand.featureId, email);
  if (!customer) throw notFound('[CUSTOMER_NOT_FOUND]', `no customer ${email} under this brand`);
  const result = await execute(
    services,
    customerStream(brand.featureId, email),
    customerDecider,
    { type: 'UnblockCustomer', data: { jobId: crypto.randomUUID() }, metadata: commandMetadata(services, context) },
    [...CUSTOMER_READ_MODELS, 'api_keys'],
  );
  const unblocked = result.events.find((e) => e.type === 'CustomerUnblocked');
  const data = unblocked?.type === 'CustomerUnblocked' ? unblocked.data : { jobId: result.state.pendingUnblockJob ?? '', accountIds: [] };
  return { customer: (await customerByEmail(services.db, brand.featureId, email)) ?? customer, jobId: data.jobId, accountIds: data.accountIds };
};

export interface PendingUnblock {
  readonly customer_id: number;
  readonly brand_feature_id: string;
  readonly brand_project_id: string;
  readonly email: string;
  readonly unblock_job_id: string;
  readonly unblock_account_ids: string[] | null;
}

/** The unblocks not completed yet, oldest first (50 at most). */
export const pendingUnblocks = async (services: Services): Promise<PendingUnblock[]> =>
  (await services.db
    .selectFrom('customers')
    .select(['customer_id', 'brand_feature_id', 'brand_project_id', 'email', 'unblock_job_id', 'unblock_account_ids'])
    .where('status', '=', 'ACTIVE')
    .where('unblock_job_id', 'is not', null)
    .orderBy('unblocked_at')
    .limit(50)
    .execute()) as PendingUnblock[];

/** Step 2, run by the block job's loop: finishes these unblocks (pendingUnblocks); answers how many. */
export const finishUnblocks = async (services: Services, pending: readonly PendingUnblock[]): Promise<number> => {
  for (const unblock of pending) await finishUnblock(services, unblock);
  return pending.length;
};

const finishUnblock = async (services: Services, unblock: PendingUnblock): Promise<void> => {
  const context = systemContext(`customer-unblock-${unblock.unblock_job_id}`);
  const restartedAccounts: string[] = [];
  const notRestarted: string[] = [];
  for (const accountId of unblock.unblock_account_ids ?? []) {
    const account = await services.db.selectFrom('accounts').select(['project_id', 'account_status_id']).where('id', '=', accountId).executeTakeFirst();
    if (!account || account.account_status_id === AccountStatus.Deleted) {
      notRestarted.push(accountId);
      continue;
    }
    if (account.account_status_id === AccountStatus.Active) continue;
    try {
      await services.connections.connect(accountId);
    } catch (error) {
      services.log.warn(`customer ${unblock.customer_id} unblocked: account ${accountId} stays stopped: ${String(error)}`);
      notRestarted.push(accountId);
      continue;
    }
    await execute(services, accountStream(accountId), accountDecider, {
      type: 'StartAccount',
      data: { accountId, projectId: account.project_id },
      metadata: commandMetadata(services, context),
    });
    restartedAccounts.push(accountId);
  }
  const brand = await brandById(services, unblock.brand_feature_id);
  const name = brand?.settings.name ?? 'your brand';
  await mailBrandOperator(services, unblock.brand_project_id, {
    id: uuidv5(`customer-unblock/${unblock.unblock_job_id}`, UNBLOCK_MAIL_NAMESPACE),
    what: `customer ${unblock.customer_id} unblocked`,
    subject: `${name}: customer ${unblock.email} unblocked`,
    text: [
      `The block of the customer ${unblock.email} (id ${unblock.customer_id}) of ${name} is lifted.`,
      '',
      `Accounts started again: ${restartedAccounts.length}`,
      `Accounts left stopped (deleted, or the venue refused the login): ${notRestarted.length}${notRestarted.length ? ` (${notRestarted.join(', ')})` : ''}`,
      '',
      'Its API keys work again; it signs in anew.',
    ].join('\n'),
  });
  await execute(services, customerStream(unblock.brand_feature_id, unblock.email), customerDecider, {
    type: 'CompleteCustomerUnblock',
    data: { jobId: unblock.unblock_job_id, restartedAccounts, notRestarted },
    metadata: commandMetadata(services, context),
  });
  await settle(services, CUSTOMER_READ_MODELS);
};
