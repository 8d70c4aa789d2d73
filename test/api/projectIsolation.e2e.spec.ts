// No endpoint returns or changes another project's data (OWASP API1, BOLA). Every operation of the
// OpenAPI document (taken from the route declarations, so a new route is walked without editing this
// file) is called with a key of project B, its path parameters filled with ids of project A's
// resources and its body valid where this file knows how. None may answer 2xx for A's ids; an
// operation without ids may answer, but never with anything of A; and afterwards A is exactly as it
// was, and no event B caused touches a stream of A.
import { expect } from 'chai';
import { sql } from 'kysely';
import { declareRoutes } from '../../api/app.js';
import { DEFAULT_PROJECT_ID } from '../../domain/project/decider.js';
import { createOtherProject, startTestService, type TestService, validAccount } from '../support/service.js';
import { eventually, modifyRequest, positionRequest, startedAccount } from '../support/trading.js';

const A = DEFAULT_PROJECT_ID;
const B = '99999999-9999-4999-8999-999999999999';
const B_KEY = 'isolation-project-b-key-0123456789abcdef';

/** Bodies valid for the operations this file knows, so the walk reaches the ownership check behind validation. */
const bodies = (a: Record<string, string>): Record<string, unknown> => ({
  createCopier: { fromAccountId: a.master },
  updateCopier: { multiplier: 3 },
  setSymbolMappings: [{ masterSymbol: 'BTCUSD', slaveSymbol: 'BTCUSD' }],
  createProjectSymbolMapping: { from: 'BTCUSD', to: 'BTCUSD.x', brokerFrom: '.*', brokerTo: '.*', priority: 0 },
  updateProjectSymbolMapping: { from: 'BTCUSD', to: 'BTCUSD.y', brokerFrom: '.*', brokerTo: '.*', priority: 0 },
  getAccountSymbolMappings: { loginServer: 'Sim-Demo', symbols: ['BTCUSD'] },
  updateProject: {
    name: 'taken over',
    billingName: '',
    billingCompanyName: '',
    billingStreet: '',
    billingPostcode: '',
    billingCity: '',
    billingCountry: '',
    billingCountryIsoAlpha2: '',
    billingIdentification: '',
    currencyType: { id: 1 },
    dedicated: false,
  },
  createAccount: validAccount({ alias: 'B account from the walk', loginAccountNumber: '8800777' }),
  updateAccount: { alias: 'taken over' },
  openPosition: positionRequest({ symbol: 'BTCUSD', orderType: 'Buy', volume: 0.01 }),
  sendOrder: positionRequest({ symbol: 'BTCUSD', orderType: 'Buy', volume: 0.01 }),
  modifyPosition: modifyRequest(undefined, { symbol: 'BTCUSD', volume: 0.01 }),
  decideApproval: { accountFromId: a.master, ticket: 1 },
  createApiKey: { name: 'walk' },
  updateApiKey: { name: 'taken over' },
  setApiKeyAccessPolicy: { enabled: true, ipWhitelist: ['192.0.2.1'] },
  acknowledgeLogsBulk: [Number(a.id)],
  createDashboard: { name: 'walk' },
  updateDashboard: { name: 'taken over' },
  patchDashboard: { name: 'taken over' },
  replaceDashboards: { dashboards: [] },
  reorderDashboards: { dashboardIds: [a.dashboardId] },
  duplicateDashboard: { name: 'copied away' },
  createTemplate: { name: 'walk', sourceAccountId: a.accountId },
  updateTemplate: { expectedRevision: 1, name: 'taken over', sourceAccountId: a.accountId },
  setAppliedTemplate: { templateId: a.templateId },
  markWhiteLabelInvoicePaid: { externalReference: 'walk', note: 'walk' },
  markWhiteLabelCustomerInvoicesPaid: { externalReference: 'walk' },
  voidWhiteLabelInvoice: { reason: 'walk' },
});

const queries: Record<string, string> = {
  positionHistory: '?start=2020-01-01T00:00:00Z&stop=2030-01-01T00:00:00Z',
  getInvestorProgramTraderHistoryPositions: '?start=2020-01-01T00:00:00Z&stop=2030-01-01T00:00:00Z',
  getMarketplaceSignalHistoryPositions: '?start=2020-01-01T00:00:00Z&stop=2030-01-01T00:00:00Z',
  getSignalFollowerAccountHistoryPositions: '?start=2020-01-01T00:00:00Z&stop=2030-01-01T00:00:00Z',
  getAccountStateAt: '?instant=2030-01-01T00:00:00Z',
  getEconomicCalendarExposure: `?accountId=${crypto.randomUUID()}`,
  getNewsFilterSymbolMapping: '?symbols=EURUSD',
  getNewsFilterPreview: '?symbols=EURUSD',
  getMarketNews: '?category=CENTRAL_BANKS&impact=HIGH&sentiment=NEUTRAL&currencies=USD&search=fed&bookmarked=true&page=0&size=100',
};

/** Path parameters that name something of the service, not of a project (a read model is every project's). */
const sharedPathValues: Record<string, string> = {
  readModel: 'copies',
  // CustomerDTO.id is an integer drawn across the service: a valid one, so the walk reaches the project check
  customerId: '1',
  invoiceNumber: 'INV-202601-00000000',
};

describe("no endpoint reveals or changes another project's data", function () {
  this.timeout(60000);
  let t: TestService;
  /** Ids of project A's resources, by path parameter name. */
  const a: Record<string, string> = {};

  /** Everything A can see of itself, as A sees it. */
  const snapshotOfA = async () => {
    const get = async (path: string) => (await t.call('GET', path)).body;
    const keys = ((await get(`/projects/${A}/apiKeys`)) as Record<string, unknown>[]).map(({ lastUsedAt: _used, ...rest }) => rest);
    return {
      accounts: await get('/accounts?limit=1000'),
      deleted: await get('/accounts?accountStatusId=4'),
      master: await get(`/accounts/${a.master}`),
      slave: await get(`/accounts/${a.accountId}`),
      copiers: await get(`/accounts/${a.accountId}/copiers`),
      mappings: await get(`/accounts/${a.accountId}/copiers/${a.copierId}/symbolMappings`),
      projectMappings: await get(`/projects/${A}/symbolMappings`),
      dashboards: await get(`/projects/${A}/dashboards`),
      templates: await get(`/projects/${A}/templates`),
      template: await get(`/projects/${A}/templates/${a.templateId}`),
      linkedAccounts: await get(`/projects/${A}/templates/${a.templateId}/linkedAccounts`),
      project: await get(`/projects/${A}`),
      // what the position is, not what it is worth at the moment
      positions: ((await get(`/accounts/${a.accountId}/positions`)) as Record<string, unknown>[]).map(
        ({ currentPrice: _p, profit: _v, netProfit: _n, ...rest }) => rest,
      ),
      keys,
      async: await get('/accounts/async'),
      auditEntries: ((await get(`/projects/${A}/auditLogs?limit=1000`)) as unknown[]).length,
      // every entry with its acknowledgement
      logs: await get(`/projects/${A}/logs?limit=1000`),
    };
  };

  before(async () => {
    t = await startTestService();
    await createOtherProject(t, B, B_KEY);
    a.master = await startedAccount(t, 'A master');
    a.accountId = await startedAccount(t, 'A slave');
    const copier = await t.call('POST', `/accounts/${a.accountId}/copiers`, { body: { fromAccountId: a.master } });
    a.copierId = copier.body.id;
    const opened = await t.call('POST', `/accounts/${a.accountId}/positions`, { body: positionRequest({ symbol: 'BTCUSD', orderType: 'Buy', volume: 0.01 }) });
    expect(opened.status, JSON.stringify(opened.body)).to.equal(204);
    a.positionId = opened.headers.get('x-position-id')!;
    a.symbol = 'BTCUSD';
    a.projectId = A;
    // ids of project mappings are numbered per project: B's key must not reach A's mapping 1
    const mapping = await t.call('POST', `/projects/${A}/symbolMappings`, {
      body: { from: 'BTCUSD', to: 'BTCUSD', brokerFrom: '.*', brokerTo: '.*', priority: 0 },
    });
    expect(mapping.status, JSON.stringify(mapping.body)).to.equal(200);
    a.symbolMappingId = String(mapping.body.id);
    const dashboard = await t.call('POST', `/projects/${A}/dashboards`, {
      body: { name: 'A dashboard', widgets: [{ type: 'chart', gridItem: { x: 0, y: 0, cols: 1, rows: 1 } }] },
    });
    expect(dashboard.status, JSON.stringify(dashboard.body)).to.equal(200);
    a.dashboardId = dashboard.body.id;
    const template = await t.call('POST', `/projects/${A}/templates`, { body: { name: 'A template', sourceAccountId: a.accountId } });
    expect(template.status, JSON.stringify(template.body)).to.equal(200);
    a.templateId = template.body.id;
    a.revision = '1';
    const applied = await t.call('PUT', `/accounts/${a.accountId}/appliedTemplate`, { body: { templateId: a.templateId } });
    expect(applied.status, JSON.stringify(applied.body)).to.equal(204);
    a.apiKeyId = (await t.call('GET', `/accounts/${a.accountId}/apiKeys`)).body[0].id;
    // a log entry of A (LogDTO.id, an integer: kept out of the leak check below, digits are everywhere)
    a.id = String((await t.call('GET', `/accounts/${a.accountId}/logs`)).body[0].id);
    // accepted (the name never resolves, so it is checked again, and fails, at delivery)
    const queued = await t.call('POST', '/accounts', {
      body: validAccount({ alias: 'A async', loginAccountNumber: '8800778', callbackUrl: 'https://callback.invalid/cb' }),
    });
    expect(queued.status, JSON.stringify(queued.body)).to.equal(202);
    a.requestId = queued.body.requestId;
    await eventually(
      async () => ((await t.call('GET', `/accounts/async/${a.requestId}`)).body.status === 'COMPLETED' ? true : undefined),
      10000,
      'the async creation',
    );
  });
  after(() => t?.stop());

  it("walks every operation with project B's key and A's ids: never 2xx, nothing of A in any answer, A unchanged", async () => {
    const before = await snapshotOfA();
    // values that are not ids of A alone (a symbol, a per-project number, a log entry's integer id) would be found everywhere
    const ids = Object.entries(a)
      .filter(([name]) => name !== 'symbol' && name !== 'symbolMappingId' && name !== 'id' && name !== 'revision')
      .map(([, v]) => v);
    const specs = declareRoutes(t.service.services).specs;
    const sample = bodies(a);
    const findings: string[] = [];

    for (const spec of specs) {
      const names = [...spec.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
      // a parameter this file does not know (a feature id...) gets a fresh UUID: nothing of anyone
      const path = spec.path.replace(/\{(\w+)\}/g, (_m, name: string) => a[name] ?? sharedPathValues[name] ?? crypto.randomUUID());
      const known = sample[spec.operationId];
      const body = spec.body ? (known ?? {}) : undefined;
      const res = await t.call(spec.method.toUpperCase(), `${path}${queries[spec.operationId] ?? ''}`, { key: B_KEY, ...(body !== undefined ? { body } : {}) });
      const text = JSON.stringify(res.body ?? '') + JSON.stringify([...res.headers.entries()]);
      const label = `${spec.method.toUpperCase()} ${spec.path} -> ${res.status}`;
      if (names.length > 0) {
        // validation may answer first where this file does not know a valid body; it reveals nothing
        const allowed = spec.body && known === undefined ? [400, 403, 404] : [403, 404];
        if (!allowed.includes(res.status)) findings.push(`${label}: ${text.slice(0, 200)}`);
      }
      // an error may repeat what was asked ("account X not found"); anything else of A is a leak
      const asked = path + JSON.stringify(body ?? '');
      for (const id of ids) if (text.includes(id) && !asked.includes(id)) findings.push(`${label} shows ${id}`);
    }

    expect(findings).to.deep.equal([]);
    expect(await snapshotOfA()).to.deep.equal(before);
    // what B wrote during the walk is B's alone
    const events = await sql<{ stream_name: string; data: unknown }>`SELECT stream_name, data FROM es_events WHERE metadata->>'projectId' = ${B}`.execute(
      t.service.services.db,
    );
    expect(events.rows.length, "the walk created B's own account").to.be.greaterThan(0);
    for (const row of events.rows) {
      for (const id of ids) expect(`${row.stream_name} ${JSON.stringify(row.data)}`, `an event of B`).not.to.include(id);
    }
  });

  it("issue 17's routes: A's key sees none of B's dashboards, cannot read, change or delete project B; metadata is the same for both", async () => {
    const theirs = await t.call('POST', `/projects/${B}/dashboards`, {
      key: B_KEY,
      body: { name: 'B dashboard', widgets: [{ type: 'b', gridItem: { x: 0, y: 0, cols: 1, rows: 1 } }] },
    });
    expect(theirs.status, JSON.stringify(theirs.body)).to.equal(200);
    const bProject = (await t.call('GET', `/projects/${B}`, { key: B_KEY })).body;
    const bDashboards = (await t.call('GET', `/projects/${B}/dashboards`, { key: B_KEY })).body;
    const d = theirs.body.id as string;
    const update = bodies(a).updateProject;
    const calls: [string, string, unknown?][] = [
      ['GET', `/projects/${B}`],
      ['PUT', `/projects/${B}`, update],
      ['DELETE', `/projects/${B}`],
      ['GET', `/projects/${B}/traders`],
      ['GET', `/projects/${B}/dashboards`],
      ['POST', `/projects/${B}/dashboards`, { name: 'x' }],
      ['PUT', `/projects/${B}/dashboards/bulk`, { dashboards: [] }],
      ['PUT', `/projects/${B}/dashboards/reorder`, { dashboardIds: [d] }],
      ['GET', `/projects/${B}/dashboards/${d}`],
      ['PUT', `/projects/${B}/dashboards/${d}`, { name: 'x' }],
      ['PATCH', `/projects/${B}/dashboards/${d}`, { name: 'x' }],
      ['DELETE', `/projects/${B}/dashboards/${d}`],
      ['POST', `/projects/${B}/dashboards/${d}/duplicate`, {}],
      // B's dashboard through A's own project
      ['GET', `/projects/${A}/dashboards/${d}`],
      ['PUT', `/projects/${A}/dashboards/${d}`, { name: 'x' }],
      ['PATCH', `/projects/${A}/dashboards/${d}`, { name: 'x' }],
      ['DELETE', `/projects/${A}/dashboards/${d}`],
      ['POST', `/projects/${A}/dashboards/${d}/duplicate`, {}],
    ];
    for (const [method, path, body] of calls) {
      const res = await t.call(method, path, body === undefined ? {} : { body });
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).to.equal(404);
      expect(JSON.stringify(res.body), `${method} ${path}`).not.to.include('B dashboard');
    }
    // A's bulk and reorder may not name B's dashboard either
    const bulk = await t.call('PUT', `/projects/${A}/dashboards/bulk`, { body: { dashboards: [{ id: d, name: 'x' }] } });
    const reorder = await t.call('PUT', `/projects/${A}/dashboards/reorder`, { body: { dashboardIds: [a.dashboardId, d] } });
    expect([bulk.status, reorder.status]).to.deep.equal([400, 400]);
    expect(JSON.stringify((await t.call('GET', `/projects/${A}/dashboards`)).body)).not.to.include(d);
    expect((await t.call('GET', `/projects/${B}`, { key: B_KEY })).body).to.deep.equal(bProject);
    expect((await t.call('GET', `/projects/${B}/dashboards`, { key: B_KEY })).body).to.deep.equal(bDashboards);
    // the metadata of issue 17 holds nothing of a project: both keys read the same
    for (const path of ['/types/copierSettings/availableFields', '/brokers/1/all', '/brokers/17/all']) {
      const ofA = await t.call('GET', path);
      expect(ofA.status, path).to.equal(200);
      expect((await t.call('GET', path, { key: B_KEY })).body, path).to.deep.equal(ofA.body);
    }
  });

  it("B's own resources cannot point at A's: a copier from A's account, a key for A's account, A's ids in filters", async () => {
    const own = await t.call('POST', '/accounts', { key: B_KEY, body: validAccount({ alias: 'B own' }) });
    expect(own.status).to.equal(200);

    const copier = await t.call('POST', `/accounts/${own.body.id}/copiers`, { key: B_KEY, body: { fromAccountId: a.master } });
    const key = await t.call('POST', `/projects/${B}/apiKeys`, { key: B_KEY, body: { name: 'for A', accountId: a.accountId } });
    const audit = await t.call('GET', `/accounts/${a.accountId}/auditLogs`, { key: B_KEY });
    const logsOfA = (await t.call('GET', `/projects/${A}/logs?limit=1000`)).body;
    const acknowledgeOne = await t.call('PUT', `/projects/${B}/logs/${a.id}/acknowledge`, { key: B_KEY });
    const acknowledgeList = await t.call('PUT', `/projects/${B}/logs/acknowledge/bulk`, { key: B_KEY, body: [Number(a.id)] });
    const acknowledgeAll = await t.call('PUT', `/projects/${B}/logs/acknowledgeAll`, { key: B_KEY });

    expect(copier.status).to.equal(404);
    expect(key.status).to.equal(404);
    expect(audit.status).to.equal(404);
    expect([acknowledgeOne.status, acknowledgeList.status, acknowledgeAll.status]).to.deep.equal([404, 404, 200]);
    expect(acknowledgeOne.body.error).to.equal('[LOG_NOT_FOUND]');
    expect((await t.call('GET', `/projects/${A}/logs?limit=1000`)).body).to.deep.equal(logsOfA);
    expect((await t.call('GET', `/projects/${B}/logs?limit=1000`, { key: B_KEY })).body.map((l: { accountId: string }) => l.accountId)).not.to.include(
      a.accountId,
    );
    expect((await t.call('GET', `/accounts/${own.body.id}/copiers`, { key: B_KEY })).body).to.deep.equal([]);
    expect((await t.call('GET', `/projects/${B}/apiKeys`, { key: B_KEY })).body.map((k: { accountId: string | null }) => k.accountId)).not.to.include(
      a.accountId,
    );
  });
});
