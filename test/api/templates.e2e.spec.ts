// Account templates (spec "Account templates", "Templates"): every operation over HTTP, the round trip
// snapshot -> apply -> the same configuration, expectedRevision, accounts behind their template, deletion
// with linked accounts, the compatibility markers and their attention flags, the markers of
// configurationSummary, the audit log of an apply, isolation between projects and the rebuild.
import { expect } from 'chai';
import { DEFAULT_PROJECT_ID } from '../../domain/project/decider.js';
import { projectionByName } from '../../projections/all.js';
import { rebuildProjection } from '../../projections/rebuild.js';
import { accountUpdate, createOtherProject, startTestService, type TestService, validAccount } from '../support/service.js';
import { featureBody } from '../support/trading.js';
import type { EventStore, StreamAppend } from '../../store/port.js';

const P = DEFAULT_PROJECT_ID;
const OTHER = '77777777-7777-4777-8777-777777777777';
const OTHER_KEY = 'templates-spec-other-project-key-0123';
const base = `/projects/${P}/templates`;

const COOLDOWN = { type: { id: 38 }, setting: { cooldownMinutes: 15 } };
const DATA_COLLECTOR = {
  type: { id: 35 },
  setting: {
    activateDataCollector: true,
    collectionIntervalSeconds: 120,
    normalizeValues: false,
    recordBalance: true,
    recordEquity: true,
    recordFloatingPnL: false,
  },
};
const LOSS_300 = { riskType: { id: 5 }, riskLimit: 0, absoluteRiskLimit: 300, fulfillSeconds: 0 };
const DAILY_5 = { riskType: { id: 1 }, riskLimit: 0.05 };

/** Members that name or date one resource: a configuration "up to ids" leaves them out. */
const IDS = new Set(['id', 'featureId', 'accountId', 'toAccountId', 'copierId', 'riskLimitId', 'created', 'updated']);
const upToIds = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(upToIds);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => !IDS.has(k))
      .map(([k, v]) => [k, upToIds(v)]),
  );
};

describe('account templates (/projects/{projectId}/templates, PUT /accounts/{accountId}/appliedTemplate)', function () {
  this.timeout(120_000);
  let t: TestService;
  let logins = 0;

  const account = async (alias: string, overrides: Record<string, unknown> = {}): Promise<string> => {
    logins += 1;
    const res = await t.call('POST', '/accounts', { body: validAccount({ alias, loginAccountNumber: `77${logins}`, ...overrides }) });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.id as string;
  };
  const ok = async (method: string, route: string, body?: unknown, headers?: Record<string, string>) => {
    const res = await t.call(method, route, { ...(body !== undefined ? { body } : {}), ...(headers ? { headers } : {}) });
    expect(res.status, `${method} ${route}: ${JSON.stringify(res.body)}`).to.be.oneOf([200, 204]);
    return res.body;
  };
  const copier = async (slave: string, master: string, settings: Record<string, unknown> = {}) =>
    (await ok('POST', `/accounts/${slave}/copiers`, { fromAccountId: master, ...settings })).id as string;
  const summaryOf = async (accountId: string) => {
    const all = (await ok('GET', '/accounts/configurationSummary')) as (Record<string, unknown> & {
      id: string;
      copiers: unknown[];
      features: unknown[];
      riskLimits: unknown[];
    })[];
    return all.find((a) => a.id === accountId)!;
  };
  const configurationOf = async (accountId: string) => {
    const s = await summaryOf(accountId);
    const features: unknown[] = [];
    for (const c of s.copiers as { id: string }[]) features.push(await ok('GET', `/accounts/${accountId}/copiers/${c.id}/features`));
    const mappings: unknown[] = [];
    for (const c of s.copiers as { id: string }[]) mappings.push(await ok('GET', `/accounts/${accountId}/copiers/${c.id}/symbolMappings`));
    const { tradingDisabled, closeUnmanagedPositions, nativeMode, propFirm } = s;
    return upToIds({
      copiers: s.copiers,
      copierFeatures: features,
      mappings,
      features: s.features,
      riskLimits: s.riskLimits,
      settings: { tradingDisabled, closeUnmanagedPositions, nativeMode, propFirm },
    });
  };
  const apply = (accountId: string, templateId: string | null, headers?: Record<string, string>) =>
    t.call('PUT', `/accounts/${accountId}/appliedTemplate`, { body: { templateId }, ...(headers ? { headers } : {}) });
  /** The events stored under a correlation id, oldest first. */
  const eventsOf = async (correlationId: string) => {
    const found: { type: string; metadata: Record<string, unknown> }[] = [];
    for await (const { event } of t.service.services.store.readAll({ direction: 'backwards', fromPosition: 'end', maxCount: 5_000 })) {
      if (event.metadata.correlationId === correlationId) found.unshift({ type: event.type, metadata: { ...event.metadata } });
    }
    return found;
  };

  let master: string;
  let otherMaster: string;
  let source: string;
  let templateId: string;
  let follower: string;

  before(async () => {
    t = await startTestService();
    await createOtherProject(t, OTHER, OTHER_KEY);
    // Given: a source account copying from two masters (one copier with a feature, mappings and a
    // scoped limit), with an account feature, a limit of its own and two account settings.
    master = await account('Master');
    otherMaster = await account('Other master');
    source = await account('Source');
    const main = await copier(source, master, { multiplier: 2, scaleType: { id: 4 } });
    await copier(source, otherMaster, { active: false });
    await ok('PUT', `/accounts/${source}/copiers/${main}/symbolMappings`, [{ masterSymbol: 'XAUUSD', slaveSymbol: 'GOLD' }]);
    await ok('POST', `/accounts/${source}/copiers/${main}/features`, COOLDOWN);
    await ok('POST', `/accounts/${source}/features`, DATA_COLLECTOR);
    await ok('POST', `/accounts/${source}/riskLimits`, LOSS_300);
    await ok('POST', `/accounts/${source}/riskLimits`, { ...DAILY_5, copierId: main });
    const sourceAccount = await ok('GET', `/accounts/${source}`);
    await ok('PUT', `/accounts/${source}`, accountUpdate(sourceAccount, { closeUnmanagedPositions: true, nativeMode: true }));
  });
  after(() => t?.stop());

  it('snapshots an account, and applying the template to a fresh account gives it the same configuration up to ids', async () => {
    const created = await t.call('POST', base, { body: { name: 'Gold desk', description: 'two masters', sourceAccountId: source } });
    expect(created.status, JSON.stringify(created.body)).to.equal(200);
    templateId = created.body.id;
    expect(created.body).to.deep.include({
      projectId: P,
      name: 'Gold desk',
      description: 'two masters',
      revision: 1,
      sourceAccountId: source,
      linkedAccountCount: 0,
      behindAccountCount: 0,
      compatibility: 'CURRENT',
      attentionFlags: [],
    });
    const payload = created.body.payload;
    expect(payload.copiers.map((c: { fromAccountId: string }) => c.fromAccountId)).to.deep.equal([master, otherMaster]);
    expect(payload.copiers[0].settings).to.deep.include({ multiplier: 2, scaleType: { id: 4, name: 'No scaling' } });
    expect(payload.copiers[0].symbolMappings).to.deep.equal({ XAUUSD: 'GOLD' });
    expect(payload.copiers[0].features[0]).to.deep.include({ type: { id: 38, name: 'FeatureTradeCooldownDTO' } });
    expect(payload.riskLimits.map((r: { copierFromAccountId: string | null }) => r.copierFromAccountId)).to.deep.equal([null, master]);
    expect(payload.settings).to.deep.equal({ tradingDisabled: false, closeUnmanagedPositions: true, nativeMode: true, propFirm: false });
    expect((await ok('GET', `${base}/${templateId}`)) as unknown).to.deep.equal(created.body);
    const list = (await ok('GET', base)) as { id: string; payload?: unknown }[];
    expect(list.map((x) => x.id)).to.deep.equal([templateId]);
    expect(list[0]).not.to.have.property('payload');

    follower = await account('Follower');
    const applied = await apply(follower, templateId, { 'X-Correlation-Id': 'corr-apply-follower' });
    expect(applied.status, JSON.stringify(applied.body)).to.equal(204);
    expect(await configurationOf(follower)).to.deep.equal(await configurationOf(source));

    const markers = await summaryOf(follower);
    expect(markers).to.deep.include({ accountTemplate1: templateId, appliedTemplateRevision: 1 });
    expect(markers.appliedTemplateMeta).to.deep.include({ templateName: 'Gold desk', templateRevision: 1, behind: false, compatibility: 'CURRENT' });
    expect(await summaryOf(source)).to.deep.include({ accountTemplate1: null, appliedTemplateRevision: null, appliedTemplateMeta: null });

    // One apply, one correlation id: every change it made is in the audit log, the link last.
    const audit = ((await ok('GET', `/accounts/${follower}/auditLogs?limit=1000`)) as { action: string; correlationId: string }[]).filter(
      (l) => l.correlationId === 'corr-apply-follower',
    );
    const actions = audit.map((l) => l.action);
    for (const action of ['CopierCreated', 'CopierSymbolMappingsSet', 'FeatureAdded', 'RiskLimitCreated', 'AccountUpdated', 'TemplateApplied']) {
      expect(actions, action).to.include(action);
    }
    expect(actions.filter((a) => a === 'CopierCreated')).to.have.length(2);
    // ... and they are one command: one request, and the events name the command and its id.
    expect(new Set(audit.map((l) => (l as { requestId?: string }).requestId)).size).to.equal(1);
    const stored = await eventsOf('corr-apply-follower');
    expect(stored.map((e) => e.type).sort()).to.deep.equal([...actions].sort());
    expect(new Set(stored.map((e) => `${String(e.metadata.command)}/${String(e.metadata.commandId)}`)).size).to.equal(1);
    expect(stored[0]!.metadata.command).to.equal('ApplyTemplate');
    expect(stored.at(-1)!.type, 'the link last').to.equal('TemplateApplied');
  });

  it('answers the three markers in GET /accounts/{accountId} and GET /accounts too, and their kept answers follow an apply and a clear', async () => {
    const marked = await account('Marked');
    const markersOf = (dto: Record<string, unknown>) => ({
      accountTemplate1: dto.accountTemplate1,
      appliedTemplateRevision: dto.appliedTemplateRevision,
      appliedTemplateMeta: dto.appliedTemplateMeta,
    });
    const none = { accountTemplate1: null, appliedTemplateRevision: null, appliedTemplateMeta: null };
    const one = async () => markersOf(await ok('GET', `/accounts/${marked}`));
    const listed = async () => markersOf(((await ok('GET', '/accounts')) as { id: string }[]).find((a) => a.id === marked)!);
    // read twice: the second answer is the kept one (api/accounts/answers.ts)
    expect(await one()).to.deep.equal(none);
    expect(await one()).to.deep.equal(none);
    expect(await listed()).to.deep.equal(none);

    expect((await apply(marked, templateId)).status).to.equal(204);
    const now = await one();
    expect(now).to.deep.include({ accountTemplate1: templateId, appliedTemplateRevision: 1 });
    expect(now.appliedTemplateMeta).to.deep.include({ templateName: 'Gold desk', templateRevision: 1, behind: false, compatibility: 'CURRENT' });
    expect(await listed()).to.deep.equal(now);
    expect(markersOf(await summaryOf(marked))).to.deep.equal(now);

    expect((await apply(marked, null)).status).to.equal(204);
    expect(await one()).to.deep.equal(none);
    expect(await listed()).to.deep.equal(none);
  });

  it('applying makes an account with another configuration match: what the template lacks is deleted, what differs is changed', async () => {
    const other = await account('Reconfigured');
    const stray = await account('Stray master');
    const kept = await copier(other, master, { multiplier: 5 });
    await copier(other, stray);
    await ok('POST', `/accounts/${other}/copiers/${kept}/features`, { type: { id: 38 }, setting: { cooldownMinutes: 99 } });
    await ok('POST', `/accounts/${other}/riskLimits`, { riskType: { id: 2 }, riskLimit: 0.1 });
    expect((await apply(other, templateId)).status).to.equal(204);
    expect(await configurationOf(other)).to.deep.equal(await configurationOf(source));
    const copiers = (await ok('GET', `/accounts/${other}/copiers`)) as { id: string; fromAccountId: string }[];
    expect(copiers.find((c) => c.fromAccountId === master)!.id, 'the copier of the same master is changed, not replaced').to.equal(kept);

    // Applying again to an account that matches changes nothing but the link.
    expect((await apply(other, templateId, { 'X-Correlation-Id': 'corr-apply-again' })).status).to.equal(204);
    const again = ((await ok('GET', `/accounts/${other}/auditLogs?limit=1000`)) as { action: string; correlationId: string }[]).filter(
      (l) => l.correlationId === 'corr-apply-again',
    );
    expect(again.map((l) => l.action)).to.deep.equal(['TemplateApplied']);
    // clearing keeps the configuration and removes the markers
    expect((await t.call('PUT', `/accounts/${other}/appliedTemplate`, {})).status).to.equal(204);
    expect(await summaryOf(other)).to.deep.include({ accountTemplate1: null, appliedTemplateRevision: null, appliedTemplateMeta: null });
    expect(await configurationOf(other)).to.deep.equal(await configurationOf(source));
  });

  describe('one command: all or nothing', () => {
    let cycleTemplate: string;
    let x: string;
    /** A template copying from a fresh master X, with an account feature and an account setting. */
    before(async () => {
      x = await account('Master of the one-command specs');
      const from = await account('Copies X');
      await copier(from, x);
      await ok('POST', `/accounts/${from}/features`, DATA_COLLECTOR);
      await ok('PUT', `/accounts/${from}`, accountUpdate(await ok('GET', `/accounts/${from}`), { closeUnmanagedPositions: true }));
      cycleTemplate = (await ok('POST', base, { name: 'Copies X', sourceAccountId: from })).id;
    });

    it('a step refused midway (a copier that would close a cycle) stores nothing at all, not even the steps before it', async () => {
      // Given: X copies from the target, which has a limit and a feature the template lacks (deleted
      // before the copier is created, when applied one command after another) and other settings.
      const target = await account('X copies from me');
      await copier(x, target);
      await ok('POST', `/accounts/${target}/riskLimits`, LOSS_300);
      await ok('POST', `/accounts/${target}/features`, { ...DATA_COLLECTOR, setting: { ...DATA_COLLECTOR.setting, collectionIntervalSeconds: 600 } });
      const before = await configurationOf(target);

      const refused = await apply(target, cycleTemplate, { 'X-Correlation-Id': 'corr-apply-cycle' });
      expect([refused.status, refused.body.error], JSON.stringify(refused.body)).to.deep.equal([409, '[COPIER_CYCLE]']);

      expect(await configurationOf(target)).to.deep.equal(before);
      expect(await summaryOf(target)).to.deep.include({ accountTemplate1: null, appliedTemplateRevision: null });
      expect(await eventsOf('corr-apply-cycle'), 'no event of the apply is stored').to.deep.equal([]);
      const audit = (await ok('GET', `/accounts/${target}/auditLogs?limit=1000`)) as { action: string; correlationId: string }[];
      expect(audit.filter((l) => l.correlationId === 'corr-apply-cycle' && l.action !== 'ApiRequestRefused')).to.deep.equal([]);
      const linked = (await ok('GET', `${base}/${cycleTemplate}/linkedAccounts`)) as { accountId: string }[];
      expect(linked.map((l) => l.accountId)).not.to.include(target);
    });

    it('a concurrent change to an aggregate the apply decided on is a 409 that stores nothing of the apply', async () => {
      const target = await account('Changed meanwhile');
      await ok('POST', `/accounts/${target}/riskLimits`, LOSS_300);
      const before = await configurationOf(target);
      // Another request changes the account between the apply's decisions and its append. The store may
      // be wrapped (a Proxy observing appends calls its target's method): the spec shadows the method on
      // the store itself for one call, and the original is the class's.
      const { store } = t.service.services;
      const original = (Object.getPrototypeOf(store) as EventStore).appendToStreams;
      const intercepted = { hit: false };
      store.appendToStreams = async function (this: EventStore, appends: readonly StreamAppend[]) {
        if (!intercepted.hit && appends.some((a) => a.streamName === `template-${cycleTemplate}`)) {
          intercepted.hit = true;
          const current = await ok('GET', `/accounts/${target}`);
          await ok('PUT', `/accounts/${target}`, accountUpdate(current, { alias: 'renamed meanwhile' }), { 'X-Correlation-Id': 'corr-meanwhile' });
        }
        return original.call(this, appends);
      };
      try {
        const refused = await apply(target, cycleTemplate, { 'X-Correlation-Id': 'corr-apply-concurrent' });
        expect(intercepted.hit).to.equal(true);
        expect([refused.status, refused.body.error], JSON.stringify(refused.body)).to.deep.equal([409, '[CONCURRENT_MODIFICATION]']);
      } finally {
        delete (store as { appendToStreams?: unknown }).appendToStreams;
      }
      expect(await eventsOf('corr-apply-concurrent'), 'no event of the apply is stored').to.deep.equal([]);
      expect((await eventsOf('corr-meanwhile')).map((e) => e.type)).to.deep.equal(['AccountUpdated']);
      expect(await configurationOf(target)).to.deep.equal(before);
      expect(await ok('GET', `/accounts/${target}`)).to.deep.include({ alias: 'renamed meanwhile', closeUnmanagedPositions: false, accountTemplate1: null });

      // Applying again, on what is now, succeeds.
      expect((await apply(target, cycleTemplate)).status).to.equal(204);
      expect(await ok('GET', `/accounts/${target}`)).to.deep.include({
        alias: 'renamed meanwhile',
        closeUnmanagedPositions: true,
        accountTemplate1: cycleTemplate,
      });
      expect(((await ok('GET', `/accounts/${target}/copiers`)) as { fromAccountId: string }[]).map((c) => c.fromAccountId)).to.deep.equal([x]);
      expect(await ok('GET', `/accounts/${target}/riskLimits`)).to.deep.equal([]);
    });
  });

  it('refuses an update with a stale expectedRevision and stores nothing; a current one stores the next revision', async () => {
    const updated = await t.call('PUT', `${base}/${templateId}`, { body: { expectedRevision: 1, name: 'Gold desk v2', sourceAccountId: source } });
    expect(updated.status, JSON.stringify(updated.body)).to.equal(200);
    expect(updated.body).to.deep.include({ revision: 2, name: 'Gold desk v2' });

    const stale = await t.call('PUT', `${base}/${templateId}`, { body: { expectedRevision: 1, name: 'lost update' } });
    expect([stale.status, stale.body.error]).to.deep.equal([409, '[TEMPLATE_REVISION_MISMATCH]']);
    const now = await ok('GET', `${base}/${templateId}`);
    expect(now).to.deep.include({ revision: 2, name: 'Gold desk v2' });
    const revisions = (await ok('GET', `${base}/${templateId}/revisions`)) as { revision: number; name: string }[];
    expect(revisions.map((r) => [r.revision, r.name])).to.deep.equal([
      [2, 'Gold desk v2'],
      [1, 'Gold desk'],
    ]);
    const first = await ok('GET', `${base}/${templateId}/revisions/1`);
    expect(first).to.deep.include({ templateId, revision: 1, name: 'Gold desk', sourceAccountId: source });
    expect(first.payload.copiers).to.have.length(2);
    const missing = await t.call('GET', `${base}/${templateId}/revisions/3`);
    expect([missing.status, missing.body.error]).to.deep.equal([404, '[TEMPLATE_REVISION_NOT_FOUND]']);
  });

  it('shows an account behind its template until the template is applied again', async () => {
    const linked = (await ok('GET', `${base}/${templateId}/linkedAccounts`)) as { accountId: string; appliedRevision: number; behind: boolean }[];
    expect(linked.map((l) => [l.accountId, l.appliedRevision, l.behind])).to.deep.equal([[follower, 1, true]]);
    expect((await summaryOf(follower)).appliedTemplateMeta).to.deep.include({ templateRevision: 2, behind: true });
    expect((await ok('GET', `/accounts/${follower}`)).appliedTemplateMeta, 'the kept answer follows the update').to.deep.include({
      templateRevision: 2,
      behind: true,
    });
    expect((await ok('GET', base))[0]).to.deep.include({ linkedAccountCount: 1, behindAccountCount: 1 });

    expect((await apply(follower, templateId)).status).to.equal(204);
    const now = (await ok('GET', `${base}/${templateId}/linkedAccounts`)) as { appliedRevision: number; behind: boolean }[];
    expect(now.map((l) => [l.appliedRevision, l.behind])).to.deep.equal([[2, false]]);
    expect(await summaryOf(follower)).to.deep.include({ appliedTemplateRevision: 2 });
  });

  it('refuses to delete a template with linked accounts, then deletes it with force=true and unlinks them', async () => {
    const refused = await t.call('DELETE', `${base}/${templateId}`);
    expect([refused.status, refused.body.error]).to.deep.equal([409, '[TEMPLATE_HAS_LINKED_ACCOUNTS]']);
    expect((await t.call('GET', `${base}/${templateId}`)).status).to.equal(200);

    const forced = await t.call('DELETE', `${base}/${templateId}?force=true`);
    expect(forced.status, JSON.stringify(forced.body)).to.equal(200);
    const gone = await t.call('GET', `${base}/${templateId}`);
    expect([gone.status, gone.body.error]).to.deep.equal([404, '[TEMPLATE_NOT_FOUND]']);
    expect((await t.call('GET', `${base}/${templateId}/revisions`)).status).to.equal(404);
    expect(await summaryOf(follower)).to.deep.include({ accountTemplate1: null, appliedTemplateRevision: null, appliedTemplateMeta: null });
    const audit = (await ok('GET', `/accounts/${follower}/auditLogs?limit=1000`)) as { action: string; changes: { reason?: string } }[];
    expect(audit.some((l) => l.action === 'TemplateUnlinked' && l.changes.reason === 'TEMPLATE_DELETED')).to.equal(true);
    // a template nobody follows needs no force
    const lone = await ok('POST', base, { name: 'Lone', sourceAccountId: source });
    expect((await t.call('DELETE', `${base}/${lone.id}`)).status).to.equal(200);
  });

  describe('compatibility markers', () => {
    it('CURRENT -> REVIEW_NEEDED when the master of an active copier is deleted: applying is refused; an update without it is CURRENT again', async () => {
      const x = await account('Master X');
      const slave = await account('Slave of X');
      await copier(slave, x);
      const template = await ok('POST', base, { name: 'Follows X', sourceAccountId: slave });
      expect(template.compatibility).to.equal('CURRENT');
      await ok('DELETE', `/accounts/${x}`);

      const now = await ok('GET', `${base}/${template.id}`);
      expect(now.compatibility).to.equal('REVIEW_NEEDED');
      expect(now.attentionFlags).to.deep.equal([{ code: 'MASTER_DELETED', path: 'copiers[0]', accountId: x, effect: 'BLOCKS_APPLYING' }]);
      const target = await account('Would follow X');
      const refused = await apply(target, template.id);
      expect([refused.status, refused.body.error]).to.deep.equal([409, '[TEMPLATE_REVIEW_NEEDED]']);
      expect(await configurationOf(target)).to.deep.include({ copiers: [], features: [], riskLimits: [] });
      expect(await summaryOf(target)).to.deep.include({ accountTemplate1: null });

      const other = await account('Slave of a live master');
      await copier(other, master);
      const fixed = await ok('PUT', `${base}/${template.id}`, { expectedRevision: 1, sourceAccountId: other });
      expect(fixed).to.deep.include({ revision: 2, compatibility: 'CURRENT', attentionFlags: [] });
      expect((await apply(target, template.id)).status).to.equal(204);
    });

    it('CURRENT -> AUTO_MIGRATED when only inactive copiers name a deleted master: applying leaves them out', async () => {
      const y = await account('Master Y');
      const slave = await account('Slave of Y');
      await copier(slave, y, { active: false });
      await copier(slave, master);
      await ok('POST', `/accounts/${slave}/features`, DATA_COLLECTOR);
      const template = await ok('POST', base, { name: 'Inactive Y', sourceAccountId: slave });
      expect(template.compatibility).to.equal('CURRENT');
      await ok('DELETE', `/accounts/${y}`);

      const now = await ok('GET', `${base}/${template.id}`);
      expect(now.compatibility).to.equal('AUTO_MIGRATED');
      expect(now.attentionFlags).to.deep.equal([{ code: 'MASTER_DELETED', path: 'copiers[0]', accountId: y, effect: 'LEFT_OUT_WHEN_APPLIED' }]);
      const target = await account('Follows without Y');
      expect((await apply(target, template.id)).status).to.equal(204);
      const copiers = (await ok('GET', `/accounts/${target}/copiers`)) as { fromAccountId: string }[];
      expect(copiers.map((c) => c.fromAccountId)).to.deep.equal([master]);
      expect(((await ok('GET', `/accounts/${target}/features`)) as unknown[]).length).to.equal(1);
      expect((await summaryOf(target)).appliedTemplateMeta).to.deep.include({ compatibility: 'AUTO_MIGRATED', behind: false });
    });

    it('a template that copies from the account it is applied to is refused', async () => {
      const template = await ok('POST', base, { name: 'From master', sourceAccountId: source });
      const refused = await apply(master, template.id);
      expect([refused.status, refused.body.error]).to.deep.equal([409, '[TEMPLATE_NOT_APPLICABLE]']);
    });
  });

  it('a charting webhook applied from a template gets its own address at once, and keeps it when applied again', async () => {
    type Charting = { id: string; type: { name: string }; setting: { webhookId: string | null; webhookUrl: string | null; maxAllowedVolume: number } };
    const chartingOf = async (accountId: string) =>
      ((await ok('GET', `/accounts/${accountId}/features`)) as Charting[]).find((f) => f.type.name === 'FeatureChartingWebhookDTO')!;
    const from = await account('Charting source');
    const own = (await ok('POST', `/accounts/${from}/features`, featureBody({ type: 'FeatureChartingWebhookDTO', maxAllowedVolume: 2 }))) as Charting;
    const template = await ok('POST', base, { name: 'Charting', sourceAccountId: from });
    expect(template.payload.features[0].setting, "the source's address stays the source's").to.include({ webhookId: null, webhookUrl: null });

    const target = await account('Charting follower');
    expect((await apply(target, template.id)).status).to.equal(204);
    const issued = await chartingOf(target);
    expect(issued.setting.webhookId).to.match(/^[A-Za-z0-9_-]{43}$/);
    expect(issued.setting.webhookId).not.to.equal(own.setting.webhookId);
    expect(issued.setting).to.include({ webhookUrl: `/rest/api/v1/webhooks/charting/${issued.setting.webhookId}`, maxAllowedVolume: 2 });
    const arrived = await t.call('POST', `/webhooks/charting/${issued.setting.webhookId}`, {
      rawBody: 'buy BTCUSD',
      key: null,
      headers: { 'content-type': 'text/plain' },
    });
    expect(arrived.status, 'the address is known').not.to.equal(404);

    // A new revision changes the feature: the same feature, the same address.
    await ok('PUT', `/accounts/${from}/features/${own.id}`, featureBody({ type: 'FeatureChartingWebhookDTO', maxAllowedVolume: 3 }));
    await ok('PUT', `${base}/${template.id}`, { expectedRevision: 1, sourceAccountId: from });
    expect((await apply(target, template.id)).status).to.equal(204);
    const updated = await chartingOf(target);
    expect(updated.id).to.equal(issued.id);
    expect(updated.setting).to.include({ webhookId: issued.setting.webhookId, webhookUrl: issued.setting.webhookUrl, maxAllowedVolume: 3 });
  });

  it('keeps strategy copiers: two copiers of one master with their strategies round-trip, and applying again changes none', async () => {
    const strategy = async (name: string, key: number) =>
      (await ok('POST', `/projects/${P}/strategies`, { name, key, active: true, projectId: P })).id as string;
    const fromS = await strategy('Template from', 811);
    const toS = await strategy('Template into', 812);
    const desk = await account('Strategy desk');
    const viaFrom = await copier(desk, master, { fromStrategyId: fromS, multiplier: 3 });
    await copier(desk, master, { toStrategyId: toS });
    await ok('POST', `/accounts/${desk}/riskLimits`, { ...DAILY_5, copierId: viaFrom });
    const template = await ok('POST', base, { name: 'Strategies', sourceAccountId: desk });
    expect(template.payload.copiers.map((c: Record<string, unknown>) => [c.fromStrategyId ?? null, c.toStrategyId ?? null])).to.deep.equal([
      [fromS, null],
      [null, toS],
    ]);
    expect(template.payload.riskLimits[0]).to.deep.include({ copierFromAccountId: master, copierFromStrategyId: fromS });

    const fresh = await account('Strategy follower');
    expect((await apply(fresh, template.id)).status).to.equal(204);
    expect(await configurationOf(fresh)).to.deep.equal(await configurationOf(desk));
    const copiers = (await ok('GET', `/accounts/${fresh}/copiers`)) as { id: string; fromStrategyId?: string; toStrategyId?: string }[];
    expect(copiers.map((c) => [c.fromStrategyId ?? null, c.toStrategyId ?? null])).to.deep.equal([
      [fromS, null],
      [null, toS],
    ]);
    // Applied again to its source: every copier is matched by master and strategy, none replaced.
    const before = ((await ok('GET', `/accounts/${desk}/copiers`)) as { id: string }[]).map((c) => c.id);
    expect((await apply(desk, template.id)).status).to.equal(204);
    expect(((await ok('GET', `/accounts/${desk}/copiers`)) as { id: string }[]).map((c) => c.id)).to.deep.equal(before);
  });

  it("refuses what a request cannot do: unknown template or account, a deleted source, another project's template", async () => {
    const target = await account('Target');
    const unknown = await apply(target, crypto.randomUUID());
    expect([unknown.status, unknown.body.error]).to.deep.equal([404, '[TEMPLATE_NOT_FOUND]']);
    const noSource = await t.call('POST', base, { body: { name: 'x', sourceAccountId: crypto.randomUUID() } });
    expect([noSource.status, noSource.body.error]).to.deep.equal([404, '[ACCOUNT_NOT_FOUND]']);
    const blank = await t.call('POST', base, { body: { name: '', sourceAccountId: source } });
    expect([blank.status, blank.body.error]).to.deep.equal([400, '[VALIDATION_FAILED]']);
    const noRevision = await t.call('PUT', `${base}/${crypto.randomUUID()}`, { body: { name: 'x' } });
    expect([noRevision.status, noRevision.body.error]).to.deep.equal([400, '[VALIDATION_FAILED]']);

    // Project B sees none of A's templates and cannot reach them, nor apply them to its own accounts.
    const mine = await ok('POST', base, { name: 'A only', sourceAccountId: source });
    const listB = await t.call('GET', `/projects/${OTHER}/templates`, { key: OTHER_KEY });
    expect([listB.status, listB.body]).to.deep.equal([200, []]);
    expect((await t.call('GET', `/projects/${P}/templates`, { key: OTHER_KEY })).status).to.equal(404);
    expect((await t.call('GET', `/projects/${OTHER}/templates/${mine.id}`, { key: OTHER_KEY })).status).to.equal(404);
    const accountOfB = (await t.call('POST', '/accounts', { key: OTHER_KEY, body: validAccount({ alias: 'B' }) })).body.id;
    const crossApply = await t.call('PUT', `/accounts/${accountOfB}/appliedTemplate`, { key: OTHER_KEY, body: { templateId: mine.id } });
    expect([crossApply.status, crossApply.body.error]).to.deep.equal([404, '[TEMPLATE_NOT_FOUND]']);
    const crossSource = await t.call('POST', `/projects/${OTHER}/templates`, { key: OTHER_KEY, body: { name: 'steal', sourceAccountId: source } });
    expect([crossSource.status, crossSource.body.error]).to.deep.equal([404, '[ACCOUNT_NOT_FOUND]']);
  });

  // after every other spec of this file (mocha runs nested describes after the specs beside them)
  describe('the read model', () => {
    it('a rebuild of the templates read model equals the live one', async () => {
      const { db, store } = t.service.services;
      const snapshot = async () => ({
        templates: await db.selectFrom('templates').selectAll().orderBy('id').execute(),
        revisions: await db.selectFrom('template_revisions').selectAll().orderBy('template_id').orderBy('revision').execute(),
        links: await db.selectFrom('template_links').selectAll().orderBy('account_id').execute(),
      });
      const live = await snapshot();
      expect(live.templates.length).to.be.greaterThan(2);
      expect(live.links.length).to.be.greaterThan(1);
      await rebuildProjection(db, store, projectionByName('templates')!);
      expect(await snapshot()).to.deep.equal(live);
    });
  });
});
