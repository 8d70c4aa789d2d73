// The strategy aggregate's rules, and the copy decision's routing by strategy key
// (domain/copy/strategyRouting.ts): a copier from a strategy copies only the trades carrying its key, a
// copier into one writes its key into the slave orders' magic number.
import { expect } from 'chai';
import { systemContext } from '../../domain/shared/command.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { StrategyCommand } from '../../domain/strategy/commands.js';
import { strategyDecider } from '../../domain/strategy/decider.js';
import type { StrategyEvent } from '../../domain/strategy/events.js';
import { copierDecider } from '../../domain/copier/decider.js';
import { defaultCopierSettings } from '../../domain/copier/settings.js';
import { copierExists } from '../../domain/copier/graph.js';
import { given, masterClosed, masterOpened, masterPendingFilled, slaveCopy } from './copy/given.js';

const metadata = { now: '2026-01-07T10:00:00.000Z', context: systemContext('t') };
const PROJECT = '11111111-1111-4111-8111-111111111111';
const STRATEGY = '22222222-2222-4222-8222-222222222222';

const decide = (commands: StrategyCommand[]): StrategyEvent[] => {
  let state = strategyDecider.initialState;
  let last: readonly StrategyEvent[] = [];
  for (const command of commands) {
    last = strategyDecider.decide(command, state);
    state = last.reduce(strategyDecider.evolve, state);
  }
  return [...last];
};
const create = (key = 7, name = 'Scalper'): StrategyCommand => ({
  type: 'CreateStrategy',
  data: { strategyId: STRATEGY, projectId: PROJECT, settings: { name, key, active: true } },
  metadata,
});
const refusal = (fn: () => unknown): DomainError => {
  try {
    fn();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('not refused');
};

describe('strategy aggregate', () => {
  it('creates a strategy with its name, key and activity', () => {
    expect(decide([create()])).to.deep.equal([
      { type: 'StrategyCreated', data: { strategyId: STRATEGY, projectId: PROJECT, settings: { name: 'Scalper', key: 7, active: true }, at: metadata.now } },
    ]);
  });

  it('refuses a key that is not a positive int32', () => {
    for (const key of [0, -1, 1.5, 2147483648]) expect(refusal(() => decide([create(key)])).code).to.equal('[VALIDATION_FAILED]');
  });

  it('an update records only what changed; nothing changed, no event', () => {
    const update = (settings: { name: string; key: number; active: boolean }): StrategyCommand => ({
      type: 'UpdateStrategy',
      data: { strategyId: STRATEGY, projectId: PROJECT, settings },
      metadata,
    });
    expect(decide([create(), update({ name: 'Scalper', key: 9, active: false })])[0]!.data).to.deep.include({ changes: { key: 9, active: false } });
    expect(decide([create(), update({ name: 'Scalper', key: 7, active: true })])).to.deep.equal([]);
  });

  it('a deleted strategy, or one of another project, is not found', () => {
    const del = (projectId = PROJECT): StrategyCommand => ({ type: 'DeleteStrategy', data: { strategyId: STRATEGY, projectId }, metadata });
    expect(refusal(() => decide([create(), del(), del()])).code).to.equal('[STRATEGY_NOT_FOUND]');
    expect(refusal(() => decide([create(), del('33333333-3333-4333-8333-333333333333')])).code).to.equal('[STRATEGY_NOT_FOUND]');
  });
});

describe('strategy copiers', () => {
  it('a copier copies from a strategy or into one, never both', () => {
    const data = { copierId: 'c', projectId: PROJECT, toAccountId: 's', fromAccountId: 'm', settings: defaultCopierSettings };
    const refused = refusal(() =>
      copierDecider.decide({ type: 'CreateCopier', data: { ...data, fromStrategyId: 'a', toStrategyId: 'b' }, metadata }, copierDecider.initialState),
    );
    expect(refused.code).to.equal('[VALIDATION_FAILED]');
    const [created] = copierDecider.decide({ type: 'CreateCopier', data: { ...data, fromStrategyId: 'a' }, metadata }, copierDecider.initialState);
    expect(created!.data).to.deep.include({ fromStrategyId: 'a' });
    expect(created!.data).not.to.have.property('toStrategyId');
  });

  it('two copiers between the same accounts are duplicates only with the same strategies', () => {
    const edges = [{ from_account_id: 'm', to_account_id: 's', from_strategy_id: 'a', to_strategy_id: null }];
    expect(copierExists(edges, 'm', 's', { fromStrategyId: 'a' })).to.equal(true);
    expect(copierExists(edges, 'm', 's', { fromStrategyId: 'b' })).to.equal(false);
    expect(copierExists(edges, 'm', 's')).to.equal(false);
    expect(copierExists([{ from_account_id: 'm', to_account_id: 's' }], 'm', 's')).to.equal(true);
  });
});

describe('copy decision: routing by strategy key', () => {
  const from = { fromKey: 7, toKey: null, active: true };
  const into = { fromKey: null, toKey: 42, active: true };

  it('a copier from a strategy copies a trade carrying its key', () =>
    given({ strategy: from })
      .when(masterOpened({ magicNumber: 7 }))
      .then([{ type: 'open', magicNumber: null }]));

  it('and skips one with another magic number, or none', () => {
    given({ strategy: from })
      .when(masterOpened({ magicNumber: 8 }))
      .thenSkips('STRATEGY_KEY_FILTERED', /magic number 8, not the strategy's key 7/);
    given({ strategy: from })
      .when(masterOpened({ magicNumber: null }))
      .thenSkips('STRATEGY_KEY_FILTERED', /no magic number/);
    given({ strategy: from, settings: { skipPendingOrders: true } })
      .when(masterPendingFilled({ magicNumber: 8 }))
      .thenSkips('STRATEGY_KEY_FILTERED');
  });

  it('the copies it holds follow the master whatever the key', () =>
    given({ strategy: { ...from, active: false }, slave: { copies: [slaveCopy()] } })
      .when(masterClosed())
      .then([{ type: 'close' }]));

  it("a copier into a strategy writes the strategy's key over customMagicNumber and copyMagicNumber", () =>
    given({ strategy: into, settings: { customMagicNumber: 5, copyMagicNumber: true } })
      .when(masterOpened({ magicNumber: 3 }))
      .then([{ type: 'open', magicNumber: 42 }]));

  it("an inactive strategy's copier opens nothing new", () =>
    given({ strategy: { ...into, active: false } })
      .when(masterOpened())
      .thenSkips('STRATEGY_INACTIVE'));

  it('a copier without a strategy keeps its own magic number rules', () =>
    given({ settings: { customMagicNumber: 5 } })
      .when(masterOpened({ magicNumber: 3 }))
      .then([{ type: 'open', magicNumber: 5 }]));
});
