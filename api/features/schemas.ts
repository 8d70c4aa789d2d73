// FeatureDTO as the reference document (OpenAPI 1.2.5) writes it: `type` is a FeatureTypeDTO
// (`{id}` sent, `{id, name, planName}` answered) and `setting` the feature's members, a
// FeatureSettingDTO: one branch per feature of the catalogue, named as its feature DTO. The setting
// carries no type of its own: `type.id` says which branch applies (domain/feature/types.ts). Members
// with a default may be left out when writing; answers carry every member.
import { type TObject, type TSchema, Type } from '@sinclair/typebox';
import { featureCatalogue } from '../../domain/feature/catalogue.js';
import type { FeatureDefinition } from '../../domain/feature/definition.js';
import { featureTypeOf, featureTypes } from '../../domain/feature/types.js';
import { IsoDateTime, Uuid } from '../shared/schemas.js';
import { SIGNAL_SETTING_MEMBERS } from '../signals/schemas.js';

const scopeWords = (def: FeatureDefinition<object>): string =>
  `Scope: ${def.scopes.join(', ')}${def.multiple ? '; several may be attached' : '; at most one per ' + def.scopes.join(' or ')}${
    !def.multiple && def.scopes.length > 1
      ? " (set at several scopes, the most specific applies: a copier's own, else its slave account's, else its project's)"
      : ''
  }.`;

const branch = (def: FeatureDefinition<object>): TObject => {
  const defaulted = new Set(Object.keys(def.defaults));
  const properties: Record<string, TSchema> = {};
  // Members whose schema only the API knows (a signal feature's CopierDTO: api/signals/schemas.ts).
  const declared = { ...def.members.properties, ...SIGNAL_SETTING_MEMBERS[def.type] };
  const defaults = def.defaults as Record<string, unknown>;
  for (const [name, schema] of Object.entries(declared)) {
    // The default the service fills in is the one the document states (generated clients use it).
    const value = defaults[name];
    const documented = value === undefined || value === null || schema.default !== undefined ? schema : { ...schema, default: value };
    properties[name] = defaulted.has(name) ? Type.Optional(documented) : documented;
  }
  return Type.Object(properties, {
    $id: def.type,
    additionalProperties: false,
    description: `Feature type id ${featureTypeOf(def.type).id}. ${def.description} ${scopeWords(def)}`,
  });
};

/** One schema per feature DTO, by name. */
export const featureSettingBranches: ReadonlyMap<string, TObject> = new Map(featureCatalogue.map((def) => [def.type, branch(def)]));

/**
 * The polymorphic setting. `anyOf` rather than the reference's `oneOf`: the branches overlap (a setting
 * of optional members only fits several), and `type.id` beside it, not the setting, says which one
 * applies; the route checks the setting against that branch alone.
 */
export const FeatureSettingDTO = Type.Unsafe<Record<string, unknown>>({
  $id: 'FeatureSettingDTO',
  description:
    "One feature's members: the branch that `type.id` names (FeatureTypeDTO; GET /types/featureTypes lists the ids). Members left out when writing take their defaults; answers carry every member.",
  type: 'object',
  anyOf: [...featureSettingBranches.values()],
});

const typeIds = featureTypes.map((t) => `${t.id} ${t.dto}`).join(', ');

export const FeatureTypeDTO = Type.Object(
  {
    id: Type.Integer({ minimum: -2147483648, maximum: 2147483647, description: `the feature type: ${typeIds}` }),
    name: Type.Optional(Type.String({ readOnly: true, description: "the feature DTO's name (FeatureCopierFilterDTO); answered, ignored when sent" })),
    planName: Type.Optional(Type.String({ readOnly: true, description: 'the plan that includes the feature, where there is one (PRO); absent otherwise' })),
  },
  { $id: 'FeatureTypeDTO', description: 'Send only the id: `{"id": 2}` for FeatureCopierFilterDTO.' },
);

/** A FeatureTypeDTO as GET /types/featureTypes lists it. */
export const FeatureTypeListItem = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String({ description: "the feature DTO's name" }),
    planName: Type.Optional(Type.String()),
    supported: Type.Boolean({ description: 'false: not run by this service yet; attaching it gives 400 [FEATURE_TYPE_NOT_SUPPORTED]' }),
  },
  { additionalProperties: false },
);

const readOnlyIds = {
  id: Type.Optional(Type.Unknown({ readOnly: true, description: 'answered; ignored when sent' })),
  featureId: Type.Optional(Type.Unknown({ readOnly: true, description: 'answered; ignored when sent' })),
  created: Type.Optional(Type.Unknown({ readOnly: true, description: 'answered; ignored when sent' })),
  updated: Type.Optional(Type.Unknown({ readOnly: true, description: 'answered; ignored when sent' })),
};
const targets = {
  accountId: Type.Optional(Uuid),
  copierId: Type.Optional(Uuid),
  projectId: Type.Optional(Uuid),
};

/**
 * The body of POST and PUT, as documented: a FeatureDTO. `accountId`, `copierId` and `projectId` may be
 * sent; the path decides, and a value that differs from it gives 400 [VALIDATION_FAILED].
 */
export const FeatureWriteDTO = Type.Object(
  { ...readOnlyIds, ...targets, type: FeatureTypeDTO, setting: FeatureSettingDTO },
  { $id: 'FeatureWriteDTO', additionalProperties: false },
);

/** What the body is validated against before the handler checks `setting` against the branch `type.id` names. */
export const FeatureWriteEnvelope = Type.Object(
  {
    ...readOnlyIds,
    ...targets,
    type: Type.Object(
      { id: Type.Integer({ minimum: -2147483648, maximum: 2147483647 }), name: Type.Optional(Type.String()), planName: Type.Optional(Type.String()) },
      { additionalProperties: false },
    ),
    setting: Type.Object({}, { additionalProperties: true }),
  },
  { additionalProperties: false },
);

export const FeatureDTO = Type.Object(
  {
    id: Uuid,
    featureId: Type.String({ format: 'uuid', description: 'the same as id (the spec names it featureId)' }),
    type: FeatureTypeDTO,
    setting: FeatureSettingDTO,
    accountId: Type.Optional(
      Type.String({ format: 'uuid', description: 'the account of an account feature, the slave account of a copier feature; absent for a project feature' }),
    ),
    copierId: Type.Optional(Type.String({ format: 'uuid', description: 'the copier of a copier feature; absent otherwise' })),
    projectId: Type.Optional(Type.String({ format: 'uuid', description: 'the project of a project feature; absent otherwise' })),
    created: IsoDateTime,
    updated: IsoDateTime,
  },
  { $id: 'FeatureDTO', additionalProperties: false },
);

export const CopierFeatureParams = Type.Object({ accountId: Uuid, copierId: Uuid }, { additionalProperties: false });
export const CopierFeatureIdParams = Type.Object({ accountId: Uuid, copierId: Uuid, featureId: Uuid }, { additionalProperties: false });
export const AccountFeatureIdParams = Type.Object({ accountId: Uuid, featureId: Uuid }, { additionalProperties: false });
