// Creating a copier (spec "Copiers"): the path account is the slave, fromAccountId the master. Besides
// the copier's own rules (its decider), the copy network must stay sound: both accounts exist in the
// project and are not deleted, no second copier joins the same two accounts, and no copier closes a
// cycle. Those checks read the copiers read model (only the links into the new slaves and those reachable
// from them: projections/copiers/queries.ts copierEdgesAround), so they and the write are one step of the
// copy network (COPIER_GRAPH_TURN, an advisory lock across instances): two concurrent writes cannot
// together close a cycle, whatever projects they are in.
import { randomUUID } from 'node:crypto';
import { AccountStatus } from '../../domain/account/enums.js';
import type { CopierCommand } from '../../domain/copier/commands.js';
import { copierDecider } from '../../domain/copier/decider.js';
import { type CopierStrategies, copierStream } from '../../domain/copier/events.js';
import { type CopierEdge, copierExists, wouldCloseCycle } from '../../domain/copier/graph.js';
import type { CopierSettings } from '../../domain/copier/settings.js';
import type { RequestContext } from '../../domain/shared/command.js';
import { illegalState, notFound } from '../../domain/shared/errors.js';
import { findAccount } from '../../projections/accounts/queries.js';
import { copierEdgesAround } from '../../projections/copiers/queries.js';
import { afterCopyEngine, commandMetadata, execute, oneAtATime, type Services } from '../services.js';

/** What a copier's answer (CopierDTO) is read from. */
export const COPIER_READ_MODELS = ['copiers'] as const;

export interface CopierCreation {
  readonly projectId: string;
  /** The slave as the route loaded it: an account of the project the caller may reach. */
  readonly slave: { readonly id: string; readonly account_status_id: number };
  readonly fromAccountId: string;
  readonly settings: CopierSettings;
  /** A strategy copier's strategy (app/strategies.ts checked it is the project's): one of the two at most. */
  readonly strategies?: CopierStrategies;
  /** Checks made in the project's turn, before the write (a strategy copier: its strategy still exists). */
  readonly check?: () => Promise<void>;
  readonly context: RequestContext;
}

/**
 * The turn of the copy network, ONE for every project: each write that adds a copier link takes it for
 * its checks and its write (copier creations, a template's apply: app/templates.ts, a follower's
 * subscription and its repair: app/signals.ts, app/signalsRepair.ts), and so do strategy deletions
 * (app/strategies.ts: no strategy copier is created meanwhile). A signal follower's copier joins
 * projects, so a cycle may run through several: two writes in different projects, each checked while
 * the other's link is not stored yet, could close one together under a turn per project. The turn is
 * held for a walk and an append (never for a venue call), so creations of all projects wait on each other
 * that long.
 */
export const COPIER_GRAPH_TURN = 'copier-graph';

/** Creates the copier and answers its id once the read models (and, with copyOpenPositions, the engine) have it. */
export const createCopier = async (services: Services, creation: CopierCreation): Promise<string> => {
  const [copierId] = await createCopiers(services, creation.projectId, [creation]);
  return copierId!;
};

/**
 * Creates copiers of one project in one turn of the copy network: each is checked against the copiers
 * stored and those before it in the list (a duplicate or a cycle among them is refused like one with
 * a stored copier), then all are written together; answers their ids, in order. The first refusal
 * throws before anything is written. The copy-latency bench adds its thousands of slaves this way.
 */
export const createCopiers = async (services: Services, projectId: string, creations: readonly CopierCreation[]): Promise<string[]> => {
  const made = creations.map((creation) => {
    if (creation.projectId !== projectId) throw new Error(`a creation of project ${creation.projectId} among those of ${projectId}`);
    return checkedByItsOwnRules(services, creation);
  });
  const positions = await oneAtATime(services, COPIER_GRAPH_TURN, async () => {
    // Only the links the rules look at: into the new slaves, and on from them (a cycle runs back from a slave).
    const edges: CopierEdge[] = await copierEdgesAround(
      services.db,
      projectId,
      made.map((creation) => creation.slave.id),
    );
    const masters = new Map<string, ReturnType<typeof findAccount>>();
    for (const creation of made) {
      await checkInNetwork(services, creation, edges, masters);
      const { fromStrategyId = null, toStrategyId = null } = creation.strategies ?? {};
      edges.push({ from_account_id: creation.fromAccountId, to_account_id: creation.slave.id, from_strategy_id: fromStrategyId, to_strategy_id: toStrategyId });
    }
    // The answer is the copier as the copiers read model has it: the audit log need not be there yet.
    return Promise.all(
      made.map(async ({ copierId, command, settings }) => {
        const result = await execute(services, copierStream(copierId), copierDecider, command, COPIER_READ_MODELS);
        return settings.copyOpenPositions && settings.active ? result.position : null;
      }),
    );
  });
  // With copyOpenPositions, the master's open positions are copied before the answer.
  for (const position of positions) await afterCopyEngine(services, position, [...COPIER_READ_MODELS, 'copies', 'positions']);
  return made.map((creation) => creation.copierId);
};

interface CheckedCopierCreation extends CopierCreation {
  readonly copierId: string;
  readonly command: CopierCommand;
}

/** The copier's own rules answer before the copy network's turn is awaited. */
const checkedByItsOwnRules = (services: Services, creation: CopierCreation): CheckedCopierCreation => {
  const { projectId, slave, fromAccountId, settings } = creation;
  const copierId = randomUUID();
  const command: CopierCommand = {
    type: 'CreateCopier',
    data: { copierId, projectId, toAccountId: slave.id, fromAccountId, settings, ...creation.strategies },
    metadata: commandMetadata(services, creation.context),
  };
  copierDecider.decide(command, copierDecider.initialState);
  return { ...creation, copierId, command };
};

/** In the copy network's turn: both accounts there and not deleted, no same copier, no cycle. */
const checkInNetwork = async (
  services: Services,
  creation: CheckedCopierCreation,
  edges: readonly CopierEdge[],
  /** The masters read in this turn, by id: a thousand slaves of one master read it once. */
  masters: Map<string, ReturnType<typeof findAccount>>,
): Promise<void> => {
  const { projectId, slave, fromAccountId } = creation;
  const strategies = creation.strategies ?? {};
  await creation.check?.();
  let reading = masters.get(fromAccountId);
  if (!reading) {
    reading = findAccount(services.db, projectId, fromAccountId);
    masters.set(fromAccountId, reading);
  }
  const master = await reading;
  if (!master) throw notFound('[ACCOUNT_NOT_FOUND]', `master account ${fromAccountId} not found`);
  for (const account of [master, slave]) {
    if (account.account_status_id === AccountStatus.Deleted) throw illegalState('[ACCOUNT_DELETED]', `account ${account.id} was deleted`);
  }
  if (copierExists(edges, fromAccountId, slave.id, strategies)) {
    throw illegalState('[COPIER_ALREADY_EXISTS]', 'this account already copies from that master (with the same strategy, if any)');
  }
  if (wouldCloseCycle(edges, fromAccountId, slave.id)) {
    throw illegalState('[COPIER_CYCLE]', 'this copier would close a cycle: the master already copies from this account, directly or through others');
  }
};
