// Copiers created together in one turn of the project's copy network (app/commands/createCopier.ts
// createCopiers, what the copy-latency bench seeds its thousands of slaves with): each is checked
// against the stored copiers and those before it in the list, and a refusal writes none of them.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { type CopierCreation, createCopiers } from '../../app/commands/createCopier.js';
import { AccountStatus } from '../../domain/account/enums.js';
import { defaultCopierSettings } from '../../domain/copier/settings.js';
import { DEFAULT_PROJECT_ID } from '../../domain/project/decider.js';
import { DomainError } from '../../domain/shared/errors.js';
import { copierEdgesAround } from '../../projections/copiers/queries.js';
import { startTestService, type TestService, validAccount } from '../support/service.js';

describe('copiers created together in one turn of the project', function () {
  this.timeout(120_000);
  let t: TestService;
  const account = async (alias: string) => (await t.call('POST', '/accounts', { body: validAccount({ alias, loginAccountNumber: alias }) })).body.id as string;
  const link = (master: string, slave: string): CopierCreation => ({
    projectId: DEFAULT_PROJECT_ID,
    slave: { id: slave, account_status_id: AccountStatus.New },
    fromAccountId: master,
    settings: defaultCopierSettings,
    context: { apiKeyId: null, projectId: DEFAULT_PROJECT_ID, clientIp: null, method: null, path: null, correlationId: randomUUID() },
  });
  const together = (links: readonly CopierCreation[]) => createCopiers(t.service.services, DEFAULT_PROJECT_ID, links);
  const refusal = (work: Promise<unknown>) =>
    work.then(
      () => 'created',
      (error: unknown) => (error instanceof DomainError ? error.code : String(error)),
    );
  const mastersOf = async (slave: string) =>
    ((await t.call('GET', `/accounts/${slave}/copiers`)).body as { fromAccountId: string }[]).map((c) => c.fromAccountId);

  before(async () => {
    t = await startTestService();
  });
  after(() => t.stop());

  it('creates the copiers of a star, each answered by GET .../copiers as one made through the API', async () => {
    const master = await account('star-master');
    const slaves = [await account('star-1'), await account('star-2'), await account('star-3')];
    const ids = await together(slaves.map((slave) => link(master, slave)));
    expect(new Set(ids).size).to.equal(3);
    for (const [i, slave] of slaves.entries()) {
      const copiers = (await t.call('GET', `/accounts/${slave}/copiers`)).body as { id: string; fromAccountId: string; multiplier: number }[];
      expect(copiers.map((c) => [c.id, c.fromAccountId, c.multiplier])).to.deep.equal([[ids[i], master, 1]]);
    }
  });

  it('refuses a copier repeated in the list with [COPIER_ALREADY_EXISTS] and writes none of the list', async () => {
    const [master, first, second] = [await account('dup-list-m'), await account('dup-list-1'), await account('dup-list-2')];
    expect(await refusal(together([link(master, first), link(master, second), link(master, first)]))).to.equal('[COPIER_ALREADY_EXISTS]');
    expect(await mastersOf(first)).to.deep.equal([]);
    expect(await mastersOf(second)).to.deep.equal([]);
  });

  it('refuses a cycle closed within the list, or with a stored copier, with [COPIER_CYCLE] and writes none of the list', async () => {
    const [a, b, c] = [await account('cyc-list-a'), await account('cyc-list-b'), await account('cyc-list-c')];
    expect(await refusal(together([link(a, b), link(b, c), link(c, a)]))).to.equal('[COPIER_CYCLE]');
    expect([await mastersOf(a), await mastersOf(b), await mastersOf(c)]).to.deep.equal([[], [], []]);
    expect((await t.call('POST', `/accounts/${b}/copiers`, { body: { fromAccountId: a } })).status).to.equal(200);
    expect(await refusal(together([link(b, c), link(c, a)]))).to.equal('[COPIER_CYCLE]');
    expect([await mastersOf(a), await mastersOf(c)]).to.deep.equal([[], []]);
  });

  it('refuses a cycle that leaves the stored copiers through one of the list and comes back through stored ones', async () => {
    const [a, x, y] = [await account('via-list-a'), await account('via-list-x'), await account('via-list-y')];
    expect((await t.call('POST', `/accounts/${y}/copiers`, { body: { fromAccountId: x } })).status).to.equal(200);
    // a -> x (new), x -> y (stored), y -> a (new): the third link closes a -> x -> y -> a.
    expect(await refusal(together([link(a, x), link(y, a)]))).to.equal('[COPIER_CYCLE]');
    expect([await mastersOf(a), await mastersOf(x)]).to.deep.equal([[], []]);
  });

  it('reads only the copiers the rules look at: those into the new slaves and those reachable from them', async () => {
    const [m, s, t1, t2] = [await account('around-m'), await account('around-s'), await account('around-t1'), await account('around-t2')];
    const [other, otherSlave] = [await account('around-o'), await account('around-os')];
    const edge = (master: string, slave: string) => `${master}>${slave}`;
    const ids = await together([link(m, s), link(s, t1), link(t1, t2), link(other, otherSlave)]);
    expect(ids).to.have.length(4);
    const around = async (slaves: string[]) =>
      (await copierEdgesAround(t.service.services.db, DEFAULT_PROJECT_ID, slaves)).map((e) => edge(e.from_account_id, e.to_account_id)).sort();
    // Into s (a second m -> s is a duplicate), and s -> t1 -> t2 on from it; not other -> otherSlave, nor any other copier of the project.
    expect(await around([s])).to.deep.equal([edge(m, s), edge(s, t1), edge(t1, t2)].sort());
    expect(await around([t2, otherSlave])).to.deep.equal([edge(t1, t2), edge(other, otherSlave)].sort());
    expect(await around([])).to.deep.equal([]);
  });

  it('refuses a master of no account of the project with [ACCOUNT_NOT_FOUND]', async () => {
    const slave = await account('lost-master-slave');
    expect(await refusal(together([link(randomUUID(), slave)]))).to.equal('[ACCOUNT_NOT_FOUND]');
    expect(await mastersOf(slave)).to.deep.equal([]);
  });
});
