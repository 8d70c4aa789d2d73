// Seeding the copy-latency bench with thousands of accounts. Through the REST API each creation of an
// account and each of a copier takes the project's turn alone, read models included (spec "Limits":
// one creation at a time per project), so 1,000 slaves took 14 minutes on a loaded machine and the
// soak's 10,000 hours. Here the service's own use cases run many creations in one turn:
// `createAccountLocked` (app/commands/createAccount.ts, what POST /accounts runs in its turn) for a
// chunk of accounts at once under the project's creation lock, and `createCopiers`
// (app/commands/createCopier.ts, what POST .../copiers runs, checked in order against the network) for a
// chunk of copiers. The starts take no project turn: they run as POST .../actions/start does (the venue
// session, then StartAccount), many at once and in this process, so the API's load shedding (503
// [SERVICE_BUSY] after a queue's wait) does not refuse the thousands asked for together. Where the route
// waits for every read model to include each start before it answers, the seed waits once, after all
// of them (settle): the same events, without one wait on the projections per account.
import { randomUUID } from 'node:crypto';
import { fromAccountCreateDTO } from '../../api/accounts/dto.js';
import { fromCopierDTO } from '../../api/copiers/dto.js';
import { creationLock } from '../../app/accounts/creationLock.js';
import { type AccountCreation, createAccountLocked } from '../../app/commands/createAccount.js';
import { createCopiers } from '../../app/commands/createCopier.js';
import { commandMetadata, oneAtATime, type Services, settle } from '../../app/services.js';
import type { AccountCommand } from '../../domain/account/commands.js';
import { accountDecider } from '../../domain/account/decider.js';
import { accountStream } from '../../domain/account/events.js';
import { AccountStatus } from '../../domain/account/enums.js';
import { defaultCopierSettings } from '../../domain/copier/settings.js';
import type { RequestContext } from '../../domain/shared/command.js';
import { handleCommand } from '../../store/commandHandler.js';
import { progress } from './support/progress.js';

/** Creations written in one turn of the project. */
const CHUNK = 250;
/** Starts asked for at once: each waits on the venue's saves and the store's appends, which many share. */
const STARTS_AT_ONCE = 64;
/**
 * Creations of one turn run this many at once: all 250 at once each took a pooled connection for its
 * stream read, and on a loaded machine the last ones waited past the pool's 10 s connect timeout.
 */
const CREATIONS_AT_ONCE = 16;

const benchContext = (projectId: string): RequestContext => ({
  apiKeyId: null,
  projectId,
  clientIp: null,
  method: 'BENCH',
  path: 'scripts/bench/copyLatencySeed.ts',
  correlationId: randomUUID(),
});

const chunksOf = <T>(items: readonly T[]): T[][] => {
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) chunks.push(items.slice(i, i + CHUNK));
  return chunks;
};

/** Runs `work` on each item, `concurrency` at a time. */
const eachAtOnce = async <T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> => {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
};

/**
 * `count` accounts of `projectId` at the simulated venue's Bench-Demo server (what createBenchAccount
 * sends through the API, each its own login named `prefix-i-…`), created and started; answers their ids.
 */
export const createStartedAccounts = async (services: Services, projectId: string, prefix: string, count: number): Promise<string[]> => {
  const run = Math.random().toString(36).slice(2, 8);
  const creations: AccountCreation[] = Array.from({ length: count }, (_, i) => {
    const alias = `${prefix}-${i}-${run}`;
    const settings = fromAccountCreateDTO(services, {
      loginServer: 'Bench-Demo',
      loginAccountNumber: alias,
      loginAccountPassword: 'bench',
      type: { id: 1 },
      region: { id: 2 },
      alias,
    });
    return { accountId: randomUUID(), projectId, settings, failIfAccountExistsInProject: false, context: benchContext(projectId) };
  });
  const created = progress(`${prefix}: creating ${count} accounts, ${CHUNK} a turn`, count);
  for (const chunk of chunksOf(creations)) {
    await oneAtATime(services, creationLock(projectId), () =>
      eachAtOnce(chunk, CREATIONS_AT_ONCE, async (creation) => void (await createAccountLocked(services, creation))),
    );
    created.increment(chunk.length);
  }
  created.stop();
  const ids = creations.map((creation) => creation.accountId);
  const started = progress(`${prefix}: starting ${count} accounts, ${STARTS_AT_ONCE} at once`, count);
  await eachAtOnce(ids, STARTS_AT_ONCE, async (accountId) => {
    // What POST .../actions/start does: the venue session first, then the account's StartAccount.
    await services.connections.connect(accountId);
    const start: AccountCommand = { type: 'StartAccount', data: { accountId, projectId }, metadata: commandMetadata(services, benchContext(projectId)) };
    await handleCommand(services.store, accountStream(accountId), accountDecider, start);
    started.increment();
  });
  await settle(services);
  started.stop();
  return ids;
};

/** A copier (multiplier 1, the defaults otherwise, as POST .../copiers makes it) from `master` to each slave. */
export const addCopiers = async (
  services: Services,
  projectId: string,
  links: readonly { readonly master: string; readonly slave: string }[],
): Promise<void> => {
  const bar = progress(`adding ${links.length} copiers, ${CHUNK} a turn`, links.length);
  for (const chunk of chunksOf(links)) {
    await createCopiers(
      services,
      projectId,
      chunk.map(({ master, slave }) => ({
        projectId,
        slave: { id: slave, account_status_id: AccountStatus.Active },
        fromAccountId: master,
        settings: { ...defaultCopierSettings, ...fromCopierDTO({ multiplier: 1 }) },
        context: benchContext(projectId),
      })),
    );
    bar.increment(chunk.length);
  }
  bar.stop();
};
