// FeatureDTO and the polymorphic FeatureSettingDTO (spec "Feature DTOs"): one branch per feature of
// the catalogue, told apart by `type` (the feature DTO's name). Members with a default may be left
// out when writing; responses carry every member.
import { type TObject, type TSchema, Type } from '@sinclair/typebox';
import { featureCatalogue } from '../../domain/feature/catalogue.js';
import type { FeatureDefinition } from '../../domain/feature/definition.js';
import { IsoDateTime, Uuid } from '../shared/schemas.js';

const scopeWords = (def: FeatureDefinition<object>): string =>
  `Scope: ${def.scopes.join(', ')}${def.multiple ? '; several may be attached' : '; at most one per ' + def.scopes[0]}.`;

const branch = (def: FeatureDefinition<object>): TObject => {
  const defaulted = new Set(Object.keys(def.defaults));
  const properties: Record<string, TSchema> = { type: Type.Literal(def.type) };
  for (const [name, schema] of Object.entries(def.members.properties)) {
    properties[name] = defaulted.has(name) ? Type.Optional(schema) : schema;
  }
  return Type.Object(properties, { $id: def.type, additionalProperties: false, description: `${def.description} ${scopeWords(def)}` });
};

export const featureSettingBranches = featureCatalogue.map(branch);

export const FeatureSettingDTO = Type.Unsafe<{ type: string; [member: string]: unknown }>({
  $id: 'FeatureSettingDTO',
  description: "One feature's setting: `type` is the feature DTO's name, its members stand beside it.",
  // ajv's discriminator applies to objects only: without `type: 'object'` a null, a string, a number
  // or an array would pass unchecked (and reach the handler, or the store).
  type: 'object',
  required: ['type'],
  oneOf: featureSettingBranches,
  discriminator: { propertyName: 'type' },
});

/** The body of POST and PUT: one shared object, so its schemas are compiled once. */
export const FeatureWriteDTO = Type.Object(
  {
    featureId: Type.Optional(Type.Unknown({ readOnly: true, description: 'ignored when sent' })),
    featureSetting: FeatureSettingDTO,
  },
  { $id: 'FeatureWriteDTO', additionalProperties: false },
);

export const FeatureDTO = Type.Object(
  {
    featureId: Uuid,
    featureSetting: FeatureSettingDTO,
    created: IsoDateTime,
    updated: IsoDateTime,
  },
  { $id: 'FeatureDTO', additionalProperties: false },
);

export const CopierFeatureParams = Type.Object({ accountId: Uuid, copierId: Uuid }, { additionalProperties: false });
export const CopierFeatureIdParams = Type.Object({ accountId: Uuid, copierId: Uuid, featureId: Uuid }, { additionalProperties: false });
export const AccountFeatureIdParams = Type.Object({ accountId: Uuid, featureId: Uuid }, { additionalProperties: false });
