// Strategies (reference StrategyDTO, /projects/{projectId}/strategies) and their copiers. A strategy's
// rules are its aggregate's (domain/strategy); what spans the project is checked here, in the project's
// turn: a key belongs to one strategy of the project (the copy engine routes trades by it), and a
// strategy that copiers still copy from or into is not deleted. A strategy copier is a copier (the
// copier aggregate, createCopier): it obeys every copier member and feature an account copier does,
// and carries its strategy (fromStrategyId or toStrategyId).
import { randomUUID } from 'node:crypto';
import type { CopierStrategies } from '../domain/copier/events.js';
import type { CopierSettings } from '../domain/copier/settings.js';
import type { RequestContext } from '../domain/shared/command.js';
import { illegalState, invalid, notFound } from '../domain/shared/errors.js';
import type { StrategyCommand } from '../domain/strategy/commands.js';
import { strategyDecider } from '../domain/strategy/decider.js';
import { strategyStream } from '../domain/strategy/events.js';
import type { StrategySettings } from '../domain/strategy/settings.js';
import { findStrategy, strategyHasCopiers, strategyWithKey } from '../projections/strategies/queries.js';
import { COPIER_GRAPH_TURN, createCopier } from './commands/createCopier.js';
import { commandMetadata, execute, oneAtATime, type Services } from './services.js';

/** What a strategy's answer is read from; the copiers read model carries the key its copiers route by. */
export const STRATEGY_READ_MODELS = ['strategies', 'copiers'] as const;

const strategyNotFound = (strategyId: string) => notFound('[STRATEGY_NOT_FOUND]', `strategy ${strategyId} not found`);

const checkKeyFree = async (services: Services, projectId: string, key: number, strategyId: string | null): Promise<void> => {
  const holder = await strategyWithKey(services.db, projectId, key, strategyId);
  if (holder)
    throw illegalState('[STRATEGY_KEY_IN_USE]', `key ${key} belongs to strategy ${holder.id} of this project already; a key routes trades to one strategy`);
};

const strategyTurn = (projectId: string) => `strategies:${projectId}`;

const run = (services: Services, command: StrategyCommand) =>
  execute(services, strategyStream(command.data.strategyId), strategyDecider, command, STRATEGY_READ_MODELS);

export const createStrategy = async (services: Services, projectId: string, settings: StrategySettings, context: RequestContext): Promise<string> => {
  const strategyId = randomUUID();
  const command: StrategyCommand = { type: 'CreateStrategy', data: { strategyId, projectId, settings }, metadata: commandMetadata(services, context) };
  strategyDecider.decide(command, strategyDecider.initialState);
  await oneAtATime(services, strategyTurn(projectId), async () => {
    await checkKeyFree(services, projectId, settings.key, null);
    await run(services, command);
  });
  return strategyId;
};

/** Replaces the strategy's name, key and activity; a key another strategy of the project holds is refused. */
export const updateStrategy = async (
  services: Services,
  projectId: string,
  strategyId: string,
  settings: StrategySettings,
  context: RequestContext,
): Promise<void> => {
  await oneAtATime(services, strategyTurn(projectId), async () => {
    if (!(await findStrategy(services.db, projectId, strategyId))) throw strategyNotFound(strategyId);
    await checkKeyFree(services, projectId, settings.key, strategyId);
    await run(services, { type: 'UpdateStrategy', data: { strategyId, projectId, settings }, metadata: commandMetadata(services, context) });
  });
};

/** Deletes a strategy no copier copies from or into (409 [STRATEGY_IN_USE] otherwise: delete its copiers first). */
export const deleteStrategy = async (services: Services, projectId: string, strategyId: string, context: RequestContext): Promise<void> => {
  // The copy network's turn: no strategy copier is created for it meanwhile.
  await oneAtATime(services, COPIER_GRAPH_TURN, async () => {
    if (!(await findStrategy(services.db, projectId, strategyId))) throw strategyNotFound(strategyId);
    if (await strategyHasCopiers(services.db, strategyId)) {
      throw illegalState('[STRATEGY_IN_USE]', `copiers copy from or into strategy ${strategyId}; delete them first`);
    }
    await run(services, { type: 'DeleteStrategy', data: { strategyId, projectId }, metadata: commandMetadata(services, context) });
  });
};

export interface StrategyCopierCreation {
  readonly projectId: string;
  readonly slave: { readonly id: string; readonly account_status_id: number };
  readonly fromAccountId: string;
  readonly settings: CopierSettings;
  readonly strategies: CopierStrategies;
  readonly context: RequestContext;
}

/**
 * A copier with a strategy: from an account (fromAccountId) to an account (the slave), copying only the
 * trades of `fromStrategyId`, or marking its copies with the key of `toStrategyId`. The strategy must be
 * the project's, and still be there when the copier is written.
 */
export const createStrategyCopier = async (services: Services, creation: StrategyCopierCreation): Promise<string> => {
  const { projectId, strategies } = creation;
  const ids = [strategies.fromStrategyId, strategies.toStrategyId].filter((id): id is string => typeof id === 'string');
  if (ids.length > 1) {
    throw invalid('[VALIDATION_FAILED]', 'a copier copies from a strategy or into one, not both: copying from one strategy to another is not allowed', {
      field: 'body.toStrategyId',
    });
  }
  const check = async () => {
    for (const id of ids) if (!(await findStrategy(services.db, projectId, id))) throw strategyNotFound(id);
  };
  return createCopier(services, { ...creation, check });
};
