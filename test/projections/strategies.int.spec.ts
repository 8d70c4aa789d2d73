// The strategies read model, and the strategy columns of the copiers read model (issue 19), rebuilt
// from their events equal the live ones: creations, key and activity changes, strategy copiers from and
// into strategies, deletions.
import { expect } from 'chai';
import { copierDecider } from '../../domain/copier/decider.js';
import { copierStream } from '../../domain/copier/events.js';
import { defaultCopierSettings } from '../../domain/copier/settings.js';
import { systemContext } from '../../domain/shared/command.js';
import { strategyDecider } from '../../domain/strategy/decider.js';
import { strategyStream } from '../../domain/strategy/events.js';
import { projectionByName } from '../../projections/all.js';
import { rebuildProjection } from '../../projections/rebuild.js';
import { handleCommand } from '../../store/commandHandler.js';
import type { Position } from '../../store/port.js';
import { liveReadModels } from '../support/liveReadModels.js';

describe('strategies read model: a rebuild equals the live one', function () {
  this.timeout(120_000);
  const models = liveReadModels();

  it('after creations, changes, strategy copiers and deletions', async () => {
    const { db, store, runner } = models;
    let last: Position | null = null;
    const strategies = async (command: Parameters<typeof strategyDecider.decide>[0]) => {
      last = (await handleCommand(store, strategyStream(command.data.strategyId), strategyDecider, command)).position ?? last;
    };
    const copiers = async (command: Parameters<typeof copierDecider.decide>[0]) => {
      last = (await handleCommand(store, copierStream(command.data.copierId), copierDecider, command)).position ?? last;
    };
    for (let p = 0; p < 2; p++) {
      const projectId = crypto.randomUUID();
      const metadata = () => ({ now: new Date().toISOString(), context: { ...systemContext('t'), projectId } });
      const [kept, changed, deleted] = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
      for (const [i, strategyId] of [kept, changed, deleted].entries()) {
        await strategies({
          type: 'CreateStrategy',
          data: { strategyId, projectId, settings: { name: `S${i}`, key: 10 + i, active: true } },
          metadata: metadata(),
        });
      }
      const [master, hub, slave] = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
      const copier = async (fromAccountId: string, toAccountId: string, strategies: { fromStrategyId?: string; toStrategyId?: string }) => {
        const copierId = crypto.randomUUID();
        await copiers({
          type: 'CreateCopier',
          data: { copierId, projectId, fromAccountId, toAccountId, settings: defaultCopierSettings, ...strategies },
          metadata: metadata(),
        });
        return copierId;
      };
      await copier(master, hub, { toStrategyId: changed });
      await copier(hub, slave, { fromStrategyId: changed });
      await copier(hub, slave, { fromStrategyId: kept });
      const gone = await copier(master, slave, { toStrategyId: deleted });
      await copier(master, slave, {});
      await strategies({
        type: 'UpdateStrategy',
        data: { strategyId: changed, projectId, settings: { name: 'Renamed', key: 42, active: false } },
        metadata: metadata(),
      });
      await copiers({ type: 'DeleteCopier', data: { copierId: gone, projectId, toAccountId: slave }, metadata: metadata() });
      await strategies({ type: 'DeleteStrategy', data: { strategyId: deleted, projectId }, metadata: metadata() });
    }
    expect(await runner.waitFor(last!, 20_000)).to.equal(true);
    const snapshot = async () => ({
      strategies: await db.selectFrom('strategies').selectAll().orderBy('id').execute(),
      copiers: await db.selectFrom('copiers').selectAll().orderBy('id').execute(),
      copierStrategies: await db.selectFrom('copier_strategies').selectAll().orderBy('strategy_id').execute(),
      audit: await db.selectFrom('audit_logs').selectAll().orderBy('id').execute(),
    });
    const live = await snapshot();
    expect(live.strategies).to.have.length(4);
    expect(live.copiers).to.have.length(8);
    const routed = live.copiers.filter((c) => c.strategy_key === 42);
    expect(routed).to.have.length(4);
    expect(routed.every((c) => c.strategy_name === 'Renamed' && c.strategy_active === false)).to.equal(true);
    for (const name of ['strategies', 'copiers', 'audit_logs']) await rebuildProjection(db, store, projectionByName(name)!);
    expect(await snapshot()).to.deep.equal(live);
  });
});
