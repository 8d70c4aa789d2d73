// What an access policy can name: the restrictable fields of AccountDTO, AccountInformationDTO and
// CopierDTO (spec "Access policy of an API key", field access), and the hideable frontend features.
// The fields come from the response schemas themselves, so a member added to a DTO is restrictable at
// once. `id` is not: a client needs it to address the resource.
import type { TSchema } from '@sinclair/typebox';
import type { PolicyCatalog } from '../../domain/apiKey/accessPolicy.js';
import { AccountDTO } from '../accounts/schemas.js';
import { CopierDTO } from '../copiers/schemas.js';
import { AccountInformationDTO } from '../accounts/informationSchemas.js';
import { RESTRICTED_DTOS } from './restrictedDtos.js';

const schemas: Record<(typeof RESTRICTED_DTOS)[number], TSchema> = { AccountDTO, AccountInformationDTO, CopierDTO };

export interface FieldMetadata {
  readonly dto: string;
  readonly field: string;
  /** The member's JSON type as our document declares it (see typeName). */
  readonly type: string;
  readonly entry: string;
  readonly description: string;
}

interface SchemaNode {
  readonly $id?: string;
  readonly type?: string;
  readonly format?: string;
  readonly description?: string;
  readonly anyOf?: readonly SchemaNode[];
  readonly items?: SchemaNode;
}

/**
 * A member's type in words: the JSON type (`string`, `number`, `integer`, `boolean`, `object`,
 * `array`), a string's format after a colon (`string:uuid`, `string:date-time`), a named object by its
 * schema name (`RegionDTO`), an array as `array<item>`; a nullable member by its non-null type. The
 * reference answers Java class names here (`java.math.BigDecimal`); we have no Java classes to name.
 */
export const typeName = (schema: SchemaNode): string => {
  if (schema.anyOf) {
    const nonNull = schema.anyOf.filter((s) => s.type !== 'null');
    return nonNull.length === 1 ? typeName(nonNull[0]!) : nonNull.map(typeName).join('|');
  }
  if (schema.$id) return schema.$id;
  if (schema.type === 'array') return `array<${schema.items ? typeName(schema.items) : 'unknown'}>`;
  if (schema.type === 'string' && schema.format) return `string:${schema.format}`;
  return schema.type ?? 'unknown';
};

export const restrictableFields = (): FieldMetadata[] =>
  RESTRICTED_DTOS.flatMap((dto) =>
    Object.entries((schemas[dto] as unknown as { properties: Record<string, SchemaNode> }).properties)
      .filter(([field]) => field !== 'id')
      .map(([field, schema]) => ({ dto, field, type: typeName(schema), entry: `${dto}: ${field}`, description: schema.description ?? '' })),
  );

/** Parts of the frontend application a key can hide (FrontendFeatureDTO). */
export const FRONTEND_FEATURES: readonly { id: string; name: string; description: string }[] = [
  { id: 'FINANCIAL_OVERVIEW', name: 'Financial overview', description: 'balances, equity, profit figures and drawdown of the accounts' },
  { id: 'ACCOUNT_MANAGEMENT', name: 'Account management', description: 'creating, editing, starting, stopping and deleting accounts' },
  { id: 'ACCOUNT_CREDENTIALS', name: 'Account credentials', description: 'login server, login and password fields of an account' },
  { id: 'TRADING', name: 'Trading', description: 'opening, changing and closing positions and pending orders by hand' },
  { id: 'COPIER_SETTINGS', name: 'Copier settings', description: 'creating and editing copiers and their features' },
  { id: 'RISK_MANAGEMENT', name: 'Risk management', description: 'risk limits, profit targets and protective features' },
  { id: 'POSITIONS', name: 'Positions', description: 'open positions, pending orders and the position history' },
  { id: 'LOGS', name: 'Logs', description: 'account logs and audit logs' },
  { id: 'PERFORMANCE_METRICS', name: 'Performance metrics', description: 'analytics and performance charts' },
  { id: 'API_KEYS', name: 'API keys', description: 'the API key management pages' },
  { id: 'BILLING', name: 'Billing', description: 'invoices, payments and subscription details' },
  { id: 'MARKETPLACE', name: 'Marketplace', description: 'signal providers and the marketplace' },
];

export const policyCatalog = (): PolicyCatalog => {
  const fields = new Map<string, string[]>();
  for (const f of restrictableFields()) fields.set(f.dto, [...(fields.get(f.dto) ?? []), f.field]);
  return { fields, frontendFeatures: FRONTEND_FEATURES.map((f) => f.id) };
};
