// The copier area over HTTP: CRUD under the slave account, graph rules, copier modes, slaves and masters.
import { expect } from 'chai';
import { createOtherProject, startTestService, type TestService, validAccount } from '../support/service.js';

const OTHER_PROJECT = '99999999-9999-4999-8999-999999999999';
const OTHER_KEY = 'other-project-key-0123456789abcdef';

describe('copiers end to end', () => {
  let t: TestService;
  const account = async (alias: string, key?: string) =>
    (await t.call('POST', '/accounts', { body: validAccount({ alias, loginAccountNumber: alias }), ...(key ? { key } : {}) })).body.id as string;
  const copier = (slave: string, body: Record<string, unknown>) => t.call('POST', `/accounts/${slave}/copiers`, { body });

  before(async () => {
    t = await startTestService();
    await createOtherProject(t, OTHER_PROJECT, OTHER_KEY);
  });
  after(() => t.stop());

  describe('create, read, update, delete', () => {
    let master: string;
    let slave: string;
    let copierId: string;
    before(async () => {
      master = await account('crud-master');
      slave = await account('crud-slave');
    });

    it('creates a copier under the slave with every CopierDTO member and the reference defaults', async () => {
      const res = await copier(slave, { fromAccountId: master, multiplier: 2 });
      expect(res.status).to.equal(200);
      copierId = res.body.id;
      expect(res.body).to.deep.include({
        fromAccountId: master,
        fromAccountAlias: 'crud-master',
        toAccountId: slave,
        active: true,
        monitorOnly: false,
        multiplier: 2,
        scaleType: { id: 4, name: 'No scaling' },
        fixedLotSize: 0.01,
        fixMasterBalanceAndEquity: 0,
        fixSlaveBalanceAndEquity: 0,
        maxLotSize: 0,
        maximumLot: 0,
        martingaleStrategy: false,
        reverse: false,
        copyOpenPositions: false,
        forceMinTrade: true,
        forcePositionLotSize: false,
        openRetry: false,
        openRetryTimeoutInMinutes: 10,
        copyStopLoss: true,
        copyTakeProfit: true,
        skipPendingOrders: true,
        maxSlippage: 0,
        maxOpenPositions: 0,
        ignoreContractSize: true,
        hideComment: false,
        copyMagicNumber: false,
        copyOriginalComment: false,
        ignoreCurrency: false,
        minVolumeSafetySkipThresholdMultiplier: 0,
      });
      // Members without a value are left out: the reference types them without null.
      for (const member of ['customComment', 'customMagicNumber', 'fromStrategyId', 'fromStrategyName', 'toStrategyId'])
        expect(res.body).not.to.have.property(member);
      expect(Date.parse(res.body.created)).to.be.greaterThan(0);
    });

    it('takes the reference example body as a generated client sends it', async () => {
      const [m, s] = [await account('example-master'), await account('example-slave')];
      const res = await copier(s, {
        fromAccountId: m,
        monitorOnly: false,
        customMagicNumber: 123456,
        maximumLot: 0.0,
        hideComment: false,
        martingaleStrategy: false,
        ignoreCurrency: false,
        ignoreContractSize: true,
        openRetryTimeoutInMinutes: 10,
        forceMinTrade: true,
        openRetry: false,
        copyOriginalComment: false,
        fixedLotSize: 0.01,
        copyTakeProfit: true,
        skipPendingOrders: true,
        forcePositionLotSize: false,
        maxLotSize: 0.0,
        customComment: 'My Custom Comment',
        maxOpenPositions: 0,
        maxSlippage: 0,
        multiplier: 1.0,
        active: true,
        fixMasterBalanceAndEquity: 0,
        fixSlaveBalanceAndEquity: 0,
        reverse: false,
        copyOpenPositions: false,
        scaleType: { id: 1 },
        copyMagicNumber: false,
        copyStopLoss: true,
      });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.include({ scaleType: { id: 1, name: 'Balance' }, customComment: 'My Custom Comment', customMagicNumber: 123456 });
    });

    it('lists and reads it through the slave, not through the master', async () => {
      const list = await t.call('GET', `/accounts/${slave}/copiers`);
      expect(list.body.map((c: { id: string }) => c.id)).to.deep.equal([copierId]);
      expect((await t.call('GET', `/accounts/${master}/copiers`)).body).to.deep.equal([]);
      expect((await t.call('GET', `/accounts/${slave}/copiers/${copierId}`)).body.multiplier).to.equal(2);
      const wrong = await t.call('GET', `/accounts/${master}/copiers/${copierId}`);
      expect(wrong.status).to.equal(404);
      expect(wrong.body.error).to.equal('[COPIER_NOT_FOUND]');
    });

    it('updates only the members sent, and refuses to change the master', async () => {
      const res = await t.call('PUT', `/accounts/${slave}/copiers/${copierId}`, {
        body: { reverse: true, customComment: 'copied', scaleType: { id: 3 }, fixedLotSize: 0.2, openRetry: true, openRetryTimeoutInMinutes: 0 },
      });
      expect(res.body).to.deep.include({
        reverse: true,
        customComment: 'copied',
        multiplier: 2,
        scaleType: { id: 3, name: 'Fixed lot size' },
        fixedLotSize: 0.2,
        openRetry: true,
        openRetryTimeoutInMinutes: 0,
      });
      // Clearing with null is ours (the reference types it without null): sent raw.
      const cleared = await t.call('PUT', `/accounts/${slave}/copiers/${copierId}`, { rawBody: JSON.stringify({ customComment: null }) });
      expect(cleared.body).not.to.have.property('customComment');
      const other = await account('crud-other');
      const moved = await t.call('PUT', `/accounts/${slave}/copiers/${copierId}`, { body: { fromAccountId: other } });
      expect(moved.status).to.equal(400);
      expect(moved.body.error).to.equal('[COPIER_MASTER_IMMUTABLE]');
    });

    it('refuses Fixed lot size without a lot, an unknown scale type, values out of the reference ranges, and changes nothing', async () => {
      const put = (body: Record<string, unknown>) => t.call('PUT', `/accounts/${slave}/copiers/${copierId}`, { body });
      const before = (await t.call('GET', `/accounts/${slave}/copiers/${copierId}`)).body;
      for (const body of [
        { fixedLotSize: 0 },
        { multiplier: 0 },
        { multiplier: 1000 },
        { maxLotSize: -1 },
        { maxOpenPositions: -1 },
        { customMagicNumber: 0 },
        { customComment: 'longer than twenty characters' },
        { openRetry: 5 },
        { scaleType: 'MULTIPLIER' },
      ]) {
        const res = await put(body);
        expect(res.status, JSON.stringify(body)).to.equal(400);
        expect(res.body.error).to.equal('[VALIDATION_FAILED]');
      }
      const unknown = await put({ scaleType: { id: 9 } });
      expect(unknown.status).to.equal(400);
      expect(unknown.body).to.deep.include({ error: '[VALIDATION_FAILED]' });
      expect(unknown.body.message).to.match(/scaleType\.id: unknown scale type 9/);
      expect((await t.call('GET', `/accounts/${slave}/copiers/${copierId}`)).body).to.deep.equal(before);
    });

    it('accepts null strategy ids (ours: the reference types them without null; a client may still send null)', async () => {
      const [m, s] = [await account('null-strategy-master'), await account('null-strategy-slave')];
      const res = await t.call('POST', `/accounts/${s}/copiers`, { rawBody: JSON.stringify({ fromAccountId: m, fromStrategyId: null, toStrategyId: null }) });
      expect(res.status).to.equal(200);
      expect(res.body).not.to.have.property('fromStrategyId');
    });

    it('refuses a strategy id of no strategy of the project and creates nothing; takes forcePositionLotSize true', async () => {
      const [m, s] = [await account('strategy-master'), await account('strategy-slave')];
      const strategy = await copier(s, { fromAccountId: m, fromStrategyId: '046b6c7f-0b8a-43b9-b35d-6489e6daee91' });
      expect(strategy.status).to.equal(404);
      expect(strategy.body.error).to.equal('[STRATEGY_NOT_FOUND]');
      expect((await t.call('GET', `/accounts/${s}/copiers`)).body).to.deep.equal([]);
      const split = await copier(s, { fromAccountId: m, forcePositionLotSize: true });
      expect(split.status, JSON.stringify(split.body)).to.equal(200);
      expect(split.body).to.include({ forcePositionLotSize: true });
    });

    it('lists the scale types with the reference ids', async () => {
      const res = await t.call('GET', '/types/scaleTypes');
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal([
        { id: 1, name: 'Balance' },
        { id: 2, name: 'Equity' },
        { id: 3, name: 'Fixed lot size' },
        { id: 4, name: 'No scaling' },
      ]);
    });

    it('deletes it; afterwards it is gone', async () => {
      expect((await t.call('DELETE', `/accounts/${slave}/copiers/${copierId}`)).status).to.equal(200);
      expect((await t.call('GET', `/accounts/${slave}/copiers/${copierId}`)).status).to.equal(404);
      expect((await t.call('DELETE', `/accounts/${slave}/copiers/${copierId}`)).status).to.equal(404);
    });
  });

  describe('graph rules', () => {
    it('refuses a copier from an account to itself', async () => {
      const a = await account('self');
      const res = await copier(a, { fromAccountId: a });
      expect(res.status).to.equal(400);
      expect(res.body.error).to.equal('[COPIER_SELF_REFERENCE]');
    });

    it('refuses a copier that closes a cycle, directly or through a chain', async () => {
      const [a, b, c] = [await account('cyc-a'), await account('cyc-b'), await account('cyc-c')];
      expect((await copier(b, { fromAccountId: a })).status).to.equal(200);
      expect((await copier(c, { fromAccountId: b })).status).to.equal(200);
      for (const [slave, master] of [
        [a, c],
        [a, b],
      ]) {
        const res = await copier(slave!, { fromAccountId: master });
        expect(res.status).to.equal(409);
        expect(res.body.error).to.equal('[COPIER_CYCLE]');
      }
      expect((await t.call('GET', `/accounts/${a}/copiers`)).body).to.deep.equal([]);
    });

    it('refuses a second copier between the same two accounts', async () => {
      const [m, s] = [await account('dup-m'), await account('dup-s')];
      await copier(s, { fromAccountId: m });
      const res = await copier(s, { fromAccountId: m });
      expect(res.status).to.equal(409);
      expect(res.body.error).to.equal('[COPIER_ALREADY_EXISTS]');
    });

    it('a master of another project is not found, and nothing is created', async () => {
      const foreign = await account('foreign', OTHER_KEY);
      const mine = await account('mine');
      const res = await copier(mine, { fromAccountId: foreign });
      expect(res.status).to.equal(404);
      expect(res.body.error).to.equal('[ACCOUNT_NOT_FOUND]');
      expect((await t.call('GET', `/accounts/${mine}/copiers`)).body).to.deep.equal([]);
      expect((await t.call('GET', `/accounts/${foreign}/copiers`)).status).to.equal(404);
    });

    it('a deleted master is refused', async () => {
      const [m, s] = [await account('del-m'), await account('del-s')];
      await t.call('DELETE', `/accounts/${m}`);
      const res = await copier(s, { fromAccountId: m });
      expect(res.status).to.equal(409);
      expect(res.body.error).to.equal('[ACCOUNT_DELETED]');
    });
  });

  describe('copier modes, slaves and masters', () => {
    let m: string;
    let s1: string;
    let s2: string;
    let chained: string;
    before(async () => {
      m = await account('mode-m');
      s1 = await account('mode-s1');
      s2 = await account('mode-s2');
      chained = await account('mode-chained');
      await copier(s1, { fromAccountId: m });
      await copier(s2, { fromAccountId: m });
      await copier(chained, { fromAccountId: s1 });
    });

    it('monitor-only for the slaves of one master changes only those copiers, and the account flags show it', async () => {
      expect((await t.call('POST', `/accounts/${m}/monitorOnlySlavesCopier`)).status).to.equal(204);
      for (const s of [s1, s2]) {
        const [c] = (await t.call('GET', `/accounts/${s}/copiers`)).body;
        expect(c).to.deep.include({ active: true, monitorOnly: true });
        expect((await t.call('GET', `/accounts/${s}`)).body.hasMonitorOnlyCopiers).to.equal(true);
      }
      expect((await t.call('GET', `/accounts/${chained}/copiers`)).body[0].monitorOnly).to.equal(false);
    });

    it('deactivate for the slaves of one master, then the slaves list is empty and hasDisabledCopiers is set', async () => {
      await t.call('POST', `/accounts/${m}/deactivateSlavesCopier`);
      expect((await t.call('GET', `/accounts/${s1}`)).body.hasDisabledCopiers).to.equal(true);
      expect((await t.call('GET', `/accounts/${m}/slaves`)).body).to.deep.equal([]);
      await t.call('POST', `/accounts/${m}/activateSlavesCopier`);
      const slaves = (await t.call('GET', `/accounts/${m}/slaves`)).body.map((a: { id: string }) => a.id);
      expect(slaves).to.have.members([s1, s2]);
      expect((await t.call('GET', `/accounts/${s1}`)).body).to.deep.include({ hasDisabledCopiers: false, hasMonitorOnlyCopiers: false });
    });

    it('the masters summary lists direct slaves only, an intermediate account as master and slave, and no deleted account', async () => {
      const masters = (await t.call('GET', '/accounts/masters')).body as {
        masterAccount: { id: string };
        slaveAccounts: { id: string }[];
        slaveCount: number;
      }[];
      const byId = new Map(masters.map((x) => [x.masterAccount.id, x]));
      expect(byId.get(m)!.slaveAccounts.map((a) => a.id)).to.have.members([s1, s2]);
      expect(byId.get(m)!.slaveCount).to.equal(2);
      expect(byId.get(s1)!.slaveAccounts.map((a) => a.id)).to.deep.equal([chained]);
      await t.call('DELETE', `/accounts/${s2}`);
      const after = (await t.call('GET', '/accounts/masters')).body as typeof masters;
      expect(after.find((x) => x.masterAccount.id === m)!.slaveAccounts.map((a) => a.id)).to.deep.equal([s1]);
    });

    it('deactivating all copiers of the project reaches every copier; activating restores them', async () => {
      await t.call('POST', '/accounts/deactivateAllCopiers');
      for (const s of [s1, chained]) expect((await t.call('GET', `/accounts/${s}/copiers`)).body[0].active).to.equal(false);
      expect((await t.call('GET', '/accounts/masters')).body).to.deep.equal([]);
      await t.call('POST', '/accounts/activateAllCopiers');
      for (const s of [s1, chained]) expect((await t.call('GET', `/accounts/${s}/copiers`)).body[0]).to.deep.include({ active: true, monitorOnly: false });
      await t.call('POST', '/accounts/monitorOnlyAllCopiers');
      expect((await t.call('GET', `/accounts/${chained}/copiers`)).body[0].monitorOnly).to.equal(true);
    });

    it('copier modes of one project leave another project untouched', async () => {
      const fm = await account('iso-m', OTHER_KEY);
      const fs = await account('iso-s', OTHER_KEY);
      await t.call('POST', `/accounts/${fs}/copiers`, { key: OTHER_KEY, body: { fromAccountId: fm } });
      await t.call('POST', '/accounts/deactivateAllCopiers');
      expect((await t.call('GET', `/accounts/${fs}/copiers`, { key: OTHER_KEY })).body[0].active).to.equal(true);
    });

    it('copier changes are in the slave account audit log', async () => {
      const logs = (await t.call('GET', `/accounts/${s1}/auditLogs`)).body as { action: string }[];
      expect(logs.map((l) => l.action)).to.include.members(['CopierCreated', 'CopierUpdated']);
    });
  });
});
