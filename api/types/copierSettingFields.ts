// GET /types/copierSettings/availableFields: the copier setting names a signal provider may let its
// followers override (FeatureSignalProviderDTO.allowedOverrideFields). Generated from CopierUpdateDTO,
// the schema PUT /accounts/{accountId}/copiers/{copierId} validates with, so a setting added to the
// copier is listed at once and none can be listed that the copier does not take.
import type { TObject } from '@sinclair/typebox';
import { type FieldMetadata, typeName } from '../apiKeys/catalog.js';
import { CopierUpdateDTO } from '../copiers/schemas.js';

/** Members of the copier schema that say which master or strategy a copier follows, not how it copies. */
export const COPIER_REFERENCE_MEMBERS: readonly string[] = ['fromAccountId', 'fromStrategyId', 'toStrategyId'];

interface MemberSchema {
  readonly readOnly?: boolean;
  readonly description?: string;
  readonly anyOf?: readonly MemberSchema[];
}

/**
 * Every writable member of `schema` (CopierUpdateDTO by default) but the references: members marked
 * readOnly (id, created, the echoes a client may send back) and fromAccountId, fromStrategyId,
 * toStrategyId are not settings. In the schema's order, typed as the API-key field list types them.
 */
export const copierSettingFields = (schema: TObject = CopierUpdateDTO): FieldMetadata[] =>
  Object.entries(schema.properties as Record<string, MemberSchema>)
    .filter(([field, member]) => !COPIER_REFERENCE_MEMBERS.includes(field) && member.readOnly !== true)
    .map(([field, member]) => ({
      dto: 'CopierDTO',
      field,
      type: typeName(member),
      entry: `CopierDTO: ${field}`,
      description: member.description ?? member.anyOf?.find((m) => m.description)?.description ?? '',
    }));
