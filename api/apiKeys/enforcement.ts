// Where the access policy of the calling key meets a route (api/route.ts calls these for every
// endpoint, so no handler has to remember them):
// - endpoint access, on the route the router matched (see domain/apiKey/endpointRules.ts for why);
// - field access, on a copy of the response body, guided by the route's declared response schema: every
//   AccountDTO, AccountInformationDTO and CopierDTO in it (alone, in a list, nested) gets its hidden
//   members set to null;
// - the declared schemas themselves say so: in a response, every member of those DTOs but `id` may be
//   null, so the OpenAPI document (and the contract checks of the specs) match what a restricted key gets.
import type { TSchema } from '@sinclair/typebox';
import type { Request } from 'express';
import type { AccessPolicy } from '../../domain/apiKey/accessPolicy.js';
import { endpointAllowed, routeSegments } from '../../domain/apiKey/endpointRules.js';
import { type FieldAccess, fieldVisible } from '../../domain/apiKey/fieldAccess.js';
import { ApiError } from '../errors.js';
import { ALWAYS_VISIBLE, isRestrictedDto } from './restrictedDtos.js';

type SchemaNode = Record<string, unknown> & { $id?: unknown; properties?: Record<string, TSchema>; items?: TSchema; anyOf?: TSchema[]; oneOf?: TSchema[] };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export const enforceEndpointAccess = (policy: AccessPolicy | null | undefined, template: string, req: Request): void => {
  if (!policy?.enabled || !policy.endpointAccess) return;
  const params = req.params as Record<string, string | undefined>;
  if (!endpointAllowed(policy.endpointAccess, req.method, routeSegments(template, params))) {
    throw new ApiError(403, '[FORBIDDEN_ENDPOINT_NOT_ALLOWED]', `this API key's access policy does not allow ${req.method} ${template}`);
  }
};

const allowsNull = (schema: TSchema): boolean => {
  const node = schema as SchemaNode;
  if (node.type === 'null' || (Array.isArray(node.type) && node.type.includes('null'))) return true;
  return [...(node.anyOf ?? []), ...(node.oneOf ?? [])].some(allowsNull);
};

const HIDDEN_NOTE = 'Members an access policy of the API key hides are null (every member but id).';
const transformed = new WeakMap<object, TSchema>();

/** The schema as a restricted key may receive it: members of the restricted DTOs may be null. */
export const withHideableFields = (schema: TSchema): TSchema => {
  const known = transformed.get(schema);
  if (known) return known;
  const node = schema as SchemaNode;
  let out: SchemaNode = node;
  const replace = (changes: Partial<SchemaNode>) => {
    out = { ...out, ...changes };
  };
  if (node.properties) {
    const restricted = isRestrictedDto(node.$id);
    const properties: Record<string, TSchema> = {};
    let changed = false;
    for (const [name, property] of Object.entries(node.properties)) {
      let next = withHideableFields(property);
      if (restricted && !ALWAYS_VISIBLE.has(name) && !allowsNull(next)) {
        // The member's default stays on the property itself, where generated clients read it.
        const hoisted = (next as SchemaNode).default === undefined ? {} : { default: (next as SchemaNode).default };
        next = { anyOf: [next, { type: 'null' }], ...hoisted } as unknown as TSchema;
      }
      properties[name] = next;
      changed ||= next !== property;
    }
    if (changed) replace({ properties });
    if (restricted) replace({ description: node.description ? `${String(node.description)} ${HIDDEN_NOTE}` : HIDDEN_NOTE });
  }
  if (node.items) {
    const items = withHideableFields(node.items);
    if (items !== node.items) replace({ items });
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = node[key];
    if (!branches) continue;
    const next = branches.map(withHideableFields);
    if (next.some((b, i) => b !== branches[i])) replace({ [key]: next });
  }
  const result = out as unknown as TSchema;
  transformed.set(schema, result);
  return result;
};

const branchFor = (node: SchemaNode, value: unknown): TSchema | undefined => {
  const branches = [...(node.anyOf ?? []), ...(node.oneOf ?? [])] as SchemaNode[];
  if (Array.isArray(value)) return branches.find((b) => b.type === 'array' || b.items) as TSchema | undefined;
  if (isObject(value)) return branches.find((b) => b.type === 'object' || b.properties) as TSchema | undefined;
  return undefined;
};

const hide = (schema: TSchema | undefined, value: unknown, access: FieldAccess): unknown => {
  if (!schema || value === null || value === undefined) return value;
  const node = schema as SchemaNode;
  if (Array.isArray(value)) {
    if (node.items) return value.map((item) => hide(node.items, item, access));
    const branch = branchFor(node, value);
    return branch ? hide(branch, value, access) : value;
  }
  if (!isObject(value)) return value;
  if (node.properties) {
    const restricted = isRestrictedDto(node.$id) ? node.$id : null;
    const out: Record<string, unknown> = {};
    for (const [name, member] of Object.entries(value)) {
      const visible = !restricted || ALWAYS_VISIBLE.has(name) || fieldVisible(access, restricted, name);
      out[name] = visible ? hide(node.properties[name], member, access) : null;
    }
    return out;
  }
  const branch = branchFor(node, value);
  return branch ? hide(branch, value, access) : value;
};

/** Whether applyFieldAccess may change a body for this policy. */
export const hidesFields = (policy: AccessPolicy | null | undefined): boolean => Boolean(policy?.enabled && policy.fieldAccess);

/** A copy of the body with what the key's field access hides set to null; the body itself is untouched. */
export const applyFieldAccess = (policy: AccessPolicy | null | undefined, schema: TSchema | undefined, body: unknown): unknown => {
  if (!policy?.enabled || !policy.fieldAccess || body === undefined) return body;
  return hide(schema, body, policy.fieldAccess);
};
