// Symbol mappings end to end (reference SymbolMappingDTO): the project's mappings (CRUD under
// /projects/{projectId}/symbolMappings), the copy engine resolving a master symbol through them
// (brokerFrom and brokerTo select by the accounts' loginServer, priority orders them), the copier's
// mappings in effect, and an account's mappings for given symbols. Every call here is also checked
// against the reference's request and response schemas (test/support/service.ts).
import { expect } from 'chai';
import { DEFAULT_PROJECT_ID } from '../../domain/project/decider.js';
import { createOtherProject, startTestService, type TestService } from '../support/service.js';
import { bookWhere, marketHoursClock, openPosition, pinQuotes, startedAccount } from '../support/trading.js';

const P = DEFAULT_PROJECT_ID;
const OTHER = '88888888-8888-4888-8888-888888888888';
const OTHER_KEY = 'symbol-mappings-other-project-key-0123';

interface MappingDTO {
  readonly id?: number;
  readonly projectId?: string;
  readonly from: string;
  readonly to: string;
  readonly brokerFrom: string;
  readonly brokerTo: string;
  readonly priority: number;
  readonly brokerToSuggestion?: string[];
  readonly source?: string;
  readonly slaveSymbol?: string | null;
}

describe('symbol mappings (reference SymbolMappingDTO)', function () {
  this.timeout(60_000);
  let t: TestService;
  const base = `/projects/${P}/symbolMappings`;

  before(async () => {
    t = await startTestService({ clock: marketHoursClock() });
    await pinQuotes(t, { EURUSD: [1.085, 1.0851], GBPUSD: [1.27, 1.27009], USDJPY: [150.1, 150.11], XAUUSD: [2350, 2350.25] });
    await createOtherProject(t, OTHER, OTHER_KEY);
  });
  after(() => t?.stop());

  const create = async (body: Record<string, unknown>): Promise<MappingDTO> => {
    const res = await t.call('POST', base, { body });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body as MappingDTO;
  };

  describe('the project resource', () => {
    it('creates, lists, reads, replaces and deletes a mapping, numbering ids per project', async () => {
      expect((await t.call('GET', base)).body).to.deep.equal([]);
      const gold = await create({ from: 'GOLD', to: 'XAUUSD', brokerFrom: '.*', brokerTo: 'ICMarkets.*', priority: 0 });
      expect(gold).to.deep.equal({
        id: 1,
        projectId: P,
        from: 'GOLD',
        to: 'XAUUSD',
        brokerFrom: '.*',
        brokerTo: 'ICMarkets.*',
        priority: 0,
        brokerToSuggestion: [],
      });
      // a generated client sends the read-only members too: they are ignored
      const silver = await create({
        id: 99,
        projectId: OTHER,
        from: 'SILVER',
        to: 'XAGUSD',
        brokerFrom: '',
        brokerTo: '',
        priority: 3,
        brokerToSuggestion: ['x'],
      });
      expect(silver).to.deep.include({ id: 2, projectId: P, brokerToSuggestion: [] });
      expect(((await t.call('GET', base)).body as MappingDTO[]).map((m) => m.id)).to.deep.equal([1, 2]);
      expect((await t.call('GET', `${base}/2`)).body).to.deep.equal(silver);

      const replaced = await t.call('PUT', `${base}/2`, { body: { from: 'SILVER', to: 'XAGUSD.m', brokerFrom: 'Exness.*', brokerTo: '.*', priority: 1 } });
      expect(replaced.status).to.equal(200);
      expect(replaced.body).to.deep.equal({
        id: 2,
        projectId: P,
        from: 'SILVER',
        to: 'XAGUSD.m',
        brokerFrom: 'Exness.*',
        brokerTo: '.*',
        priority: 1,
        brokerToSuggestion: [],
      });

      const removed = await t.call('DELETE', `${base}/2`);
      expect([removed.status, removed.body]).to.deep.equal([200, undefined]);
      expect((await t.call('GET', `${base}/2`)).status).to.equal(404);
      // a deleted id is not given again
      const oil = await create({ from: 'OIL', to: 'USOIL', brokerFrom: '.*', brokerTo: '.*', priority: 0 });
      expect(oil.id).to.equal(3);
      for (const id of [1, 3]) expect((await t.call('DELETE', `${base}/${id}`)).status).to.equal(200);
    });

    it('refuses invalid mappings with 400 [VALIDATION_FAILED], a duplicate with 409, and stores nothing then', async () => {
      const valid = { from: 'GOLD', to: 'XAUUSD', brokerFrom: '.*', brokerTo: '.*', priority: 0 };
      const bad: Record<string, unknown>[] = [
        { ...valid, brokerFrom: 'ICMarkets[' },
        { ...valid, brokerTo: '(a+)+$' },
        { ...valid, priority: -1 },
        { ...valid, from: '' },
        { ...valid, to: '   ' },
        { from: 'GOLD', to: 'XAUUSD', priority: 0 },
        { ...valid, unknown: 1 },
      ];
      for (const body of bad) {
        const res = await t.call('POST', base, { body });
        expect(res.status, JSON.stringify(body)).to.equal(400);
        expect(res.body.error).to.equal('[VALIDATION_FAILED]');
      }
      const first = await create(valid);
      const twice = await t.call('POST', base, { body: { ...valid, from: 'gold', priority: 4 } });
      expect([twice.status, twice.body.error]).to.deep.equal([409, '[SYMBOL_MAPPING_ALREADY_EXISTS]']);
      expect((await t.call('PUT', `${base}/${first.id}`, { body: { ...valid, brokerTo: '(.*)*' } })).status).to.equal(400);
      expect((await t.call('GET', base)).body).to.deep.equal([first]);
      expect((await t.call('PUT', `${base}/9999`, { body: valid })).body.error).to.equal('[SYMBOL_MAPPING_NOT_FOUND]');
      expect((await t.call('DELETE', `${base}/9999`)).status).to.equal(404);
      expect((await t.call('GET', `${base}/abc`)).status).to.equal(400);
      await t.call('DELETE', `${base}/${first.id}`);
    });

    it("keeps projects apart: another project's key sees 404 and its own mappings start at 1", async () => {
      const mine = await create({ from: 'GOLD', to: 'XAUUSD', brokerFrom: '.*', brokerTo: '.*', priority: 0 });
      for (const [method, path] of [
        ['GET', base],
        ['GET', `${base}/${mine.id}`],
        ['DELETE', `${base}/${mine.id}`],
      ] as const) {
        const res = await t.call(method, path, { key: OTHER_KEY });
        expect([res.status, res.body.error], `${method} ${path}`).to.deep.equal([404, '[PROJECT_NOT_FOUND]']);
      }
      const theirs = await t.call('POST', `/projects/${OTHER}/symbolMappings`, {
        key: OTHER_KEY,
        body: { from: 'GOLD', to: 'GOLD.x', brokerFrom: '.*', brokerTo: '.*', priority: 0 },
      });
      expect(theirs.body).to.deep.include({ id: 1, projectId: OTHER });
      expect((await t.call('GET', base)).body).to.deep.equal([mine]);
      await t.call('DELETE', `${base}/${mine.id}`);
    });

    it('needs a project-level key: an account-level key gets 403', async () => {
      const account = await startedAccount(t, 'mapping key holder');
      const issued = await t.call('POST', `/projects/${P}/apiKeys`, { body: { name: 'account key', accountId: account } });
      expect(issued.status, JSON.stringify(issued.body)).to.equal(200);
      const res = await t.call('GET', base, { key: issued.body.key });
      expect([res.status, res.body.error]).to.deep.equal([403, '[PROJECT_LEVEL_API_KEY_REQUIRED]']);
    });
  });

  describe('in the copy engine', () => {
    it('copies through the mapping that applies to the two brokers, in priority order', async () => {
      const master = await startedAccount(t, 'route master', { loginServer: 'MasterBroker-Live' });
      const icm = await startedAccount(t, 'route icm', { loginServer: 'ICMarketsSC-Demo' });
      const pepper = await startedAccount(t, 'route pepper', { loginServer: 'Pepperstone-Live' });
      const copierOf = async (slave: string) => (await t.call('POST', `/accounts/${slave}/copiers`, { body: { fromAccountId: master } })).body.id as string;
      const icmCopier = await copierOf(icm);
      const pepperCopier = await copierOf(pepper);

      const fromMaster = await create({ from: 'EURUSD', to: 'GBPUSD', brokerFrom: 'MasterBroker.*', brokerTo: 'ICMarkets.*', priority: 1 });
      const anyMaster = await create({ from: 'EURUSD', to: 'USDJPY', brokerFrom: '.*', brokerTo: 'icmarkets.*', priority: 0 });
      // a mapping for other brokers never applies here
      await create({ from: 'XAUUSD', to: 'EURUSD', brokerFrom: 'Exness.*', brokerTo: '.*', priority: 0 });

      const current = async (slave: string, copierId: string, symbol: string) => {
        const res = await t.call('GET', `/accounts/${slave}/copiers/${copierId}/symbolMappings/current`);
        expect(res.status).to.equal(200);
        return (res.body as MappingDTO[]).find((m) => m.from === symbol)!;
      };
      expect(await current(icm, icmCopier, 'EURUSD')).to.deep.equal({
        id: anyMaster.id,
        projectId: P,
        from: 'EURUSD',
        to: 'USDJPY',
        brokerFrom: 'MasterBroker-Live',
        brokerTo: 'ICMarketsSC-Demo',
        priority: 0,
        brokerToSuggestion: [],
        masterSymbol: 'EURUSD',
        slaveSymbol: 'USDJPY',
        source: 'PROJECT',
      });
      expect(await current(pepper, pepperCopier, 'EURUSD')).to.deep.include({ to: 'EURUSD', priority: 0, source: 'AUTOMATIC', brokerTo: 'Pepperstone-Live' });
      expect(await current(icm, icmCopier, 'XAUUSD')).to.deep.include({ to: 'XAUUSD', source: 'AUTOMATIC' });

      // the lower priority wins until it is raised above the other
      const raised = await t.call('PUT', `${base}/${anyMaster.id}`, {
        body: { from: 'EURUSD', to: 'USDJPY', brokerFrom: '.*', brokerTo: 'icmarkets.*', priority: 5 },
      });
      expect(raised.status).to.equal(200);
      expect(await current(icm, icmCopier, 'EURUSD')).to.deep.include({ id: fromMaster.id, to: 'GBPUSD', priority: 1 });

      await openPosition(t, master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.1 });
      const [icmCopy] = await bookWhere(t, icm, (b) => b.length === 1, 'the mapped copy');
      const [pepperCopy] = await bookWhere(t, pepper, (b) => b.length === 1, 'the copy by name');
      expect(icmCopy!.symbol).to.equal('GBPUSD');
      expect(pepperCopy!.symbol).to.equal('EURUSD');

      // the copier's own mapping comes first
      await t.call('PUT', `/accounts/${icm}/copiers/${icmCopier}/symbolMappings`, { body: [{ masterSymbol: 'EURUSD', slaveSymbol: 'XAUUSD' }] });
      expect(await current(icm, icmCopier, 'EURUSD')).to.deep.include({ to: 'XAUUSD', source: 'EXPLICIT', priority: 0 });
      expect(await current(icm, icmCopier, 'EURUSD')).not.to.have.property('id');
      await t.call('PUT', `/accounts/${icm}/copiers/${icmCopier}/symbolMappings`, { body: [] });

      // deleted, the other mapping takes over; both deleted, the name decides
      await t.call('DELETE', `${base}/${fromMaster.id}`);
      expect(await current(icm, icmCopier, 'EURUSD')).to.deep.include({ id: anyMaster.id, to: 'USDJPY' });
      for (const m of (await t.call('GET', base)).body as MappingDTO[]) await t.call('DELETE', `${base}/${m.id}`);
      expect(await current(icm, icmCopier, 'EURUSD')).to.deep.include({ to: 'EURUSD', source: 'AUTOMATIC' });
    });

    it("answers an account's mappings for given symbols, with the source broker or without", async () => {
      const account = await startedAccount(t, 'lookup', { loginServer: 'ICMarketsSC-Demo' });
      const specific = await create({ from: 'GOLD', to: 'XAUUSD', brokerFrom: 'Exness.*', brokerTo: 'ICMarkets.*', priority: 0 });
      const general = await create({ from: 'GOLD', to: 'EURUSD', brokerFrom: '.*', brokerTo: '.*', priority: 1 });
      const lookup = async (body: Record<string, unknown>) => {
        const res = await t.call('POST', `/accounts/${account}/symbolMappings`, { body });
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        return res.body as MappingDTO[];
      };
      const fromExness = await lookup({ loginServer: 'Exness-Real7', symbols: ['GOLD', 'gbpusd', 'NOPE'] });
      expect(fromExness.map((m) => [m.from, m.to, m.id ?? null, m.brokerFrom, m.brokerTo])).to.deep.equal([
        ['GOLD', 'XAUUSD', specific.id, 'Exness-Real7', 'ICMarketsSC-Demo'],
        ['gbpusd', 'GBPUSD', null, 'Exness-Real7', 'ICMarketsSC-Demo'],
        ['NOPE', '', null, 'Exness-Real7', 'ICMarketsSC-Demo'],
      ]);
      // without loginServer only mappings for every source broker apply
      expect((await lookup({ symbols: ['GOLD'] }))[0]).to.deep.include({ id: general.id, to: 'EURUSD', brokerFrom: '', priority: 1 });
      expect((await t.call('POST', `/accounts/${account}/symbolMappings`, { body: { loginServer: 'x' } })).status).to.equal(400);
      const elsewhere = await t.call('POST', `/accounts/${account}/symbolMappings`, { key: OTHER_KEY, body: { symbols: ['GOLD'] } });
      expect(elsewhere.status).to.equal(404);
      for (const m of [specific, general]) await t.call('DELETE', `${base}/${m.id}`);
    });
  });
});
