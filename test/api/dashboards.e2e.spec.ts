// Dashboards of a project (spec "Dashboards"): every operation over HTTP, the limits of the free-form
// widget configuration, the JSON merge patch, the order, and isolation between projects.
import { expect } from 'chai';
import { DEFAULT_PROJECT_ID } from '../../domain/project/decider.js';
import { createOtherProject, startTestService, type TestService } from '../support/service.js';

const P = DEFAULT_PROJECT_ID;
const OTHER = '66666666-6666-4666-8666-666666666666';
const OTHER_KEY = 'dashboards-spec-other-project-key-0123';
const base = `/projects/${P}/dashboards`;

const widget = (id: string, config: unknown = { symbols: ['EURUSD'], range: '1M', nested: { a: [1, 2, { b: null }] } }) => ({
  id,
  type: 'equityChart',
  title: `Widget ${id}`,
  gridItem: { x: 0, y: 0, cols: 4, rows: 3, minItemCols: 2 },
  config,
});

describe('dashboards (/projects/{projectId}/dashboards)', function () {
  this.timeout(60_000);
  let t: TestService;

  before(async () => {
    t = await startTestService();
    await createOtherProject(t, OTHER, OTHER_KEY);
  });
  after(() => t?.stop());

  it('creates, reads, replaces, patches, duplicates, reorders and deletes, keeping the widget configuration as sent', async () => {
    const script = { code: '<script>alert(1)</script>', fn: 'process.exit(1)', unicode: 'é✓' };
    const created = await t.call('POST', base, {
      body: { name: 'Main', widgets: [widget('w1', script), { type: 'positions', gridItem: { x: 4, y: 0, cols: 2, rows: 2 } }] },
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(200);
    const main = created.body;
    expect(main).to.deep.include({ projectId: P, name: 'Main', position: 0, duplicateOf: null });
    expect(main.widgets[0]).to.deep.equal(widget('w1', script));
    expect(main.widgets[1]).to.deep.include({ type: 'positions', title: null, config: null });
    expect(main.widgets[1].id).to.match(/^[0-9a-f-]{36}$/);
    expect((await t.call('GET', `${base}/${main.id}`)).body).to.deep.equal(main);

    const second = (await t.call('POST', base, { body: { name: 'Second' } })).body;
    expect(second).to.deep.include({ position: 1, widgets: [] });

    const replaced = await t.call('PUT', `${base}/${main.id}`, { body: { ...main, name: 'Main renamed', widgets: [widget('w2', 42)] } });
    expect(replaced.status, JSON.stringify(replaced.body)).to.equal(200);
    expect(replaced.body).to.deep.include({ id: main.id, name: 'Main renamed', position: 0, created: main.created });
    expect(replaced.body.widgets).to.deep.equal([widget('w2', 42)]);

    const patched = await t.call('PATCH', `${base}/${main.id}`, { body: { name: 'Patched' }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(patched.status, JSON.stringify(patched.body)).to.equal(200);
    expect(patched.body).to.deep.include({ name: 'Patched' });
    expect(patched.body.widgets).to.deep.equal([widget('w2', 42)]);
    const noName = await t.call('PATCH', `${base}/${main.id}`, { body: { name: null } });
    expect([noName.status, noName.body.error]).to.deep.equal([400, '[VALIDATION_FAILED]']);
    const widgetsGone = await t.call('PATCH', `${base}/${main.id}`, { body: { widgets: null } });
    expect(widgetsGone.body.widgets).to.deep.equal([]);

    const copy = await t.call('POST', `${base}/${main.id}/duplicate`);
    expect(copy.status, JSON.stringify(copy.body)).to.equal(200);
    expect(copy.body).to.deep.include({ name: 'Patched (copy)', position: 2, duplicateOf: main.id });
    const named = await t.call('POST', `${base}/${second.id}/duplicate`, { body: { name: 'Named copy' } });
    expect(named.body).to.deep.include({ name: 'Named copy', position: 3 });

    const order = [named.body.id, main.id, copy.body.id, second.id];
    const reordered = await t.call('PUT', `${base}/reorder`, { body: { dashboardIds: order } });
    expect(reordered.status, JSON.stringify(reordered.body)).to.equal(200);
    expect(reordered.body.map((d: { id: string }) => d.id)).to.deep.equal(order);
    expect(reordered.body.map((d: { position: number }) => d.position)).to.deep.equal([0, 1, 2, 3]);
    const incomplete = await t.call('PUT', `${base}/reorder`, { body: { dashboardIds: order.slice(1) } });
    expect([incomplete.status, incomplete.body.error]).to.deep.equal([400, '[VALIDATION_FAILED]']);

    expect((await t.call('DELETE', `${base}/${main.id}`)).status).to.equal(200);
    const after = (await t.call('GET', base)).body;
    expect(after.map((d: { id: string; position: number }) => [d.id, d.position])).to.deep.equal([
      [named.body.id, 0],
      [copy.body.id, 1],
      [second.id, 2],
    ]);
    const gone = await t.call('GET', `${base}/${main.id}`);
    expect([gone.status, gone.body.error]).to.deep.equal([404, '[DASHBOARD_NOT_FOUND]']);
  });

  it('replaces the whole storage with PUT /dashboards/bulk: kept ids keep their created time, others go', async () => {
    const before = (await t.call('GET', base)).body as { id: string; created: string }[];
    const kept = before[0]!;
    const res = await t.call('PUT', `${base}/bulk`, { body: { dashboards: [{ name: 'New first' }, { id: kept.id, name: 'Kept', widgets: [widget('k')] }] } });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.dashboards.map((d: { name: string; position: number }) => [d.name, d.position])).to.deep.equal([
      ['New first', 0],
      ['Kept', 1],
    ]);
    expect(res.body.dashboards[1]).to.deep.include({ id: kept.id, created: kept.created });
    expect((await t.call('GET', base)).body).to.deep.equal(res.body.dashboards);
    const empty = await t.call('PUT', `${base}/bulk`, { body: { dashboards: [] } });
    expect(empty.body).to.deep.equal({ dashboards: [] });
  });

  it('refuses oversized, too deep, duplicate or malformed widgets with 400 and changes nothing', async () => {
    const dashboard = (await t.call('POST', base, { body: { name: 'Limits' } })).body;
    let deep: unknown = 1;
    for (let i = 0; i < 20; i++) deep = { d: deep };
    const bad = [
      { name: 'x', widgets: [widget('big', { blob: 'x'.repeat(17 * 1024) })] },
      { name: 'x', widgets: [widget('deep', deep)] },
      { name: 'x', widgets: [widget('same'), widget('same')] },
      { name: 'x', widgets: [{ ...widget('grid'), gridItem: { x: -1, y: 0, cols: 1, rows: 1 } }] },
      { name: 'x', widgets: [{ ...widget('grid'), gridItem: { x: 0, y: 0, cols: 2, rows: 1, minItemCols: 3, maxItemCols: 2 } }] },
      { name: '' },
      { name: 'x', unknown: true },
    ];
    for (const body of bad) {
      const res = await t.call('PUT', `${base}/${dashboard.id}`, { body });
      expect([res.status, res.body.error], JSON.stringify(body).slice(0, 100)).to.deep.equal([400, '[VALIDATION_FAILED]']);
    }
    const bulk = await t.call('PUT', `${base}/bulk`, { body: { dashboards: [{ name: 'a', widgets: [widget('w', deep)] }] } });
    expect(bulk.status).to.equal(400);
    expect((await t.call('GET', `${base}/${dashboard.id}`)).body).to.deep.equal(dashboard);
  });

  it("keeps projects apart: another project's key sees and changes none of this project's dashboards", async () => {
    const mine = (await t.call('POST', base, { body: { name: 'Private', widgets: [widget('secret', { token: 'abc' })] } })).body;
    const theirs = await t.call('POST', `/projects/${OTHER}/dashboards`, { key: OTHER_KEY, body: { name: 'Theirs' } });
    expect(theirs.status).to.equal(200);
    const calls: [string, string, unknown?][] = [
      ['GET', base],
      ['POST', base, { name: 'x' }],
      ['PUT', `${base}/bulk`, { dashboards: [] }],
      ['PUT', `${base}/reorder`, { dashboardIds: [mine.id] }],
      ['GET', `${base}/${mine.id}`],
      ['PUT', `${base}/${mine.id}`, { name: 'x' }],
      ['PATCH', `${base}/${mine.id}`, { name: 'x' }],
      ['DELETE', `${base}/${mine.id}`],
      ['POST', `${base}/${mine.id}/duplicate`, {}],
      // A's dashboard through B's own project path
      ['GET', `/projects/${OTHER}/dashboards/${mine.id}`],
      ['PATCH', `/projects/${OTHER}/dashboards/${mine.id}`, { name: 'x' }],
    ];
    for (const [method, path, body] of calls) {
      const res = await t.call(method, path, { key: OTHER_KEY, ...(body !== undefined ? { body } : {}) });
      expect(res.status, `${method} ${path}`).to.equal(404);
      expect(JSON.stringify(res.body)).not.to.include('secret');
    }
    expect((await t.call('GET', `/projects/${OTHER}/dashboards`, { key: OTHER_KEY })).body.map((d: { name: string }) => d.name)).to.deep.equal(['Theirs']);
    expect((await t.call('GET', `${base}/${mine.id}`)).body).to.deep.equal(mine);
  });

  it("refuses a bulk replacement naming another project's dashboard id: 400, nothing of either project changes", async () => {
    const mine = (await t.call('POST', base, { body: { name: 'Mine, for the bulk', widgets: [widget('m')] } })).body;
    const theirsBefore = (await t.call('GET', `/projects/${OTHER}/dashboards`, { key: OTHER_KEY })).body;
    const mineBefore = (await t.call('GET', base)).body;
    const res = await t.call('PUT', `/projects/${OTHER}/dashboards/bulk`, { key: OTHER_KEY, body: { dashboards: [{ id: mine.id, name: 'taken over' }] } });
    expect([res.status, res.body.error, res.body.message]).to.deep.equal([
      400,
      '[VALIDATION_FAILED]',
      'dashboards[0].id: not a dashboard of this project (leave id out for a new one)',
    ]);
    expect((await t.call('GET', `/projects/${OTHER}/dashboards`, { key: OTHER_KEY })).body).to.deep.equal(theirsBefore);
    expect((await t.call('GET', base)).body).to.deep.equal(mineBefore);
    // an id of a dashboard deleted earlier is no dashboard of the project either
    expect((await t.call('DELETE', `${base}/${mine.id}`)).status).to.equal(200);
    const again = await t.call('PUT', `${base}/bulk`, { body: { dashboards: [{ id: mine.id, name: 'back' }] } });
    expect([again.status, again.body.error]).to.deep.equal([400, '[VALIDATION_FAILED]']);
  });

  it('leaves an audit log entry for every dashboard command, with the request that made it and without widget configurations', async () => {
    const PROJECT = '77777777-7777-4777-8777-777777777777';
    const KEY = 'dashboards-spec-audit-project-key-0123';
    await createOtherProject(t, PROJECT, KEY);
    const at = `/projects/${PROJECT}/dashboards`;
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await t.call(method, path, { key: KEY, ...(body !== undefined ? { body } : {}) });
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).to.equal(200);
      return res.body;
    };
    const first = await call('POST', at, { name: 'First', widgets: [widget('w', { note: 'configuration stays out of the changes', n: 1 })] });
    await call('PUT', `${at}/${first.id}`, { name: 'First, renamed', widgets: [widget('w')] });
    await call('PATCH', `${at}/${first.id}`, { name: 'First, patched' });
    const copy = await call('POST', `${at}/${first.id}/duplicate`, { name: 'Copy' });
    await call('PUT', `${at}/reorder`, { dashboardIds: [copy.id, first.id] });
    const stored = await call('PUT', `${at}/bulk`, { dashboards: [{ id: first.id, name: 'Kept' }, { name: 'New' }] });
    await call('DELETE', `${at}/${first.id}`);

    const logs = (await t.call('GET', `/projects/${PROJECT}/auditLogs?limit=100`, { key: KEY })).body as {
      action: string;
      changes: Record<string, unknown>;
      method?: string;
      path: string;
      apiKeyUuid: string;
      projectId: string;
    }[];
    const changes = logs.filter((l) => l.action.startsWith('Dashboard')).reverse();
    expect(changes.map((l) => [l.action, l.method, l.path])).to.deep.equal([
      ['DashboardCreated', 'POST', `/rest/api/v1${at}`],
      ['DashboardChanged', 'PUT', `/rest/api/v1${at}/${first.id}`],
      ['DashboardChanged', 'PATCH', `/rest/api/v1${at}/${first.id}`],
      ['DashboardCreated', 'POST', `/rest/api/v1${at}/${first.id}/duplicate`],
      ['DashboardsReordered', 'PUT', `/rest/api/v1${at}/reorder`],
      ['DashboardsReplaced', 'PUT', `/rest/api/v1${at}/bulk`],
      ['DashboardDeleted', 'DELETE', `/rest/api/v1${at}/${first.id}`],
    ]);
    expect(changes.every((l) => l.projectId === PROJECT && l.apiKeyUuid === changes[0]!.apiKeyUuid)).to.equal(true);
    expect(changes[0]!.changes).to.deep.equal({
      dashboardId: first.id,
      name: 'First',
      widgets: [{ id: 'w', type: 'equityChart', title: 'Widget w', gridItem: widget('w').gridItem }],
      duplicateOf: null,
    });
    expect(changes[2]!.changes).to.deep.include({ dashboardId: first.id, name: 'First, patched' });
    expect(changes[3]!.changes).to.deep.include({ dashboardId: copy.id, name: 'Copy', duplicateOf: first.id });
    expect(changes[4]!.changes).to.deep.equal({ dashboardIds: [copy.id, first.id] });
    expect(changes[5]!.changes).to.deep.equal({
      dashboards: stored.dashboards.map((d: { id: string; name: string }) => ({ dashboardId: d.id, name: d.name, widgets: [] })),
    });
    expect(changes[6]!.changes).to.deep.equal({ dashboardId: first.id });
    expect(JSON.stringify(changes.map((l) => l.changes))).not.to.include('configuration stays out');
    // the default project's log holds none of them
    const own = (await t.call('GET', `/projects/${P}/auditLogs?limit=1000`)).body as { changes: unknown }[];
    expect(JSON.stringify(own)).not.to.include(first.id);
  });

  it('declares PATCH in the OpenAPI document', async () => {
    const doc = (await t.call('GET', '/openapi.json', { checkContract: false })).body;
    expect(doc.paths['/projects/{projectId}/dashboards/{dashboardId}'].patch.operationId).to.equal('patchDashboard');
  });
});
