// The account template's rules (domain/template): the decider (revisions, expectedRevision, links,
// deletion with linked accounts), the compatibility markers and their transitions, and the plan that
// makes an account match a template.
import { expect } from 'chai';
import { type CopierSettings, defaultCopierSettings } from '../../domain/copier/settings.js';
import { RISK_LIMIT_DEFAULTS } from '../../domain/riskLimit/settings.js';
import { systemContext } from '../../domain/shared/command.js';
import type { TemplateCommand } from '../../domain/template/commands.js';
import { applicablePayload, compatibilityOf } from '../../domain/template/compatibility.js';
import { templateDecider } from '../../domain/template/decider.js';
import type { TemplateEvent } from '../../domain/template/events.js';
import type { TemplateCopier, TemplatePayload } from '../../domain/template/payload.js';
import { planApply, planIsEmpty } from '../../domain/template/plan.js';
import { givenDecider } from './givenDecider.js';

const NOW = '2026-03-02T09:30:00.000Z';
const EARLIER = '2026-03-01T08:00:00.000Z';
const T = '0b7e3c52-5c1e-4d8e-9a44-6f3f1d2b9a01';
const PROJECT = '22222222-2222-4222-8222-222222222222';
const M1 = '44444444-4444-4444-8444-444444444444';
const M2 = '55555555-5555-4555-8555-555555555555';
const ACCOUNT = '66666666-6666-4666-8666-666666666666';
const metadata = { now: NOW, context: systemContext('spec') };

const settings = { tradingDisabled: false, closeUnmanagedPositions: false, nativeMode: false, propFirm: false };
const copierOf = (fromAccountId: string, overrides: Partial<CopierSettings> = {}, features: TemplateCopier['features'] = []): TemplateCopier => ({
  fromAccountId,
  settings: { ...defaultCopierSettings, ...overrides },
  symbolMappings: {},
  features,
});
const payload = (overrides: Partial<TemplatePayload> = {}): TemplatePayload => ({
  copiers: [copierOf(M1)],
  features: [],
  riskLimits: [],
  settings,
  ...overrides,
});

const revision = (n: number, name = 'T', p = payload()): TemplateEvent => ({
  type: n === 1 ? 'TemplateCreated' : 'TemplateUpdated',
  data: { templateId: T, projectId: PROJECT, revision: n, name, description: null, sourceAccountId: ACCOUNT, payload: p, at: EARLIER },
});
const applied = (accountId: string, rev: number): TemplateEvent => ({
  type: 'TemplateApplied',
  data: { templateId: T, projectId: PROJECT, accountId, revision: rev, at: EARLIER },
});
const command = (c: { type: TemplateCommand['type']; data: object }): TemplateCommand =>
  ({ type: c.type, data: { templateId: T, projectId: PROJECT, ...c.data }, metadata }) as TemplateCommand;

const given = givenDecider(templateDecider);

describe('account template: decider', () => {
  it('creates revision 1 with a trimmed name', () =>
    given([])
      .when(command({ type: 'CreateTemplate', data: { name: ' T ', description: null, sourceAccountId: ACCOUNT, payload: payload() } }))
      .then([{ ...revision(1), data: { ...(revision(1).data as object), at: NOW } } as TemplateEvent]));

  it('an update based on the current revision stores the next one', () => {
    const [event] = templateDecider.decide(
      command({ type: 'UpdateTemplate', data: { expectedRevision: 2, name: 'renamed' } }),
      [revision(1), revision(2)].reduce(templateDecider.evolve, templateDecider.initialState),
    );
    expect(event).to.deep.include({ type: 'TemplateUpdated' });
    expect(event!.data).to.deep.include({ revision: 3, name: 'renamed', sourceAccountId: ACCOUNT });
  });

  it('refuses an update based on another revision: 409 [TEMPLATE_REVISION_MISMATCH]', () =>
    given([revision(1), revision(2)])
      .when(command({ type: 'UpdateTemplate', data: { expectedRevision: 1, name: 'x' } }))
      .thenRefuses('[TEMPLATE_REVISION_MISMATCH]', 'conflict'));

  it('an update that changes nothing stores nothing', () =>
    given([revision(1)])
      .when(command({ type: 'UpdateTemplate', data: { expectedRevision: 1, name: 'T' } }))
      .then([]));

  it('links an account only at the current revision', () => {
    given([revision(1), revision(2)])
      .when(command({ type: 'LinkAccount', data: { accountId: ACCOUNT, revision: 1 } }))
      .thenRefuses('[TEMPLATE_REVISION_MISMATCH]', 'conflict');
    given([revision(1)])
      .when(command({ type: 'LinkAccount', data: { accountId: ACCOUNT, revision: 1 } }))
      .then([{ type: 'TemplateApplied', data: { templateId: T, projectId: PROJECT, accountId: ACCOUNT, revision: 1, at: NOW } }]);
  });

  it('refuses to delete a template with linked accounts unless forced; forced, it unlinks them first', () => {
    given([revision(1), applied(ACCOUNT, 1)])
      .when(command({ type: 'DeleteTemplate', data: { force: false, goneAccountIds: [] } }))
      .thenRefuses('[TEMPLATE_HAS_LINKED_ACCOUNTS]', 'conflict');
    given([revision(1), applied(ACCOUNT, 1)])
      .when(command({ type: 'DeleteTemplate', data: { force: true, goneAccountIds: [] } }))
      .then([
        { type: 'TemplateUnlinked', data: { templateId: T, projectId: PROJECT, accountId: ACCOUNT, reason: 'TEMPLATE_DELETED', at: NOW } },
        { type: 'TemplateDeleted', data: { templateId: T, projectId: PROJECT, at: NOW } },
      ]);
  });

  it('a linked account deleted since does not hold the template back', () => {
    const events = templateDecider.decide(
      command({ type: 'DeleteTemplate', data: { force: false, goneAccountIds: [ACCOUNT] } }),
      [revision(1), applied(ACCOUNT, 1)].reduce(templateDecider.evolve, templateDecider.initialState),
    );
    expect(events.map((e) => e.type)).to.deep.equal(['TemplateUnlinked', 'TemplateDeleted']);
  });

  it('a deleted template is not found', () =>
    given([revision(1), { type: 'TemplateDeleted', data: { templateId: T, projectId: PROJECT, at: EARLIER } }])
      .when(command({ type: 'UpdateTemplate', data: { expectedRevision: 1, name: 'x' } }))
      .thenRefuses('[TEMPLATE_NOT_FOUND]', 'notFound'));
});

describe('account template: compatibility markers', () => {
  const two = payload({
    copiers: [copierOf(M1), copierOf(M2, { active: false })],
    riskLimits: [{ copierFromAccountId: M2, settings: { ...RISK_LIMIT_DEFAULTS, riskTypeId: 1 } }],
  });

  it('CURRENT while every master exists', () => expect(compatibilityOf(two, new Map())).to.deep.equal({ marker: 'CURRENT', attentionFlags: [] }));

  it('AUTO_MIGRATED when only an inactive copier names a gone master; applying leaves it and its scoped limits out', () => {
    const c = compatibilityOf(two, new Map([[M2, 'MASTER_DELETED' as const]]));
    expect(c).to.deep.equal({
      marker: 'AUTO_MIGRATED',
      attentionFlags: [{ code: 'MASTER_DELETED', path: 'copiers[1]', accountId: M2, effect: 'LEFT_OUT_WHEN_APPLIED' }],
    });
    const applicable = applicablePayload(two, c);
    expect(applicable.copiers.map((x) => x.fromAccountId)).to.deep.equal([M1]);
    expect(applicable.riskLimits).to.deep.equal([]);
  });

  it('REVIEW_NEEDED when an active copier names a gone master', () =>
    expect(compatibilityOf(two, new Map([[M1, 'MASTER_NOT_FOUND' as const]]))).to.deep.equal({
      marker: 'REVIEW_NEEDED',
      attentionFlags: [{ code: 'MASTER_NOT_FOUND', path: 'copiers[0]', accountId: M1, effect: 'BLOCKS_APPLYING' }],
    }));
});

describe('account template: the plan that makes an account match', () => {
  const cooldown = (minutes: number) => ({ type: 'FeatureTradeCooldownDTO', cooldownMinutes: minutes });

  it('creates what is missing, changes what differs by master and type, deletes what the template lacks', () => {
    const template = payload({
      copiers: [copierOf(M1, { multiplier: 2 }, [cooldown(15)])],
      features: [{ type: 'FeatureDataCollectorDTO', collectionIntervalSeconds: 60 }],
      riskLimits: [{ copierFromAccountId: null, settings: { ...RISK_LIMIT_DEFAULTS, riskTypeId: 5, absoluteRiskLimit: 300 } }],
      settings: { ...settings, closeUnmanagedPositions: true },
    });
    const plan = planApply(template, {
      copiers: [
        { id: 'c1', fromAccountId: M1, settings: defaultCopierSettings, symbolMappings: {}, features: [{ id: 'f1', setting: cooldown(99) }] },
        { id: 'c2', fromAccountId: M2, settings: defaultCopierSettings, symbolMappings: {}, features: [] },
      ],
      features: [],
      riskLimits: [
        { id: 'r1', copierId: null, settings: { ...RISK_LIMIT_DEFAULTS, riskTypeId: 5, absoluteRiskLimit: 100 } },
        { id: 'r2', copierId: 'c2', settings: { ...RISK_LIMIT_DEFAULTS, riskTypeId: 1 } },
      ],
      settings,
    });
    expect(plan.copiers).to.have.length(1);
    expect(plan.copiers[0]).to.deep.include({ kind: 'update', copierId: 'c1', changes: { multiplier: 2 }, mappingsChange: false });
    expect((plan.copiers[0] as { features: unknown }).features).to.deep.equal({ add: [], update: [{ featureId: 'f1', setting: cooldown(15) }], remove: [] });
    expect(plan.deleteCopiers.map((c) => c.id)).to.deep.equal(['c2']);
    expect(plan.features.add).to.have.length(1);
    expect(plan.riskLimits).to.deep.equal([{ riskLimitId: 'r1', copierKey: null, settings: template.riskLimits[0]!.settings }]);
    expect(plan.deleteRiskLimits).to.deep.equal(['r2']);
    expect(plan.settings).to.deep.equal({ closeUnmanagedPositions: true });
    expect(planIsEmpty(plan)).to.equal(false);
  });

  it('matches copiers by master and strategy: two strategy copiers of one master each keep their own', () => {
    const S1 = '77777777-7777-4777-8777-777777777777';
    const S2 = '88888888-8888-4888-8888-888888888888';
    const template = payload({
      copiers: [
        { ...copierOf(M1, { multiplier: 2 }), fromStrategyId: S1 },
        { ...copierOf(M1), toStrategyId: S2 },
      ],
      riskLimits: [{ copierFromAccountId: M1, copierToStrategyId: S2, settings: { ...RISK_LIMIT_DEFAULTS, riskTypeId: 1 } }],
    });
    const plan = planApply(template, {
      copiers: [
        { id: 'c1', fromAccountId: M1, fromStrategyId: S1, settings: defaultCopierSettings, symbolMappings: {}, features: [] },
        { id: 'c2', fromAccountId: M1, toStrategyId: S2, settings: defaultCopierSettings, symbolMappings: {}, features: [] },
        { id: 'c3', fromAccountId: M1, settings: defaultCopierSettings, symbolMappings: {}, features: [] },
      ],
      features: [],
      riskLimits: [{ id: 'r2', copierId: 'c2', settings: { ...RISK_LIMIT_DEFAULTS, riskTypeId: 1 } }],
      settings,
    });
    expect(plan.copiers.map((c) => (c.kind === 'update' ? c.copierId : 'create'))).to.deep.equal(['c1', 'c2']);
    expect(plan.copiers[0]).to.deep.include({ changes: { multiplier: 2 } });
    expect(plan.deleteCopiers.map((c) => c.id)).to.deep.equal(['c3']);
    expect(plan.riskLimits).to.deep.equal([]);
    expect(plan.deleteRiskLimits).to.deep.equal([]);
  });

  it('an account that matches needs nothing', () => {
    const template = payload({ copiers: [copierOf(M1, {}, [cooldown(15)])] });
    const plan = planApply(template, {
      copiers: [{ id: 'c1', fromAccountId: M1, settings: defaultCopierSettings, symbolMappings: {}, features: [{ id: 'f1', setting: cooldown(15) }] }],
      features: [],
      riskLimits: [],
      settings,
    });
    expect(planIsEmpty(plan)).to.equal(true);
  });
});
