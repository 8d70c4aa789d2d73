// Creating a copier (spec "Copiers"): the path account is the slave, fromAccountId the master. Besides
// the copier's own rules (its decider), the copy network must stay sound: both accounts exist in the
// project and are not deleted, no second copier joins the same two accounts, and no copier closes a
// cycle. Those checks read the copiers read model, so they and the write are one step per project
// (an advisory lock across instances): two concurrent creations cannot together close a cycle.
import { randomUUID } from 'node:crypto';
import { AccountStatus } from '../../domain/account/enums.js';
import type { CopierCommand } from '../../domain/copier/commands.js';
import { copierDecider } from '../../domain/copier/decider.js';
import { type CopierStrategies, copierStream } from '../../domain/copier/events.js';
import { copierExists, wouldCloseCycle } from '../../domain/copier/graph.js';
import type { CopierSettings } from '../../domain/copier/settings.js';
import type { RequestContext } from '../../domain/shared/command.js';
import { illegalState, notFound } from '../../domain/shared/errors.js';
import { findAccount } from '../../projections/accounts/queries.js';
import { copierEdges } from '../../projections/copiers/queries.js';
import type { Position } from '../../store/port.js';
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

/** The turn of a project's copy network: copier creations, and strategy deletions (app/strategies.ts). */
export const copierGraphTurn = (projectId: string): string => `copier-graph:${projectId}`;

/** Creates the copier and answers its id once the read models (and, with copyOpenPositions, the engine) have it. */
export const createCopier = async (services: Services, creation: CopierCreation): Promise<string> => {
  const { projectId, slave, fromAccountId, settings } = creation;
  const strategies = creation.strategies ?? {};
  const slaveAccountId = slave.id;
  const copierId = randomUUID();
  const command: CopierCommand = {
    type: 'CreateCopier',
    data: { copierId, projectId, toAccountId: slaveAccountId, fromAccountId, settings, ...strategies },
    metadata: commandMetadata(services, creation.context),
  };
  // The copier's own rules answer before the project's turn is awaited.
  copierDecider.decide(command, copierDecider.initialState);
  let position: Position | null = null;
  await oneAtATime(services, copierGraphTurn(projectId), async () => {
    await creation.check?.();
    const master = await findAccount(services.db, projectId, fromAccountId);
    if (!master) throw notFound('[ACCOUNT_NOT_FOUND]', `master account ${fromAccountId} not found`);
    for (const account of [master, slave]) {
      if (account.account_status_id === AccountStatus.Deleted) throw illegalState('[ACCOUNT_DELETED]', `account ${account.id} was deleted`);
    }
    const edges = await copierEdges(services.db, projectId);
    if (copierExists(edges, fromAccountId, slaveAccountId, strategies)) {
      throw illegalState('[COPIER_ALREADY_EXISTS]', 'this account already copies from that master (with the same strategy, if any)');
    }
    if (wouldCloseCycle(edges, fromAccountId, slaveAccountId)) {
      throw illegalState('[COPIER_CYCLE]', 'this copier would close a cycle: the master already copies from this account, directly or through others');
    }
    // The answer is the copier as the copiers read model has it: the audit log need not be there yet.
    const result = await execute(services, copierStream(copierId), copierDecider, command, COPIER_READ_MODELS);
    if (settings.copyOpenPositions && settings.active) position = result.position;
  });
  // With copyOpenPositions, the master's open positions are copied before the answer.
  await afterCopyEngine(services, position, [...COPIER_READ_MODELS, 'copies', 'positions']);
  return copierId;
};
