// The projects, dashboards and templates read models (issue 17) rebuilt from their events equal the live ones.
import { expect } from 'chai';
import { dashboardDecider } from '../../domain/dashboard/decider.js';
import { dashboardStream } from '../../domain/dashboard/events.js';
import { projectDecider } from '../../domain/project/decider.js';
import { projectStream } from '../../domain/project/events.js';
import { defaultCopierSettings } from '../../domain/copier/settings.js';
import { templateDecider } from '../../domain/template/decider.js';
import { templateStream } from '../../domain/template/events.js';
import { defaultProjectSettings } from '../../domain/project/settings.js';
import { systemContext } from '../../domain/shared/command.js';
import { projectionByName } from '../../projections/all.js';
import { rebuildProjection } from '../../projections/rebuild.js';
import { handleCommand } from '../../store/commandHandler.js';
import type { Position } from '../../store/port.js';
import { liveReadModels } from '../support/liveReadModels.js';

describe('projects and dashboards read models: a rebuild equals the live one', function () {
  this.timeout(120_000);
  const models = liveReadModels();

  it('after creations, changes, duplicates, reorders, replacements and deletions', async () => {
    const { db, store, runner } = models;
    let last: Position | null = null;
    const project = async (projectId: string, command: Parameters<typeof projectDecider.decide>[0]) => {
      last = (await handleCommand(store, projectStream(projectId), projectDecider, command)).position ?? last;
    };
    const dashboards = async (projectId: string, command: Parameters<typeof dashboardDecider.decide>[0]) => {
      last = (await handleCommand(store, dashboardStream(projectId), dashboardDecider, command)).position ?? last;
    };
    const templates = async (command: Parameters<typeof templateDecider.decide>[0]) => {
      last = (await handleCommand(store, templateStream(command.data.templateId), templateDecider, command)).position ?? last;
    };
    const payload = (multiplier: number) => ({
      copiers: [{ fromAccountId: crypto.randomUUID(), settings: { ...defaultCopierSettings, multiplier }, symbolMappings: { XAUUSD: 'GOLD' }, features: [] }],
      features: [{ type: 'FeatureDataCollectorDTO', collectionIntervalSeconds: 60 }],
      riskLimits: [],
      settings: { tradingDisabled: false, closeUnmanagedPositions: true, nativeMode: false, propFirm: false },
    });
    for (let p = 0; p < 3; p++) {
      const projectId = crypto.randomUUID();
      const metadata = () => ({ now: new Date().toISOString(), context: { ...systemContext('t'), projectId } });
      await project(projectId, { type: 'CreateProject', data: { projectId, name: `Project ${p}`, owner: p === 0 ? 'a@b.c' : null }, metadata: metadata() });
      await project(projectId, {
        type: 'UpdateProject',
        data: { projectId, settings: { ...defaultProjectSettings(`Renamed ${p}`), billingCountryIsoAlpha2: 'AE', billingRegion: 'DU' }, dedicated: false },
        metadata: metadata(),
      });
      const ids = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
      const layout = (name: string) => ({
        name,
        widgets: [{ id: 'w', type: 'chart', title: null, gridItem: { x: 0, y: 0, cols: 2, rows: 2 }, config: { nested: [1, { a: null }] } }],
      });
      for (const [i, dashboardId] of ids.entries()) {
        await dashboards(projectId, { type: 'CreateDashboard', data: { projectId, dashboardId, layout: layout(`D${i}`) }, metadata: metadata() });
      }
      await dashboards(projectId, { type: 'ChangeDashboard', data: { projectId, dashboardId: ids[0]!, layout: layout('changed') }, metadata: metadata() });
      const copy = crypto.randomUUID();
      await dashboards(projectId, {
        type: 'DuplicateDashboard',
        data: { projectId, dashboardId: ids[1]!, newDashboardId: copy, name: null },
        metadata: metadata(),
      });
      await dashboards(projectId, { type: 'ReorderDashboards', data: { projectId, order: [copy, ids[2]!, ids[0]!, ids[1]!] }, metadata: metadata() });
      await dashboards(projectId, { type: 'DeleteDashboard', data: { projectId, dashboardId: ids[2]! }, metadata: metadata() });
      if (p === 1) {
        await dashboards(projectId, {
          type: 'ReplaceDashboards',
          data: {
            projectId,
            dashboards: [
              { dashboardId: ids[0]!, named: true, layout: layout('kept') },
              { dashboardId: crypto.randomUUID(), named: false, layout: layout('new') },
            ],
          },
          metadata: metadata(),
        });
      }
      const [kept, deleted] = [crypto.randomUUID(), crypto.randomUUID()];
      const [one, two] = [crypto.randomUUID(), crypto.randomUUID()];
      for (const templateId of [kept, deleted]) {
        await templates({
          type: 'CreateTemplate',
          data: { templateId, projectId, name: `T${p}`, description: null, sourceAccountId: null, payload: payload(1) },
          metadata: metadata(),
        });
        await templates({
          type: 'LinkAccount',
          data: { templateId, projectId, accountId: templateId === kept ? one : two, revision: 1 },
          metadata: metadata(),
        });
      }
      await templates({ type: 'UpdateTemplate', data: { templateId: kept, projectId, expectedRevision: 1, payload: payload(2) }, metadata: metadata() });
      await templates({ type: 'UnlinkAccount', data: { templateId: kept, projectId, accountId: one, reason: 'OTHER_TEMPLATE_APPLIED' }, metadata: metadata() });
      await templates({ type: 'LinkAccount', data: { templateId: kept, projectId, accountId: two, revision: 2 }, metadata: metadata() });
      await templates({ type: 'DeleteTemplate', data: { templateId: deleted, projectId, force: true, goneAccountIds: [] }, metadata: metadata() });
      if (p === 2) await project(projectId, { type: 'DeleteProject', data: { projectId }, metadata: metadata() });
    }
    expect(await runner.waitFor(last!, 20_000)).to.equal(true);
    const snapshot = async () => ({
      projects: await db.selectFrom('projects').selectAll().orderBy('id').execute(),
      dashboards: await db.selectFrom('dashboards').selectAll().orderBy('id').execute(),
      audit: await db.selectFrom('audit_logs').selectAll().orderBy('id').execute(),
      templates: await db.selectFrom('templates').selectAll().orderBy('id').execute(),
      revisions: await db.selectFrom('template_revisions').selectAll().orderBy('template_id').orderBy('revision').execute(),
      links: await db.selectFrom('template_links').selectAll().orderBy('account_id').execute(),
    });
    const live = await snapshot();
    expect(live.dashboards).to.have.length(3 + 2 + 3);
    expect(live.projects.filter((p) => p.deleted !== null)).to.have.length(1);
    expect([live.templates.length, live.revisions.length, live.links.length]).to.deep.equal([3, 6, 3]);
    for (const name of ['projects', 'dashboards', 'templates', 'audit_logs']) await rebuildProjection(db, store, projectionByName(name)!);
    expect(await snapshot()).to.deep.equal(live);
  });
});
