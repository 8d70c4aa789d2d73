// Strategies over HTTP (issue 19): CRUD with the reference's StrategyDTO, strategy copiers (CopierDTO
// with fromStrategyId / toStrategyId) and their features and resync, the copy engine routing by key
// (a copier from a strategy copies only the trades carrying its key, on the early path and on the
// handler's path of a copier with features; a copier into one writes its key into the copies' magic
// number), project isolation, and the audit log.
import { expect } from 'chai';
import { DEFAULT_PROJECT_ID } from '../../domain/project/decider.js';
import { createOtherProject, startTestService, type TestService } from '../support/service.js';
import { bookWhere, featureBody, logWith, marketHoursClock, openPosition, pinQuotes, positionsOf, startedAccount } from '../support/trading.js';

const P = DEFAULT_PROJECT_ID;
const OTHER_PROJECT = '99999999-9999-4999-8999-999999999998';
const OTHER_KEY = 'other-project-key-strategies-0123456789';

describe('strategies end to end', function () {
  this.timeout(60_000);
  let t: TestService;
  const strategies = `/projects/${P}/strategies`;
  const strategy = async (name: string, key: number, active = true) => {
    const res = await t.call('POST', strategies, { body: { name, key, active, projectId: P } });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body as { id: string; name: string; key: number; active: boolean; projectId: string };
  };
  const strategyCopier = async (strategyId: string, body: Record<string, unknown>) => {
    const res = await t.call('POST', `${strategies}/${strategyId}/copiers`, { body });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body as Record<string, unknown> & { id: string };
  };

  before(async () => {
    t = await startTestService({ clock: marketHoursClock() });
    await createOtherProject(t, OTHER_PROJECT, OTHER_KEY);
    await pinQuotes(t, { EURUSD: [1.085, 1.0851] });
  });
  after(() => t?.stop());

  describe('strategies: create, read, update, delete', () => {
    it('creates a strategy as the reference writes it and lists it', async () => {
      const created = await strategy('Scalper', 101);
      expect(created).to.deep.include({ name: 'Scalper', key: 101, active: true, projectId: P });
      expect((await t.call('GET', `${strategies}/${created.id}`)).body).to.deep.equal(created);
      const list = await t.call('GET', strategies);
      expect(list.status).to.equal(200);
      expect(list.body).to.deep.include(created);
    });

    it('replaces name, key and activity with PUT', async () => {
      const created = await strategy('Swing', 102);
      const res = await t.call('PUT', `${strategies}/${created.id}`, { body: { ...created, name: 'Swing 2', key: 103, active: false } });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ ...created, name: 'Swing 2', key: 103, active: false });
    });

    it('refuses a key another strategy of the project holds, a key below 1, and a foreign projectId; nothing changes', async () => {
      const first = await strategy('Keyed', 104);
      const second = await strategy('Other', 105);
      const taken = await t.call('POST', strategies, { body: { name: 'Twin', key: 104, active: true, projectId: P } });
      expect(taken.status).to.equal(409);
      expect(taken.body.error).to.equal('[STRATEGY_KEY_IN_USE]');
      const moved = await t.call('PUT', `${strategies}/${second.id}`, { body: { ...second, key: 104 } });
      expect(moved.body.error).to.equal('[STRATEGY_KEY_IN_USE]');
      for (const key of [0, -3]) {
        const res = await t.call('POST', strategies, { body: { name: 'Zero', key, active: true, projectId: P } });
        expect(res.status).to.equal(400);
        expect(res.body.error).to.equal('[VALIDATION_FAILED]');
      }
      const foreign = await t.call('POST', strategies, { body: { name: 'Foreign', key: 106, active: true, projectId: OTHER_PROJECT } });
      expect(foreign.status).to.equal(400);
      const names = ((await t.call('GET', strategies)).body as { name: string }[]).map((s) => s.name);
      expect(names).not.to.include.members(['Twin', 'Zero', 'Foreign']);
      expect((await t.call('GET', `${strategies}/${second.id}`)).body.key).to.equal(105);
      expect((await t.call('GET', `${strategies}/${first.id}`)).body.key).to.equal(104);
    });

    it('deletes a strategy; it is gone, and its key is free again', async () => {
      const created = await strategy('Short-lived', 107);
      expect((await t.call('DELETE', `${strategies}/${created.id}`)).status).to.equal(200);
      expect((await t.call('GET', `${strategies}/${created.id}`)).body.error).to.equal('[STRATEGY_NOT_FOUND]');
      expect((await t.call('DELETE', `${strategies}/${created.id}`)).status).to.equal(404);
      await strategy('Reborn', 107);
    });

    it('writes every change to the project audit log', async () => {
      const created = await strategy('Audited', 108);
      await t.call('PUT', `${strategies}/${created.id}`, { body: { ...created, key: 109 } });
      await t.call('DELETE', `${strategies}/${created.id}`);
      const logs = (await t.call('GET', `/projects/${P}/auditLogs?limit=1000`)).body as { action: string; changes: Record<string, unknown> }[];
      const mine = logs.filter((l) => l.changes?.strategyId === created.id).map((l) => [l.action, l.changes]);
      expect(mine).to.deep.include.members([
        ['StrategyCreated', { strategyId: created.id, name: 'Audited', key: 108, active: true }],
        ['StrategyUpdated', { strategyId: created.id, key: 109 }],
        ['StrategyDeleted', { strategyId: created.id, deleted: true }],
      ]);
    });
  });

  describe('strategy copiers', () => {
    let master: string;
    let hub: string;
    let slave: string;
    let s: { id: string; name: string; key: number };
    before(async () => {
      master = await startedAccount(t, 'strategy-crud-master');
      hub = await startedAccount(t, 'strategy-crud-hub');
      slave = await startedAccount(t, 'strategy-crud-slave');
      s = await strategy('Copied', 201);
    });

    it('creates a copier into the strategy (the default) and one from it, with every CopierDTO member', async () => {
      const into = await strategyCopier(s.id, { fromAccountId: master, toAccountId: hub, multiplier: 2 });
      expect(into).to.deep.include({
        fromAccountId: master,
        toAccountId: hub,
        toStrategyId: s.id,
        multiplier: 2,
        active: true,
        scaleType: { id: 4, name: 'No scaling' },
      });
      expect(into).not.to.have.property('fromStrategyId');
      const from = await strategyCopier(s.id, { fromAccountId: hub, toAccountId: slave, fromStrategyId: s.id, maxLotSize: 1 });
      expect(from).to.deep.include({ fromAccountId: hub, toAccountId: slave, fromStrategyId: s.id, fromStrategyName: 'Copied', maxLotSize: 1 });
      const list = (await t.call('GET', `${strategies}/${s.id}/copiers`)).body as { id: string }[];
      expect(list.map((c) => c.id)).to.deep.equal([into.id, from.id]);
      // A strategy copier is its slave's copier too.
      expect((await t.call('GET', `/accounts/${slave}/copiers/${from.id}`)).body).to.deep.equal(from);
      expect((await t.call('GET', `${strategies}/${s.id}/copiers/${from.id}`)).body).to.deep.equal(from);
    });

    it('refuses both strategy ids, another strategy id, an unknown slave and a second copier with the same strategy', async () => {
      const other = await strategy('Elsewhere', 202);
      const both = await t.call('POST', `${strategies}/${s.id}/copiers`, {
        body: { fromAccountId: master, toAccountId: slave, fromStrategyId: s.id, toStrategyId: s.id },
      });
      expect(both.status).to.equal(400);
      const wrong = await t.call('POST', `${strategies}/${s.id}/copiers`, { body: { fromAccountId: master, toAccountId: slave, fromStrategyId: other.id } });
      expect(wrong.status).to.equal(400);
      const unknown = await t.call('POST', `${strategies}/${s.id}/copiers`, { body: { fromAccountId: master, toAccountId: OTHER_PROJECT } });
      expect(unknown.status).to.equal(404);
      const twice = await t.call('POST', `${strategies}/${s.id}/copiers`, { body: { fromAccountId: master, toAccountId: hub } });
      expect(twice.status).to.equal(409);
      expect(twice.body.error).to.equal('[COPIER_ALREADY_EXISTS]');
      // Another strategy between the same two accounts is another copier.
      const again = await strategyCopier(other.id, { fromAccountId: master, toAccountId: hub });
      expect(again.toStrategyId).to.equal(other.id);
      expect((await t.call('DELETE', `${strategies}/${other.id}/copiers/${again.id}`)).status).to.equal(200);
      expect((await t.call('DELETE', `${strategies}/${other.id}`)).status).to.equal(200);
    });

    it('changes a strategy copier with PUT; its master and strategy stay', async () => {
      const [first] = (await t.call('GET', `${strategies}/${s.id}/copiers`)).body as Record<string, unknown>[];
      const res = await t.call('PUT', `${strategies}/${s.id}/copiers/${first!.id as string}`, { body: { ...first, multiplier: 3, reverse: true } });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.include({ multiplier: 3, reverse: true, toStrategyId: s.id });
      const moved = await t.call('PUT', `${strategies}/${s.id}/copiers/${first!.id as string}`, { body: { toStrategyId: OTHER_PROJECT } });
      expect(moved.status).to.equal(400);
      expect(moved.body.error).to.equal('[COPIER_STRATEGY_IMMUTABLE]');
    });

    it('attaches, reads, changes and removes a strategy copier feature', async () => {
      const [first] = (await t.call('GET', `${strategies}/${s.id}/copiers`)).body as { id: string }[];
      const features = `${strategies}/${s.id}/copiers/${first!.id}/features`;
      const added = await t.call('POST', features, { body: featureBody({ type: 'FeatureCopierFilterDTO', minLotSize: 0.01 }) });
      expect(added.status, JSON.stringify(added.body)).to.equal(200);
      expect(added.body.setting).to.deep.include({ minLotSize: 0.01 });
      expect((await t.call('GET', features)).body).to.have.length(1);
      const changed = await t.call('PUT', `${features}/${added.body.id}`, { body: featureBody({ type: 'FeatureCopierFilterDTO', minLotSize: 0.02 }) });
      expect(changed.status).to.equal(200);
      expect((await t.call('GET', `${features}/${added.body.id}`)).body.setting).to.deep.include({ minLotSize: 0.02 });
      expect((await t.call('DELETE', `${features}/${added.body.id}`)).status).to.equal(200);
      expect((await t.call('GET', features)).body).to.deep.equal([]);
    });

    it('resyncs a strategy copier (204)', async () => {
      const [first] = (await t.call('GET', `${strategies}/${s.id}/copiers`)).body as { id: string }[];
      expect((await t.call('POST', `${strategies}/${s.id}/copiers/${first!.id}/resync`)).status).to.equal(204);
    });

    it('a strategy with copiers is not deleted; once they are, it is', async () => {
      const refused = await t.call('DELETE', `${strategies}/${s.id}`);
      expect(refused.status).to.equal(409);
      expect(refused.body.error).to.equal('[STRATEGY_IN_USE]');
      for (const c of (await t.call('GET', `${strategies}/${s.id}/copiers`)).body as { id: string }[]) {
        expect((await t.call('DELETE', `${strategies}/${s.id}/copiers/${c.id}`)).status).to.equal(200);
      }
      expect((await t.call('DELETE', `${strategies}/${s.id}`)).status).to.equal(200);
    });
  });

  describe('the copy engine routes by strategy key', () => {
    it('a copier from a strategy copies only the trades carrying its key, without and with features; a copier into one marks its copies with the key', async () => {
      const master = await startedAccount(t, 'route-master');
      const early = await startedAccount(t, 'route-early');
      const featured = await startedAccount(t, 'route-featured');
      const marked = await startedAccount(t, 'route-marked');
      const source = await strategy('Source', 301);
      const target = await strategy('Target', 302);
      await strategyCopier(source.id, { fromAccountId: master, toAccountId: early, fromStrategyId: source.id });
      const withFeature = await strategyCopier(source.id, { fromAccountId: master, toAccountId: featured, fromStrategyId: source.id });
      // A feature that lets every trade through: the copier is decided by the handler, not placed early.
      const feature = await t.call('POST', `${strategies}/${source.id}/copiers/${withFeature.id}/features`, {
        body: featureBody({ type: 'FeatureCopierFilterDTO', minLotSize: 0.01 }),
      });
      expect(feature.status).to.equal(200);
      await strategyCopier(target.id, { fromAccountId: master, toAccountId: marked, customMagicNumber: 5 });

      await openPosition(t, master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.1, magicNumber: 999 });
      await openPosition(t, master, { symbol: 'EURUSD', orderType: 'Sell', volume: 0.2, magicNumber: 301 });
      await openPosition(t, master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.3 });

      for (const slave of [early, featured]) {
        const [copy] = await bookWhere(t, slave, (b) => b.length === 1, 'the keyed trade copied');
        expect(copy).to.deep.include({ orderType: 'Sell', volume: 0.2 });
        const skip = await logWith(t, slave, 'STRATEGY_KEY_FILTERED');
        expect(skip.text).to.match(/not the strategy's key 301/);
      }
      const copies = await bookWhere(t, marked, (b) => b.length === 3, 'every trade copied into the strategy');
      expect(copies.map((c) => c.magicNumber)).to.deep.equal(['302', '302', '302']);
      // Nothing more arrives later.
      await new Promise((resolve) => setTimeout(resolve, 300));
      for (const slave of [early, featured]) expect(await positionsOf(t, slave)).to.have.length(1);
    });

    it('a changed key routes from the next trade on; an inactive strategy opens nothing new', async () => {
      const master = await startedAccount(t, 'rekey-master');
      const slave = await startedAccount(t, 'rekey-slave');
      const s = await strategy('Rekeyed', 401);
      await strategyCopier(s.id, { fromAccountId: master, toAccountId: slave, fromStrategyId: s.id });
      expect((await t.call('PUT', `${strategies}/${s.id}`, { body: { ...s, key: 402 } })).status).to.equal(200);
      await openPosition(t, master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.1, magicNumber: 401 });
      await openPosition(t, master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.2, magicNumber: 402 });
      const [copy] = await bookWhere(t, slave, (b) => b.length === 1, 'the trade with the new key');
      expect(copy!.volume).to.equal(0.2);
      expect((await t.call('PUT', `${strategies}/${s.id}`, { body: { ...s, key: 402, active: false } })).status).to.equal(200);
      await openPosition(t, master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.3, magicNumber: 402 });
      await logWith(t, slave, 'STRATEGY_INACTIVE');
      expect(await positionsOf(t, slave)).to.have.length(1);
    });
  });

  describe('isolation', () => {
    it("another project's key sees none of this project's strategies, and reaches none by id", async () => {
      const mine = await strategy('Private', 501);
      const other = { key: OTHER_KEY };
      expect((await t.call('GET', `/projects/${OTHER_PROJECT}/strategies`, other)).body).to.deep.equal([]);
      expect((await t.call('GET', strategies, other)).status).to.equal(404);
      expect((await t.call('GET', `/projects/${OTHER_PROJECT}/strategies/${mine.id}`, other)).status).to.equal(404);
      expect(
        (await t.call('PUT', `/projects/${OTHER_PROJECT}/strategies/${mine.id}`, { ...other, body: { ...mine, projectId: OTHER_PROJECT } })).status,
      ).to.equal(404);
      expect((await t.call('DELETE', `/projects/${OTHER_PROJECT}/strategies/${mine.id}`, other)).status).to.equal(404);
      // The same key is free in the other project: keys are per project.
      const theirs = await t.call('POST', `/projects/${OTHER_PROJECT}/strategies`, {
        ...other,
        body: { name: 'Theirs', key: 501, active: true, projectId: OTHER_PROJECT },
      });
      expect(theirs.status).to.equal(200);
      expect(((await t.call('GET', strategies)).body as { id: string }[]).map((x) => x.id)).not.to.include(theirs.body.id);
      const foreignCopier = await t.call('POST', `/projects/${OTHER_PROJECT}/strategies/${theirs.body.id}/copiers`, {
        ...other,
        body: { fromAccountId: OTHER_PROJECT, toAccountId: OTHER_PROJECT },
      });
      expect(foreignCopier.status).to.equal(404);
    });
  });
});
