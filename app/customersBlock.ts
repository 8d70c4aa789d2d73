// Blocking a customer across every project of the brand (spec: PUT /projects/{projectId}/features/
// {featureId}/whitelabel/customers/block, "asynchronous, summary e-mail when finished"):
//   1. blockCustomer (the request): CustomerBlocked. From the next request on, the customer's session
//      tokens and every key of its projects are refused with 403 [CUSTOMER_BLOCKED] (the read model's
//      customer_projects.blocked, read with the key in api/auth.ts), and no new project, key, account or
//      session is given to it.
//   2. CustomerBlockJob (one instance at a time, a LeasedLoop): for each block not completed, every
//      started account of the customer's projects is stopped (AccountStopped, its broker session closed;
//      its log says why: CustomerAccountStopped), so nothing is traded or copied on it any more; then the
//      summary e-mail goes out through the outbox to the brand project's owner address (else to
//      SMTP_FROM's), and CustomerBlockCompleted records what was done. The keys are suspended, not
//      revoked: refused while the block lasts (step 1), they work again once it is lifted.
//      Each step is an idempotent command, so a job interrupted half-way is finished by the next round.
// Unblocking (app/customersUnblock.ts) lifts the block and the same job starts the stopped accounts again.
import { v5 as uuidv5 } from 'uuid';
import { accountDecider } from '../domain/account/decider.js';
import { AccountStatus } from '../domain/account/enums.js';
import { accountStream } from '../domain/account/events.js';
import { customerDecider } from '../domain/customer/decider.js';
import { customerStream, normaliseEmail } from '../domain/customer/events.js';
import { type RequestContext, systemContext } from '../domain/shared/command.js';
import { notFound } from '../domain/shared/errors.js';
import { customerByEmail, type CustomerRow } from '../projections/customers/queries.js';
import { KeptRead } from '../projections/keptRead.js';
import { liveAccountsOfProject, liveKeysOfProject } from '../projections/projects/queries.js';
import { LeasedLoop } from '../store/postgres/leasedLoop.js';
import type { Leases } from '../store/postgres/leases.js';
import { brandById, CUSTOMER_READ_MODELS, loadBrandOfProject, mailBrandOperator } from './customers.js';
import { finishUnblocks, type PendingUnblock, pendingUnblocks } from './customersUnblock.js';
import { commandMetadata, type CommandServices, execute, type Services, settle } from './services.js';

export const CUSTOMER_BLOCKS_LEASE = 'customers:blocks';
/** Fixed forever: the summary e-mail's outbox id derives from it and the job id. */
const BLOCK_MAIL_NAMESPACE = '5b0f7e3a-2c4d-4e8f-9a1b-6c7d8e9f0a1b';

export interface BlockStarted {
  readonly customer: CustomerRow;
  readonly jobId: string;
  /** false: a job of an earlier request still runs, and this one started none. */
  readonly started: boolean;
}

/** Step 1: the operator blocks the customer with this address under its brand. */
export const blockCustomer = async (
  services: CommandServices,
  projectId: string,
  featureId: string,
  input: { email: string; reason: string | null },
  context: RequestContext,
): Promise<BlockStarted> => {
  const brand = await loadBrandOfProject(services, projectId, featureId);
  const email = normaliseEmail(input.email);
  const customer = await customerByEmail(services.db, brand.featureId, email);
  if (!customer) throw notFound('[CUSTOMER_NOT_FOUND]', `no customer ${email} under this brand`);
  const jobId = crypto.randomUUID();
  const result = await execute(
    services,
    customerStream(brand.featureId, email),
    customerDecider,
    { type: 'BlockCustomer', data: { jobId, reason: input.reason?.trim() || null }, metadata: commandMetadata(services, context) },
    [...CUSTOMER_READ_MODELS, 'api_keys'],
  );
  const blocked = (await customerByEmail(services.db, brand.featureId, email)) ?? customer;
  return { customer: blocked, jobId: result.state.pendingBlockJob ?? blocked.blockJobId ?? jobId, started: result.events.length > 0 };
};

interface PendingBlock {
  readonly customer_id: number;
  readonly brand_feature_id: string;
  readonly brand_project_id: string;
  readonly email: string;
  readonly block_job_id: string;
  readonly blocked_reason: string | null;
}

/** Step 2: the leased job. */
export class CustomerBlockJob {
  private readonly loop: LeasedLoop;
  /** The blocks and the unblocks not completed yet, each read again once the customers read model moved. */
  private readonly blocks: KeptRead<readonly PendingBlock[]>;
  private readonly unblocks: KeptRead<readonly PendingUnblock[]>;

  constructor(
    private readonly services: Services,
    leases: Leases,
    lookMs = 1000,
  ) {
    const marks = (name: string) => services.runner.version(name);
    this.blocks = new KeptRead(CUSTOMER_READ_MODELS, () => this.pendingBlocks(), marks);
    this.unblocks = new KeptRead(CUSTOMER_READ_MODELS, () => pendingUnblocks(services), marks);
    this.loop = new LeasedLoop({
      leases,
      lease: CUSTOMER_BLOCKS_LEASE,
      everyMs: lookMs,
      rounds: services.jobRounds,
      round: async () => void (await this.runPending()),
      failed: (error) => services.log.warn(`customer blocks: a round failed (tried again at the next): ${String(error)}`),
    });
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Finishes every block, then every unblock, not completed yet; answers how many. */
  async runPending(): Promise<number> {
    const pending = await this.blocks.get();
    for (const block of pending) await this.finish(block);
    return pending.length + (await finishUnblocks(this.services, await this.unblocks.get()));
  }

  /** The blocks not completed yet, oldest first (50 at most). */
  private async pendingBlocks(): Promise<PendingBlock[]> {
    return (await this.services.db
      .selectFrom('customers')
      .select(['customer_id', 'brand_feature_id', 'brand_project_id', 'email', 'block_job_id', 'blocked_reason'])
      .where('status', '=', 'BLOCKED')
      .where('block_completed_at', 'is', null)
      .where('block_job_id', 'is not', null)
      .orderBy('blocked_at')
      .limit(50)
      .execute()) as PendingBlock[];
  }

  private async finish(block: PendingBlock): Promise<void> {
    const services = this.services;
    const context = systemContext(`customer-block-${block.block_job_id}`);
    const metadata = () => commandMetadata(services, context);
    const stream = customerStream(block.brand_feature_id, block.email);
    const projects = await services.db
      .selectFrom('customer_projects')
      .select('project_id')
      .where('customer_id', '=', block.customer_id)
      .orderBy('created')
      .execute();
    let suspendedKeys = 0;
    let stoppedAccounts = 0;
    for (const { project_id: projectId } of projects) {
      suspendedKeys += (await liveKeysOfProject(services.db, projectId)).length;
      for (const account of await liveAccountsOfProject(services.db, projectId)) {
        if (account.account_status_id !== AccountStatus.Active) continue;
        // Noted before it is stopped, on the customer's stream: an unblock either comes first (the note
        // is refused, the unblock owns the accounts and nothing more is stopped) or after (it names this
        // account, and the unblock, run by this same loop after this round, starts it again).
        const noted = await execute(services, stream, customerDecider, {
          type: 'NoteCustomerAccountStopped',
          data: { jobId: block.block_job_id, projectId, accountId: account.id },
          metadata: metadata(),
        });
        if (noted.state.pendingBlockJob !== block.block_job_id) return;
        await execute(services, accountStream(account.id), accountDecider, {
          type: 'StopAccount',
          data: { accountId: account.id, projectId },
          metadata: metadata(),
        });
        await services.connections.disconnect(account.id, 'stopped');
        services.log.info(`customer ${block.customer_id} blocked: account ${account.id} of project ${projectId} stopped`);
        stoppedAccounts += 1;
      }
    }
    const projectIds = projects.map((p) => p.project_id);
    const stoppedCopiers =
      projectIds.length === 0
        ? 0
        : Number(
            (
              await services.db
                .selectFrom('copiers')
                .innerJoin('accounts', 'accounts.id', 'copiers.to_account_id')
                .select((eb) => eb.fn.countAll<string>().as('n'))
                .where('accounts.project_id', 'in', projectIds)
                .executeTakeFirst()
            )?.n ?? 0,
          );
    await this.mailSummary(block, { projectIds, suspendedKeys, stoppedAccounts, stoppedCopiers });
    await execute(services, stream, customerDecider, {
      type: 'CompleteCustomerBlock',
      data: { jobId: block.block_job_id, projectIds, suspendedKeys, stoppedAccounts, stoppedCopiers },
      metadata: metadata(),
    });
    await settle(services, CUSTOMER_READ_MODELS);
  }

  private async mailSummary(
    block: PendingBlock,
    done: { projectIds: string[]; suspendedKeys: number; stoppedAccounts: number; stoppedCopiers: number },
  ): Promise<void> {
    const brand = await brandById(this.services, block.brand_feature_id);
    const name = brand?.settings.name ?? 'your brand';
    await mailBrandOperator(this.services, block.brand_project_id, {
      id: uuidv5(`customer-block/${block.block_job_id}`, BLOCK_MAIL_NAMESPACE),
      what: `customer ${block.customer_id} blocked`,
      subject: `${name}: customer ${block.email} blocked`,
      text: [
        `The customer ${block.email} (id ${block.customer_id}) of ${name} is blocked${block.blocked_reason ? `: ${block.blocked_reason}` : ''}.`,
        '',
        `Projects: ${done.projectIds.length}${done.projectIds.length ? ` (${done.projectIds.join(', ')})` : ''}`,
        `API keys suspended (refused while the block lasts): ${done.suspendedKeys}`,
        `Accounts stopped: ${done.stoppedAccounts}`,
        `Copiers into its accounts (no longer copying): ${done.stoppedCopiers}`,
        '',
        'Its sessions and keys are refused, and it cannot sign in again until the block is lifted (PUT .../whitelabel/customers/unblock).',
      ].join('\n'),
    });
  }
}
