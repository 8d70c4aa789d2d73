// Account templates (spec "Account templates", "Templates"): the use cases. A template is created and
// updated from a configuration snapshot of an account (read from the copiers, features, risk limits and
// accounts read models); applying one makes an account's configuration match it through the same
// commands and deciders the copier, feature, risk limit and account endpoints use (a new copier through
// createCopier, with its graph and cycle checks), and then links the account to the template's revision.
// Everything an apply changes carries the request's context, so the audit log shows the whole apply
// under one correlation id: the copier, feature, risk limit and account events, then TemplateApplied.
import { randomUUID } from 'node:crypto';
import type { AccountCommand } from '../domain/account/commands.js';
import { accountDecider } from '../domain/account/decider.js';
import { AccountStatus } from '../domain/account/enums.js';
import { accountStream } from '../domain/account/events.js';
import type { CopierCommand } from '../domain/copier/commands.js';
import { copierDecider } from '../domain/copier/decider.js';
import { copierStream } from '../domain/copier/events.js';
import { defaultCopierSettings, type CopierSettings } from '../domain/copier/settings.js';
import { featureDefinition } from '../domain/feature/catalogue.js';
import type { FeatureCommand } from '../domain/feature/commands.js';
import { featureDecider } from '../domain/feature/decider.js';
import { type FeatureScope, type FeatureSetting, featureStream } from '../domain/feature/events.js';
import type { RiskLimitCommand } from '../domain/riskLimit/commands.js';
import { riskLimitDecider } from '../domain/riskLimit/decider.js';
import { riskLimitStream } from '../domain/riskLimit/events.js';
import { RISK_LIMIT_DEFAULTS } from '../domain/riskLimit/settings.js';
import type { RequestContext } from '../domain/shared/command.js';
import { illegalState, notFound } from '../domain/shared/errors.js';
import type { TemplateCommand } from '../domain/template/commands.js';
import { applicablePayload, type Compatibility, compatibilityOf } from '../domain/template/compatibility.js';
import { templateDecider } from '../domain/template/decider.js';
import { templateStream } from '../domain/template/events.js';
import { referencedMasters, type TemplatePayload } from '../domain/template/payload.js';
import { type AccountConfiguration, type FeatureChanges, planApply } from '../domain/template/plan.js';
import { findAccount } from '../projections/accounts/queries.js';
import { listCopiers } from '../projections/copiers/queries.js';
import { accountFeatureRows, copierFeatureRows } from '../projections/features/queries.js';
import { riskLimitsOf } from '../projections/riskLimits/queries.js';
import { deletedLinkedAccounts, findTemplate, linksOfAccounts, missingAccounts, type TemplateRow } from '../projections/templates/queries.js';
import { createCopier } from './commands/createCopier.js';
import { type CommandServices, commandMetadata, execute, oneAtATime, type Services, settle } from './services.js';

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
  const masterOf = new Map(configuration.copiers.map((c) => [c.id, c.fromAccountId]));
  return {
    copiers: configuration.copiers.map((c) => ({
      fromAccountId: c.fromAccountId,
      settings: c.settings,
      symbolMappings: c.symbolMappings,
      features: c.features.map((f) => f.setting),
    })),
    features: configuration.features.map((f) => f.setting),
    // A limit scoped to a copier that is gone meanwhile is left out: it watches nothing.
    riskLimits: configuration.riskLimits
      .filter((r) => r.copierId === null || masterOf.has(r.copierId))
      .map((r) => ({ copierFromAccountId: r.copierId === null ? null : masterOf.get(r.copierId)!, settings: r.settings })),
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

const loadTemplate = async (services: CommandServices, projectId: string, templateId: string): Promise<TemplateRow> => {
  const template = await findTemplate(services.db, projectId, templateId);
  if (!template) throw notFound('[TEMPLATE_NOT_FOUND]', `template ${templateId} not found`);
  return template;
};

/**
 * PUT /accounts/{accountId}/appliedTemplate: makes the account match the template's current revision
 * and links it there, or (templateId null) clears the link. One apply per account at a time.
 */
export const applyTemplate = async (services: Services, application: TemplateApplication): Promise<void> => {
  const { projectId, accountId, templateId, context } = application;
  await oneAtATime(services, `account-template:${accountId}`, async () => {
    await liveAccount(services, projectId, accountId);
    const link = (await linksOfAccounts(services.db, projectId, [accountId])).get(accountId);
    const unlink = (reason: 'CLEARED' | 'OTHER_TEMPLATE_APPLIED') =>
      link
        ? runTemplate(services, {
            type: 'UnlinkAccount',
            data: { templateId: link.template_id, projectId, accountId, reason },
            metadata: commandMetadata(services, context),
          })
        : Promise.resolve();
    if (templateId === null) {
      await unlink('CLEARED');
      return;
    }
    const template = await loadTemplate(services, projectId, templateId);
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
    await makeMatch(services, projectId, accountId, payload, context);
    if (link && link.template_id !== templateId) await unlink('OTHER_TEMPLATE_APPLIED');
    await runTemplate(services, {
      type: 'LinkAccount',
      data: { templateId, projectId, accountId, revision: template.revision },
      metadata: commandMetadata(services, context),
    });
  });
  await settle(services);
};

/** The commands that make the account's copiers, features, risk limits and settings those of `payload`. */
const makeMatch = async (services: Services, projectId: string, accountId: string, payload: TemplatePayload, context: RequestContext): Promise<void> => {
  const metadata = () => commandMetadata(services, context);
  const account = await liveAccount(services, projectId, accountId);
  const plan = planApply(payload, await configurationOf(services, projectId, accountId));
  const copier = (command: CopierCommand) => execute(services, copierStream(command.data.copierId), copierDecider, command, ['copiers']);
  const feature = (command: FeatureCommand) => execute(services, featureStream(command.data.featureId), featureDecider, command, ['features']);
  const riskLimit = (command: RiskLimitCommand) => execute(services, riskLimitStream(command.data.riskLimitId), riskLimitDecider, command, ['risk_limits']);
  const accountCommand = (command: AccountCommand) => execute(services, accountStream(command.data.accountId), accountDecider, command, ['accounts']);
  const features = async (scope: FeatureScope, changes: FeatureChanges) => {
    for (const featureId of changes.remove) await feature({ type: 'RemoveFeature', data: { featureId, projectId, scope }, metadata: metadata() });
    for (const { featureId, setting } of changes.update) {
      await feature({ type: 'UpdateFeature', data: { featureId, projectId, scope, setting }, metadata: metadata() });
    }
    for (const setting of changes.add) {
      await feature({ type: 'AddFeature', data: { featureId: randomUUID(), projectId, scope, setting }, metadata: metadata() });
    }
  };

  // What goes first: limits and copiers the template does not have (a copier's features with it).
  for (const riskLimitId of plan.deleteRiskLimits) {
    await riskLimit({ type: 'DeleteRiskLimit', data: { riskLimitId, projectId, accountId }, metadata: metadata() });
  }
  for (const gone of plan.deleteCopiers) {
    await features({ kind: 'copier', accountId, copierId: gone.id }, { add: [], update: [], remove: gone.features.map((f) => f.id) });
    await copier({ type: 'DeleteCopier', data: { copierId: gone.id, projectId, toAccountId: accountId }, metadata: metadata() });
  }
  await features({ kind: 'account', accountId }, plan.features);

  const copierOfMaster = new Map<string, string>();
  for (const step of plan.copiers) {
    let copierId: string;
    let featureChanges: FeatureChanges;
    if (step.kind === 'create') {
      copierId = await createCopier(services, { projectId, slave: account, fromAccountId: step.copier.fromAccountId, settings: step.copier.settings, context });
      featureChanges = { add: step.copier.features, update: [], remove: [] };
      if (Object.keys(step.copier.symbolMappings).length > 0) {
        await copier({
          type: 'SetSymbolMappings',
          data: { copierId, projectId, toAccountId: accountId, mappings: step.copier.symbolMappings },
          metadata: metadata(),
        });
      }
    } else {
      copierId = step.copierId;
      featureChanges = step.features;
      if (Object.keys(step.changes).length > 0) {
        await copier({ type: 'UpdateCopier', data: { copierId, projectId, toAccountId: accountId, changes: step.changes }, metadata: metadata() });
      }
      if (step.mappingsChange) {
        await copier({
          type: 'SetSymbolMappings',
          data: { copierId, projectId, toAccountId: accountId, mappings: step.copier.symbolMappings },
          metadata: metadata(),
        });
      }
    }
    copierOfMaster.set(step.copier.fromAccountId, copierId);
    await features({ kind: 'copier', accountId, copierId }, featureChanges);
  }

  for (const step of plan.riskLimits) {
    const copierId = step.copierFromAccountId === null ? null : (copierOfMaster.get(step.copierFromAccountId) ?? null);
    if (step.riskLimitId === null) {
      await riskLimit({
        type: 'CreateRiskLimit',
        data: { riskLimitId: randomUUID(), projectId, accountId, settings: step.settings, copierId },
        metadata: metadata(),
      });
    } else {
      await riskLimit({
        type: 'UpdateRiskLimit',
        data: { riskLimitId: step.riskLimitId, projectId, accountId, settings: step.settings },
        metadata: metadata(),
      });
    }
  }
  if (Object.keys(plan.settings).length > 0) {
    await accountCommand({ type: 'UpdateAccount', data: { accountId, projectId, changes: plan.settings }, metadata: metadata() });
  }
};
