// Account templates (spec "Account templates", "Templates"): the use cases. A template is created and
// updated from a configuration snapshot of an account (read from the copiers, features, risk limits and
// accounts read models). Applying one makes an account's configuration match it in ONE command
// (app/templatesCommand.ts): the copier, feature, risk limit, account and template aggregates it touches
// each decide their step with their own deciders, the checks between aggregates that the copier and
// feature endpoints make (a copier's master, the copy network's cycles, a feature's scope and rules) are
// made too, and all events are appended at once: the audit log shows them under the request's
// correlation and request id, each event's metadata naming the command (ApplyTemplate) and its id.
import { randomUUID } from 'node:crypto';
import { accountDecider } from '../domain/account/decider.js';
import { AccountStatus } from '../domain/account/enums.js';
import { accountStream } from '../domain/account/events.js';
import { API_PREFIX_SEGMENTS } from '../domain/apiKey/endpointRules.js';
import { CHARTING_WEBHOOK, webhookPathOf } from '../domain/chartingWebhook/feature.js';
import type { CopierCommand } from '../domain/copier/commands.js';
import { copierDecider } from '../domain/copier/decider.js';
import { copierStream } from '../domain/copier/events.js';
import { type CopierEdge, copierExists, wouldCloseCycle } from '../domain/copier/graph.js';
import { defaultCopierSettings, type CopierSettings } from '../domain/copier/settings.js';
import { featureDefinition } from '../domain/feature/catalogue.js';
import { featureDecider } from '../domain/feature/decider.js';
import { membersOf } from '../domain/feature/definition.js';
import { type FeatureScope, type FeatureSetting, featureStream } from '../domain/feature/events.js';
import type { RiskLimitCommand } from '../domain/riskLimit/commands.js';
import { riskLimitDecider } from '../domain/riskLimit/decider.js';
import { riskLimitStream } from '../domain/riskLimit/events.js';
import { RISK_LIMIT_DEFAULTS } from '../domain/riskLimit/settings.js';
import type { CommandMetadata, RequestContext } from '../domain/shared/command.js';
import { illegalState, invalid, notFound } from '../domain/shared/errors.js';
import type { TemplateCommand } from '../domain/template/commands.js';
import { applicablePayload, type Compatibility, compatibilityOf } from '../domain/template/compatibility.js';
import { type Template, templateDecider } from '../domain/template/decider.js';
import { templateStream } from '../domain/template/events.js';
import { copierKey, referencedMasters, referencedStrategies, type TemplatePayload } from '../domain/template/payload.js';
import { type AccountConfiguration, type FeatureChanges, planApply } from '../domain/template/plan.js';
import { findAccount } from '../projections/accounts/queries.js';
import { copierEdgesAround, listCopiers } from '../projections/copiers/queries.js';
import { accountFeatureRows, copierFeatureRows } from '../projections/features/queries.js';
import { riskLimitsOf } from '../projections/riskLimits/queries.js';
import { findStrategy } from '../projections/strategies/queries.js';
import { deletedLinkedAccounts, linksOfAccounts, missingAccounts } from '../projections/templates/queries.js';
import { issueWebhookId } from './chartingWebhook/webhookIds.js';
import { COPIER_GRAPH_TURN } from './commands/createCopier.js';
import { afterCopyEngine, type CommandServices, commandMetadata, execute, oneAtATime, type Position, type Services, settle } from './services.js';
import { MultiStreamCommand } from './templatesCommand.js';

/** What a template's answers are read from. */
export const TEMPLATE_READ_MODELS = ['templates'] as const;

const runTemplate = (services: CommandServices, command: TemplateCommand) =>
  execute(services, templateStream(command.data.templateId), templateDecider, command, TEMPLATE_READ_MODELS);

/**
 * A feature's setting as a template keeps it: the members that show the feature's own running state
 * (a maintenance window's recorded copier states, a dedicated IP pool's assigned servers) at their
 * defaults, as the feature endpoints store them; that state belongs to the account it was kept for.
 */
const templateSetting = (setting: FeatureSetting): FeatureSetting => {
  const definition = featureDefinition(setting.type);
  if (!definition?.stateMembers) return setting;
  const defaults = definition.defaults as Record<string, unknown>;
  const out: Record<string, unknown> = { ...setting };
  for (const member of definition.stateMembers) {
    if (member in defaults) out[member] = defaults[member];
    else delete out[member];
  }
  return out as FeatureSetting;
};

/** The account (of the project, not deleted) a snapshot is taken from or a template is applied to. */
const liveAccount = async (services: CommandServices, projectId: string, accountId: string) => {
  const account = await findAccount(services.db, projectId, accountId);
  if (!account) throw notFound('[ACCOUNT_NOT_FOUND]', `account ${accountId} not found`);
  if (account.account_status_id === AccountStatus.Deleted) throw illegalState('[ACCOUNT_DELETED]', `account ${accountId} was deleted`);
  return account;
};

/** An account's configuration as the read models have it, with the ids applying needs. */
export const configurationOf = async (services: CommandServices, projectId: string, accountId: string): Promise<AccountConfiguration> => {
  const account = await liveAccount(services, projectId, accountId);
  const copiers = [];
  for (const row of await listCopiers(services.db, projectId, accountId)) {
    copiers.push({
      id: row.id,
      fromAccountId: row.from_account_id,
      fromStrategyId: row.from_strategy_id,
      toStrategyId: row.to_strategy_id,
      settings: { ...defaultCopierSettings, ...(row.settings as CopierSettings) },
      symbolMappings: (row.symbol_mappings ?? {}) as Record<string, string>,
      features: (await copierFeatureRows(services.db, projectId, row.id)).map((f) => ({ id: f.id, setting: templateSetting(f.setting) })),
    });
  }
  return {
    copiers,
    features: (await accountFeatureRows(services.db, projectId, accountId)).map((f) => ({ id: f.id, setting: templateSetting(f.setting) })),
    riskLimits: (await riskLimitsOf(services.db, projectId, accountId)).map((r) => ({
      id: r.id,
      copierId: r.copier_id,
      settings: { ...RISK_LIMIT_DEFAULTS, ...r.settings },
    })),
    settings: {
      tradingDisabled: account.trading_disabled,
      closeUnmanagedPositions: account.close_unmanaged_positions,
      nativeMode: account.native_mode,
      propFirm: account.prop_firm,
    },
  };
};

/** The configuration snapshot of an account: what a template stores (copiers name their masters by id). */
export const snapshotOf = async (services: CommandServices, projectId: string, accountId: string): Promise<TemplatePayload> => {
  const configuration = await configurationOf(services, projectId, accountId);
  const copierOf = new Map(configuration.copiers.map((c) => [c.id, c]));
  // A strategy copier names its strategies (a plain copier's entry keeps the shape it always had).
  const strategies = (fromStrategyId?: string | null, toStrategyId?: string | null) => ({
    ...(fromStrategyId ? { fromStrategyId } : {}),
    ...(toStrategyId ? { toStrategyId } : {}),
  });
  return {
    copiers: configuration.copiers.map((c) => ({
      fromAccountId: c.fromAccountId,
      ...strategies(c.fromStrategyId, c.toStrategyId),
      settings: c.settings,
      symbolMappings: c.symbolMappings,
      features: c.features.map((f) => f.setting),
    })),
    features: configuration.features.map((f) => f.setting),
    // A limit scoped to a copier that is gone meanwhile is left out: it watches nothing.
    riskLimits: configuration.riskLimits
      .filter((r) => r.copierId === null || copierOf.has(r.copierId))
      .map((r) => {
        if (r.copierId === null) return { copierFromAccountId: null, settings: r.settings };
        const copier = copierOf.get(r.copierId)!;
        const { fromStrategyId: copierFromStrategyId, toStrategyId: copierToStrategyId } = strategies(copier.fromStrategyId, copier.toStrategyId);
        return {
          copierFromAccountId: copier.fromAccountId,
          ...(copierFromStrategyId ? { copierFromStrategyId } : {}),
          ...(copierToStrategyId ? { copierToStrategyId } : {}),
          settings: r.settings,
        };
      }),
    settings: configuration.settings,
  };
};

/** The compatibility marker and attention flags of a payload, with the project as it is now. */
export const compatibilityOfPayload = async (services: CommandServices, projectId: string, payload: TemplatePayload): Promise<Compatibility> =>
  compatibilityOf(payload, await missingAccounts(services.db, projectId, referencedMasters(payload)));

export interface TemplateCreation {
  readonly projectId: string;
  readonly name: string;
  readonly description: string | null;
  readonly sourceAccountId: string;
  readonly context: RequestContext;
}

/** Creates a template from a snapshot of `sourceAccountId`; answers its id once the templates read model has it. */
export const createTemplate = async (services: CommandServices, creation: TemplateCreation): Promise<string> => {
  const { projectId, name, description, sourceAccountId } = creation;
  const templateId = randomUUID();
  const payload = await snapshotOf(services, projectId, sourceAccountId);
  await runTemplate(services, {
    type: 'CreateTemplate',
    data: { templateId, projectId, name, description, sourceAccountId, payload },
    metadata: commandMetadata(services, creation.context),
  });
  return templateId;
};

export interface TemplateUpdate {
  readonly projectId: string;
  readonly templateId: string;
  readonly expectedRevision: number;
  readonly name?: string;
  readonly description?: string | null;
  /** Present: the payload is a new snapshot of this account. */
  readonly sourceAccountId?: string;
  readonly context: RequestContext;
}

export const updateTemplate = async (services: CommandServices, update: TemplateUpdate): Promise<void> => {
  const { projectId, templateId, expectedRevision, sourceAccountId } = update;
  const snapshot = sourceAccountId === undefined ? {} : { sourceAccountId, payload: await snapshotOf(services, projectId, sourceAccountId) };
  await runTemplate(services, {
    type: 'UpdateTemplate',
    data: {
      templateId,
      projectId,
      expectedRevision,
      ...(update.name !== undefined ? { name: update.name } : {}),
      ...(update.description !== undefined ? { description: update.description } : {}),
      ...snapshot,
    },
    metadata: commandMetadata(services, update.context),
  });
};

export const deleteTemplate = async (
  services: CommandServices,
  deletion: { projectId: string; templateId: string; force: boolean; context: RequestContext },
): Promise<void> => {
  const { projectId, templateId, force } = deletion;
  await runTemplate(services, {
    type: 'DeleteTemplate',
    data: { templateId, projectId, force, goneAccountIds: await deletedLinkedAccounts(services.db, projectId, templateId) },
    metadata: commandMetadata(services, deletion.context),
  });
};

export interface TemplateApplication {
  readonly projectId: string;
  readonly accountId: string;
  /** null clears the account's link (its configuration stays as it is). */
  readonly templateId: string | null;
  readonly context: RequestContext;
}

/** What the three markers and every answer of an apply are read from. */
const APPLY_READ_MODELS = ['templates', 'accounts', 'copiers', 'features', 'risk_limits'] as const;

/** The template as its aggregate has it now: it must exist in the project and not be deleted. */
const templateOf = async (command: MultiStreamCommand, projectId: string, templateId: string): Promise<Template & { payload: TemplatePayload }> => {
  const state = await command.state(templateStream(templateId), templateDecider);
  if (!state.exists || state.deleted || state.projectId !== projectId || !state.payload) {
    throw notFound('[TEMPLATE_NOT_FOUND]', `template ${templateId} not found`);
  }
  return state as Template & { payload: TemplatePayload };
};

/**
 * PUT /accounts/{accountId}/appliedTemplate: makes the account match the template's current revision
 * and links it there, or (templateId null) clears the link. ONE command (app/templatesCommand.ts):
 * every aggregate it touches (the template, the account's copiers, features and risk limits, the
 * account, a template the account followed before) decides its own step on its own state, the checks
 * between aggregates (a copier's master exists, no cycle, a feature fits its scope) are made while the
 * steps are staged, and only then are all events appended in one appendToStreams call with the
 * revisions they were decided on: a refusal stores nothing, a concurrent change is a 409 that stores
 * nothing. An apply may create copiers, so it takes the turn of the copy network that createCopier
 * takes (COPIER_GRAPH_TURN, one advisory lock for every project, across instances): the graph checks hold
 * until the append, and one apply runs at a time (one pooled connection waits for the turn, not one per account).
 */
export const applyTemplate = async (services: Services, application: TemplateApplication): Promise<void> => {
  const { projectId, accountId, templateId, context } = application;
  let engineWait: Position | null = null;
  await oneAtATime(services, COPIER_GRAPH_TURN, async () => {
    // What the read models show is what was committed before this turn.
    await settle(services, APPLY_READ_MODELS);
    await liveAccount(services, projectId, accountId);
    const metadata = commandMetadata(services, context);
    const command = new MultiStreamCommand(services.store, 'ApplyTemplate', metadata);
    const link = (await linksOfAccounts(services.db, projectId, [accountId])).get(accountId);
    const unlink = async (reason: 'CLEARED' | 'OTHER_TEMPLATE_APPLIED') => {
      if (!link) return;
      await command.decide(templateStream(link.template_id), templateDecider, {
        type: 'UnlinkAccount',
        data: { templateId: link.template_id, projectId, accountId, reason },
        metadata,
      });
    };
    if (templateId === null) {
      await unlink('CLEARED');
      if (command.changes) await command.commit();
      return;
    }
    const template = await templateOf(command, projectId, templateId);
    const compatibility = await compatibilityOfPayload(services, projectId, template.payload);
    if (compatibility.marker === 'REVIEW_NEEDED') {
      const masters = compatibility.attentionFlags.filter((f) => f.effect === 'BLOCKS_APPLYING').map((f) => f.accountId);
      throw illegalState(
        '[TEMPLATE_REVIEW_NEEDED]',
        `the template's active copiers copy from accounts that no longer exist (${masters.join(', ')}): update the template first`,
      );
    }
    const payload = applicablePayload(template.payload, compatibility);
    if (payload.copiers.some((c) => c.fromAccountId === accountId)) {
      throw illegalState('[TEMPLATE_NOT_APPLICABLE]', 'the template copies from this account itself: an account cannot copy itself');
    }
    const { copyEngineFirst } = await stageMatch(services, command, projectId, accountId, payload, metadata);
    if (link && link.template_id !== templateId) await unlink('OTHER_TEMPLATE_APPLIED');
    // The link last: on EventStoreDB (no transaction across streams) an account is linked only once all else is stored.
    await command.decide(templateStream(templateId), templateDecider, {
      type: 'LinkAccount',
      data: { templateId, projectId, accountId, revision: template.revision },
      metadata,
    });
    const committed = await command.commit();
    // With copyOpenPositions, the master's open positions are copied before the answer (as POST .../copiers does).
    for (const stream of copyEngineFirst) engineWait = committed.results.get(stream)?.position ?? engineWait;
  });
  if (engineWait) await afterCopyEngine(services, engineWait, [...APPLY_READ_MODELS, 'copies', 'positions']);
  else await settle(services);
};

/** The charting webhook's address: a feature added by an apply gets its own webhookId, as one added by POST does. */
const API_PREFIX = `/${API_PREFIX_SEGMENTS.join('/')}`;

/** A feature's setting to store: state members kept from the stored one (`previous`), or fresh for a new feature. */
const settingToStore = (setting: FeatureSetting, previous: FeatureSetting | null): FeatureSetting => {
  const definition = featureDefinition(setting.type);
  if (previous && definition?.stateMembers) {
    const out: Record<string, unknown> = { ...setting };
    for (const member of definition.stateMembers) if (member in previous) out[member] = (previous as Record<string, unknown>)[member];
    return out as FeatureSetting;
  }
  if (!previous && setting.type === CHARTING_WEBHOOK) {
    const webhookId = issueWebhookId();
    return { ...setting, webhookId, webhookUrl: webhookPathOf(API_PREFIX, webhookId) } as FeatureSetting;
  }
  return setting;
};

/** The feature catalogue's rules for a setting the template brings (as POST/PUT of a feature checks them). */
const checkFeature = (setting: FeatureSetting, scope: FeatureScope, where: string): void => {
  const definition = featureDefinition(setting.type);
  if (!definition) throw invalid('[FEATURE_TYPE_NOT_SUPPORTED]', `${where}: ${setting.type} is not a feature this service runs`);
  if (!definition.scopes.includes(scope.kind)) {
    throw invalid('[FEATURE_SCOPE_NOT_ALLOWED]', `${where}: ${setting.type} attaches to a ${definition.scopes.join(' or ')}, not to a ${scope.kind}`);
  }
  const problem = definition.check?.(membersOf(setting));
  if (problem) throw invalid('[VALIDATION_FAILED]', `${where}: ${problem}`, { field: where });
};

/** A copier or account holds at most one feature of a single-instance type. */
const checkSingleInstances = (settings: readonly FeatureSetting[], where: string): void => {
  const seen = new Set<string>();
  for (const setting of settings) {
    if (featureDefinition(setting.type)?.multiple) continue;
    if (seen.has(setting.type)) throw illegalState('[FEATURE_ALREADY_EXISTS]', `${where}: more than one ${setting.type}, which a ${where} holds once`);
    seen.add(setting.type);
  }
};

/**
 * Stages the steps that make the account's copiers, features, risk limits and settings those of
 * `payload`, each decided by its aggregate. Answers the copier streams whose creation the copy engine
 * acts on before the answer (copyOpenPositions).
 */
const stageMatch = async (
  services: Services,
  command: MultiStreamCommand,
  projectId: string,
  accountId: string,
  payload: TemplatePayload,
  metadata: CommandMetadata,
): Promise<{ copyEngineFirst: string[] }> => {
  const plan = planApply(payload, await configurationOf(services, projectId, accountId));
  const copier = (c: CopierCommand) => command.decide(copierStream(c.data.copierId), copierDecider, c);
  const riskLimit = (c: RiskLimitCommand) => command.decide(riskLimitStream(c.data.riskLimitId), riskLimitDecider, c);
  const features = async (scope: FeatureScope, changes: FeatureChanges, where: string) => {
    for (const featureId of changes.remove) {
      await command.decide(featureStream(featureId), featureDecider, { type: 'RemoveFeature', data: { featureId, projectId, scope }, metadata });
    }
    for (const { featureId, setting } of changes.update) {
      checkFeature(setting, scope, where);
      const stored = await command.state(featureStream(featureId), featureDecider);
      const data = { featureId, projectId, scope, setting: settingToStore(setting, stored.setting) };
      await command.decide(featureStream(featureId), featureDecider, { type: 'UpdateFeature', data, metadata });
    }
    for (const setting of changes.add) {
      checkFeature(setting, scope, where);
      const featureId = command.newId();
      const data = { featureId, projectId, scope, setting: settingToStore(setting, null) };
      await command.decide(featureStream(featureId), featureDecider, { type: 'AddFeature', data, metadata });
    }
  };

  // What goes first: limits and copiers the template does not have (a copier's features with it).
  for (const riskLimitId of plan.deleteRiskLimits) await riskLimit({ type: 'DeleteRiskLimit', data: { riskLimitId, projectId, accountId }, metadata });
  for (const gone of plan.deleteCopiers) {
    await features({ kind: 'copier', accountId, copierId: gone.id }, { add: [], update: [], remove: gone.features.map((f) => f.id) }, 'copier');
    await copier({ type: 'DeleteCopier', data: { copierId: gone.id, projectId, toAccountId: accountId }, metadata });
  }
  checkSingleInstances(payload.features, 'account');
  await features({ kind: 'account', accountId }, plan.features, 'account');

  // The copy network as it will be (the part the rules read: into the account and on from it): without
  // the copiers deleted above, with each one created below.
  const deleted = new Set(plan.deleteCopiers.map((c) => copierKey(c.fromAccountId, c.fromStrategyId, c.toStrategyId)));
  const edges: CopierEdge[] = (await copierEdgesAround(services.db, projectId, [accountId])).filter(
    (e) => !(e.to_account_id === accountId && deleted.has(copierKey(e.from_account_id, e.from_strategy_id, e.to_strategy_id))),
  );
  // A strategy copier's strategies must still be the project's (as POST .../copiers checks them).
  for (const strategyId of referencedStrategies({ ...payload, copiers: plan.copiers.filter((c) => c.kind === 'create').map((c) => c.copier) })) {
    if (!(await findStrategy(services.db, projectId, strategyId))) throw notFound('[STRATEGY_NOT_FOUND]', `strategy ${strategyId} not found`);
  }
  const copierOfKey = new Map<string, string>();
  const copyEngineFirst: string[] = [];
  for (const step of plan.copiers) {
    const master = step.copier.fromAccountId;
    const strategies = { fromStrategyId: step.copier.fromStrategyId ?? null, toStrategyId: step.copier.toStrategyId ?? null };
    checkSingleInstances(step.copier.features, 'copier');
    let copierId: string;
    let featureChanges: FeatureChanges;
    if (step.kind === 'create') {
      const account = await findAccount(services.db, projectId, master);
      if (!account) throw notFound('[ACCOUNT_NOT_FOUND]', `master account ${master} not found`);
      if (account.account_status_id === AccountStatus.Deleted) throw illegalState('[ACCOUNT_DELETED]', `account ${master} was deleted`);
      if (copierExists(edges, master, accountId, strategies)) {
        throw illegalState('[COPIER_ALREADY_EXISTS]', `this account already copies from ${master} (with the same strategy, if any)`);
      }
      if (wouldCloseCycle(edges, master, accountId)) {
        throw illegalState(
          '[COPIER_CYCLE]',
          `a copier from ${master} would close a cycle: that master already copies from this account, directly or through others`,
        );
      }
      edges.push({ from_account_id: master, to_account_id: accountId, from_strategy_id: strategies.fromStrategyId, to_strategy_id: strategies.toStrategyId });
      copierId = command.newId();
      const { settings } = step.copier;
      const strategyIds = {
        ...(strategies.fromStrategyId ? { fromStrategyId: strategies.fromStrategyId } : {}),
        ...(strategies.toStrategyId ? { toStrategyId: strategies.toStrategyId } : {}),
      };
      await copier({ type: 'CreateCopier', data: { copierId, projectId, toAccountId: accountId, fromAccountId: master, settings, ...strategyIds }, metadata });
      if (settings.copyOpenPositions && settings.active) copyEngineFirst.push(copierStream(copierId));
      featureChanges = { add: step.copier.features, update: [], remove: [] };
      if (Object.keys(step.copier.symbolMappings).length > 0) {
        await copier({ type: 'SetSymbolMappings', data: { copierId, projectId, toAccountId: accountId, mappings: step.copier.symbolMappings }, metadata });
      }
    } else {
      copierId = step.copierId;
      featureChanges = step.features;
      if (Object.keys(step.changes).length > 0) {
        await copier({ type: 'UpdateCopier', data: { copierId, projectId, toAccountId: accountId, changes: step.changes }, metadata });
      }
      if (step.mappingsChange) {
        await copier({ type: 'SetSymbolMappings', data: { copierId, projectId, toAccountId: accountId, mappings: step.copier.symbolMappings }, metadata });
      }
    }
    copierOfKey.set(copierKey(master, strategies.fromStrategyId, strategies.toStrategyId), copierId);
    await features({ kind: 'copier', accountId, copierId }, featureChanges, 'copier');
  }

  for (const step of plan.riskLimits) {
    const copierId = step.copierKey === null ? null : (copierOfKey.get(step.copierKey) ?? null);
    if (step.riskLimitId === null) {
      await riskLimit({ type: 'CreateRiskLimit', data: { riskLimitId: command.newId(), projectId, accountId, settings: step.settings, copierId }, metadata });
    } else {
      await riskLimit({ type: 'UpdateRiskLimit', data: { riskLimitId: step.riskLimitId, projectId, accountId, settings: step.settings }, metadata });
    }
  }
  if (Object.keys(plan.settings).length > 0) {
    await command.decide(accountStream(accountId), accountDecider, { type: 'UpdateAccount', data: { accountId, projectId, changes: plan.settings }, metadata });
  }
  return { copyEngineFirst };
};
