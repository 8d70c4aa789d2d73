// The template DTOs (spec "Account templates": AccountTemplateDTO, AccountTemplateSummaryDTO,
// AccountTemplateRevisionDTO, AccountTemplateRevisionSummaryDTO, LinkedAccountSummaryDTO and
// AppliedTemplateDTO are named without their members, and the reference has none of them: the members
// below are ours, documented here).
import { type TSchema, Type } from '@sinclair/typebox';
import { MAX_TEMPLATE_DESCRIPTION_LENGTH, MAX_TEMPLATE_NAME_LENGTH } from '../../domain/template/decider.js';
import { COMPATIBILITY_MARKERS } from '../../domain/template/compatibility.js';
import { Nullable, Uuid } from '../shared/schemas.js';

const nullable = <S extends TSchema>(schema: S, description: string) => Type.Union([schema, Type.Null()], { description });
const uuid = (description: string) => Type.String({ format: 'uuid', description });

export const TemplatesParams = Type.Object({ projectId: Uuid }, { additionalProperties: false });
export const TemplateParams = Type.Object({ projectId: Uuid, templateId: Uuid }, { additionalProperties: false });
export const TemplateRevisionParams = Type.Object(
  { projectId: Uuid, templateId: Uuid, revision: Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'a revision number, from 1' }) },
  { additionalProperties: false },
);

export const COMPATIBILITY_WORDS =
  "compatibility (ours, the spec lists the markers and leaves the transitions open) follows from the template's current revision and the project as it is now: CURRENT while every master its copiers name exists; AUTO_MIGRATED when masters are gone but only inactive copiers (active false) name them: applying leaves those copiers (and their scoped risk limits) out, as they copied nothing; REVIEW_NEEDED when an active copier names a master that is gone: applying answers 409 [TEMPLATE_REVIEW_NEEDED] until an update stores a revision without it (PUT with sourceAccountId). Each attention flag names one such reference: code MASTER_DELETED (the account was deleted) or MASTER_NOT_FOUND (no such account in the project), path (copiers[i]), accountId and effect (LEFT_OUT_WHEN_APPLIED or BLOCKS_APPLYING). A new revision whose masters all exist is CURRENT again.";

const CompatibilityMarkerDTO = Type.Union(
  COMPATIBILITY_MARKERS.map((m) => Type.Literal(m)),
  { description: 'Template compatibility marker (spec): CURRENT, AUTO_MIGRATED or REVIEW_NEEDED' },
);

export const AttentionFlagDTO = Type.Object(
  {
    code: Type.Union([Type.Literal('MASTER_DELETED'), Type.Literal('MASTER_NOT_FOUND')]),
    path: Type.String({ description: 'where in the payload: copiers[i]' }),
    accountId: Uuid,
    effect: Type.Union([Type.Literal('LEFT_OUT_WHEN_APPLIED'), Type.Literal('BLOCKS_APPLYING')]),
  },
  { $id: 'TemplateAttentionFlagDTO', additionalProperties: false, description: 'Ours: a reference of the template to a resource that no longer exists.' },
);

const Members = Type.Record(Type.String(), Type.Unknown());

const TemplateFeatureDTO = Type.Object(
  {
    type: Type.Object({ id: Type.Integer(), name: Type.String() }, { additionalProperties: true, description: 'FeatureTypeDTO' }),
    setting: Members,
  },
  { additionalProperties: false, description: 'A feature as FeatureDTO shows it, without ids: type and setting (secrets masked).' },
);

export const AccountTemplatePayloadDTO = Type.Object(
  {
    copiers: Type.Array(
      Type.Object(
        {
          fromAccountId: Uuid,
          fromStrategyId: Type.Optional(Uuid),
          toStrategyId: Type.Optional(Uuid),
          settings: Type.Object({}, { additionalProperties: true, description: 'the CopierDTO members of the copier (scaleType as {id, name}), without ids' }),
          symbolMappings: Type.Record(Type.String(), Type.String(), { description: "the copier's own symbol mappings, master symbol -> slave symbol" }),
          features: Type.Array(TemplateFeatureDTO),
        },
        { additionalProperties: false },
      ),
      {
        description:
          'the copiers of the account as the slave, one per master (named by account id) and strategy: a strategy copier names its fromStrategyId or toStrategyId, and applying matches copiers by master and strategy',
      },
    ),
    features: Type.Array(TemplateFeatureDTO, { description: 'the account-scope features' }),
    riskLimits: Type.Array(
      Type.Object(
        {
          copierFromAccountId: nullable(Uuid, "a limit scoped to a copier names that copier's master; null: the whole account"),
          copierFromStrategyId: Type.Optional(Uuid),
          copierToStrategyId: Type.Optional(Uuid),
          riskType: Type.Object({ id: Type.Integer(), name: Type.String() }, { additionalProperties: false }),
        },
        { additionalProperties: true, description: 'RiskLimitDTO members without ids and hits' },
      ),
    ),
    settings: Type.Object(
      { tradingDisabled: Type.Boolean(), closeUnmanagedPositions: Type.Boolean(), nativeMode: Type.Boolean(), propFirm: Type.Boolean() },
      {
        additionalProperties: false,
        description: 'the AccountDTO members a template carries; login, alias, type, region, proxies and labels stay the account own',
      },
    ),
  },
  {
    $id: 'AccountTemplatePayloadDTO',
    additionalProperties: false,
    description:
      "Ours: the configuration snapshot a template stores. Feature settings are stored as the account had them (a webhook's secret sealed, shown masked); members that show a feature's running state are at their defaults.",
  },
);

const summaryMembers = {
  id: Uuid,
  projectId: Uuid,
  name: Type.String(),
  description: Nullable(Type.String()),
  revision: Type.Integer({ minimum: 1, description: 'the current revision: 1, then one more for each update' }),
  sourceAccountId: nullable(Uuid, 'the account the current revision was taken from'),
  linkedAccountCount: Type.Integer({ minimum: 0, description: 'accounts (not deleted) that follow the template' }),
  behindAccountCount: Type.Integer({ minimum: 0, description: 'ours: linked accounts whose appliedRevision is below revision' }),
  compatibility: CompatibilityMarkerDTO,
  attentionFlags: Type.Array(AttentionFlagDTO),
  created: Type.String({ format: 'date-time' }),
  updated: Type.String({ format: 'date-time' }),
};

export const AccountTemplateSummaryDTO = Type.Object(summaryMembers, {
  $id: 'AccountTemplateSummaryDTO',
  additionalProperties: false,
  description: 'A template without its payload (GET /projects/{projectId}/templates).',
});

export const AccountTemplateDTO = Type.Object(
  { ...summaryMembers, payload: AccountTemplatePayloadDTO },
  { $id: 'AccountTemplateDTO', additionalProperties: false, description: 'A template with the payload of its current revision.' },
);

const revisionSummaryMembers = {
  templateId: Uuid,
  revision: Type.Integer({ minimum: 1 }),
  name: Type.String(),
  description: Nullable(Type.String()),
  sourceAccountId: Nullable(Uuid),
  created: Type.String({ format: 'date-time', description: 'when this revision was stored' }),
};

export const AccountTemplateRevisionSummaryDTO = Type.Object(revisionSummaryMembers, {
  $id: 'AccountTemplateRevisionSummaryDTO',
  additionalProperties: false,
});

export const AccountTemplateRevisionDTO = Type.Object(
  { ...revisionSummaryMembers, payload: AccountTemplatePayloadDTO },
  { $id: 'AccountTemplateRevisionDTO', additionalProperties: false, description: 'One stored revision with its payload as stored.' },
);

export const LinkedAccountSummaryDTO = Type.Object(
  {
    accountId: Uuid,
    alias: Nullable(Type.String()),
    appliedRevision: Type.Integer({ minimum: 1, description: 'the revision the account was made to match' }),
    appliedAt: Type.String({ format: 'date-time' }),
    behind: Type.Boolean({ description: "appliedRevision is below the template's revision (spec 'Templates')" }),
  },
  { $id: 'LinkedAccountSummaryDTO', additionalProperties: false },
);

const name = Type.String({ minLength: 1, maxLength: MAX_TEMPLATE_NAME_LENGTH });
const description = Nullable(Type.String({ maxLength: MAX_TEMPLATE_DESCRIPTION_LENGTH }));

export const AccountTemplateCreateDTO = Type.Object(
  {
    name,
    description: Type.Optional(description),
    sourceAccountId: uuid('the account (of the project, not deleted) whose configuration the template takes'),
  },
  { $id: 'AccountTemplateCreateDTO', additionalProperties: false },
);

export const AccountTemplateUpdateDTO = Type.Object(
  {
    expectedRevision: Type.Integer({
      minimum: 1,
      description: 'the revision the change is based on (spec): another current revision gives 409 [TEMPLATE_REVISION_MISMATCH]',
    }),
    name: Type.Optional(name),
    description: Type.Optional(description),
    sourceAccountId: Type.Optional(uuid('present: the payload becomes a new snapshot of this account')),
  },
  { $id: 'AccountTemplateUpdateDTO', additionalProperties: false },
);

export const TemplateDeleteQuery = Type.Object(
  { force: Type.Optional(Type.Boolean({ default: false, description: 'true also unlinks the linked accounts (spec)' })) },
  { additionalProperties: false },
);

export const AppliedTemplateDTO = Type.Object(
  { templateId: Type.Optional(nullable(Uuid, 'the template to apply; null (or an empty body) clears the link')) },
  { $id: 'AppliedTemplateDTO', additionalProperties: false },
);

/** The three markers on an account (spec AppliedTemplateDTO), as every AccountDTO answers them (GET /accounts, /accounts/{accountId}, /accounts/configurationSummary). */
export const APPLIED_TEMPLATE_MARKERS = {
  accountTemplate1: Type.Optional(nullable(Uuid, 'ours (spec marker): the id of the template the account follows; null: none')),
  appliedTemplateRevision: Type.Optional(nullable(Type.Integer({ minimum: 1 }), 'the template revision the account was made to match')),
  appliedTemplateMeta: Type.Optional(
    nullable(
      Type.Object(
        {
          templateName: Type.String(),
          appliedAt: Type.String({ format: 'date-time' }),
          templateRevision: Type.Integer({ minimum: 1, description: "the template's current revision" }),
          behind: Type.Boolean({ description: 'appliedTemplateRevision is below templateRevision' }),
          compatibility: CompatibilityMarkerDTO,
        },
        { additionalProperties: false },
      ),
      'about the applied template: its name, when it was applied, its current revision, whether the account is behind it, its compatibility',
    ),
  ),
};
