// The reference wire format (issue 15): the public OpenAPI 1.2.5 document of the product whose clients
// must work unchanged against this service. Helpers to find its operations by method and path, to
// compare its response schemas with ours member by member, and to validate bodies against it with ajv.
//
// The reference is OpenAPI 3.0: its schemas are turned into JSON Schema draft-07 before ajv sees them
// (`nullable`, boolean `exclusiveMinimum`/`exclusiveMaximum`, `example`, repeated enum values,
// `readOnly` members that a request may leave out). Its polymorphic FeatureSettingDTO is a `oneOf`
// whose branches have no discriminator and overlap (a setting with only optional members matches
// several), so `oneOf` is checked as `anyOf`: a body must match at least one branch. Formats ajv-formats
// does not know are not checked; int32, int64, double, date-time and uuid are.
import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv) => Ajv;

/** A schema object of either document (OpenAPI 3.0 for the reference, 3.1 for ours). */
export interface Schema {
  readonly $ref?: string;
  readonly type?: string | readonly string[];
  readonly format?: string;
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly nullable?: boolean;
  readonly properties?: Readonly<Record<string, Schema>>;
  readonly additionalProperties?: boolean | Schema;
  readonly patternProperties?: Readonly<Record<string, Schema>>;
  readonly items?: Schema;
  readonly allOf?: readonly Schema[];
  readonly anyOf?: readonly Schema[];
  readonly oneOf?: readonly Schema[];
  readonly required?: readonly string[];
  readonly example?: unknown;
  readonly default?: unknown;
  readonly readOnly?: boolean;
  readonly writeOnly?: boolean;
  readonly minimum?: number;
  readonly maximum?: number;
  /** A number in OpenAPI 3.1 (ours), a flag on `minimum` in 3.0 (the reference). */
  readonly exclusiveMinimum?: number | boolean;
  readonly exclusiveMaximum?: number | boolean;
}

/** The bounds of a number; an absent end is unbounded. */
export interface Range {
  readonly min?: number;
  readonly minExclusive?: boolean;
  readonly max?: number;
  readonly maxExclusive?: boolean;
}

const rangeOf = (s: Schema): Range | undefined => {
  const low =
    typeof s.exclusiveMinimum === 'number'
      ? { min: s.exclusiveMinimum, minExclusive: true }
      : s.minimum !== undefined
        ? { min: s.minimum, minExclusive: s.exclusiveMinimum === true }
        : {};
  const high =
    typeof s.exclusiveMaximum === 'number'
      ? { max: s.exclusiveMaximum, maxExclusive: true }
      : s.maximum !== undefined
        ? { max: s.maximum, maxExclusive: s.exclusiveMaximum === true }
        : {};
  const range = { ...low, ...high };
  return Object.keys(range).length ? range : undefined;
};

const rangeLabel = (r: Range | undefined): string => `${r?.minExclusive ? '(' : '['}${r?.min ?? '-∞'},${r?.max ?? '∞'}${r?.maxExclusive ? ')' : ']'}`;

/** Does every number of `ours` lie within `ref`? */
const rangeFits = (ref: Range | undefined, ours: Range | undefined): boolean => {
  if (!ref) return true;
  if (ref.min !== undefined) {
    if (ours?.min === undefined || ours.min < ref.min) return false;
    if (ours.min === ref.min && ref.minExclusive && !ours.minExclusive) return false;
  }
  if (ref.max !== undefined) {
    if (ours?.max === undefined || ours.max > ref.max) return false;
    if (ours.max === ref.max && ref.maxExclusive && !ours.maxExclusive) return false;
  }
  return true;
};

interface MediaType {
  readonly schema?: Schema;
}
interface OperationObject {
  readonly operationId?: string;
  readonly tags?: readonly string[];
  readonly requestBody?: { readonly content?: Readonly<Record<string, MediaType>> };
  readonly responses?: Readonly<Record<string, { readonly content?: Readonly<Record<string, MediaType>> }>>;
}
export interface OpenApiDocument {
  readonly openapi: string;
  readonly servers?: readonly { readonly url: string }[];
  readonly paths: Readonly<Record<string, Readonly<Record<string, OperationObject>>>>;
  readonly components?: { readonly schemas?: Readonly<Record<string, Schema>> };
}

export const REFERENCE_DOCUMENT_PATH = new URL('../../../shared/spec/reference-openapi-1.2.5.json', import.meta.url);

let referenceDocument: OpenApiDocument | undefined;
/** The reference document, read once. */
export const loadReference = (): OpenApiDocument => (referenceDocument ??= JSON.parse(readFileSync(REFERENCE_DOCUMENT_PATH, 'utf8')) as OpenApiDocument);

// ---------------------------------------------------------------------------------------------
// Operations and paths

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

/** The path part of the document's first server: `/rest/api/v1` for ours, '' for the reference (an absolute URL at its root). */
export const basePathOf = (doc: OpenApiDocument): string => {
  const url = doc.servers?.[0]?.url ?? '';
  return new URL(url, 'http://base.invalid').pathname.replace(/\/+$/, '');
};

/** `{accountId}` and `{id}` are the same: path parameters count by position, not by name. */
export const normalizePath = (path: string): string => path.replace(/\{[^}/]+\}/g, '{}').replace(/\/+$/, '') || '/';

export interface Operation {
  readonly method: string;
  /** The full path on the wire, base path included, with the document's own parameter names. */
  readonly fullPath: string;
  /** As the document writes it, under `paths`. */
  readonly documentPath: string;
  /** `GET /rest/api/v1/accounts/{}`: equal for the same operation in both documents. */
  readonly key: string;
  readonly operation: OperationObject;
}

export const operationKey = (method: string, fullPath: string): string => `${method.toUpperCase()} ${normalizePath(fullPath)}`;

export const operationsOf = (doc: OpenApiDocument): Operation[] => {
  const base = basePathOf(doc);
  return Object.entries(doc.paths).flatMap(([documentPath, item]) =>
    METHODS.filter((m) => item[m]).map((method) => {
      const fullPath = base + documentPath;
      return { method, fullPath, documentPath, key: operationKey(method, fullPath), operation: item[method]! };
    }),
  );
};

/** The wire prefix every path of both documents carries. */
export const API_BASE = '/rest/api/v1';

/** A path as callers write it (with or without /rest/api/v1, templated or concrete, with a query): the full path. */
const wirePath = (path: string): string => {
  const bare = path.split('?')[0]!.replace(/\/+$/, '');
  return bare === API_BASE || bare.startsWith(`${API_BASE}/`) ? bare : `${API_BASE}${bare}`;
};

/**
 * The operation of `doc` that serves `method path`. `path` may be a template (any parameter names)
 * or a concrete URL path, with or without the /rest/api/v1 prefix. Literal segments win over
 * parameters (`/accounts/activateAllCopiers` is not `/accounts/{accountId}`).
 */
export const findOperation = (doc: OpenApiDocument, method: string, path: string): Operation | undefined => {
  const segments = wirePath(path).split('/');
  let best: { op: Operation; literals: number } | undefined;
  for (const op of operationsOf(doc)) {
    if (op.method !== method.toLowerCase()) continue;
    const template = op.fullPath.replace(/\/+$/, '').split('/');
    if (template.length !== segments.length) continue;
    let literals = 0;
    const fits = template.every((t, i) => {
      const s = segments[i]!;
      if (/^\{[^}]+\}$/.test(t)) return s.length > 0;
      literals++;
      return t === s;
    });
    if (fits && (!best || literals > best.literals)) best = { op, literals };
  }
  return best?.op;
};

const jsonSchemaOf = (content: Readonly<Record<string, MediaType>> | undefined): Schema | undefined =>
  content?.['application/json']?.schema ?? Object.values(content ?? {})[0]?.schema;

/** The 2xx statuses of an operation with their JSON schema (undefined: no body). */
export const successResponses = (op: Operation): [status: string, schema: Schema | undefined][] =>
  Object.entries(op.operation.responses ?? {})
    .filter(([status]) => /^2\d\d$/.test(status))
    .map(([status, r]) => [status, jsonSchemaOf(r.content)]);

export const requestSchemaOf = (op: Operation): Schema | undefined => jsonSchemaOf(op.operation.requestBody?.content);

// ---------------------------------------------------------------------------------------------
// Schemas: resolution and member-by-member comparison

/** The component a `$ref` names: `#/components/schemas/AccountDTO` → AccountDTO. */
export const refName = (ref: string): string => ref.slice(ref.lastIndexOf('/') + 1);

export const resolveRef = (doc: OpenApiDocument, schema: Schema): { schema: Schema; name?: string } => {
  let current = schema;
  let name: string | undefined;
  for (let hops = 0; current.$ref && hops < 32; hops++) {
    name = refName(current.$ref);
    const target = doc.components?.schemas?.[name];
    if (!target) throw new Error(`unresolved $ref ${current.$ref}`);
    current = target;
  }
  return { schema: current, name };
};

/** What a schema admits, reduced to what a generated client decodes: null alternatives dropped, allOf merged, $ref followed. */
export type Shape =
  | { readonly kind: 'any' }
  | { readonly kind: 'none' }
  | { readonly kind: 'scalar'; readonly type: string; readonly format?: string; readonly values?: readonly string[]; readonly range?: Range }
  | { readonly kind: 'object'; readonly name?: string; readonly properties: Readonly<Record<string, Schema>>; readonly values?: Schema }
  | { readonly kind: 'array'; readonly items: Schema }
  | { readonly kind: 'union'; readonly variants: readonly { readonly name?: string; readonly schema: Schema }[] }
  | { readonly kind: 'mixed'; readonly types: readonly string[] };

const isNull = (s: Schema): boolean => s.type === 'null' || (Array.isArray(s.type) && s.type.length === 1 && s.type[0] === 'null');

export const shapeOf = (doc: OpenApiDocument, input: Schema | undefined): Shape => {
  if (!input) return { kind: 'none' };
  const { schema, name } = resolveRef(doc, input);
  if (schema.allOf?.length) {
    const parts = schema.allOf.map((s) => shapeOf(doc, s));
    const properties: Record<string, Schema> = { ...(schema.properties ?? {}) };
    for (const p of parts) if (p.kind === 'object') Object.assign(properties, p.properties);
    return { kind: 'object', name, properties };
  }
  // Alternatives that only constrain a typed value (`type: string` with `anyOf: [{format: ipv4}, {format: ipv6}]`) do not change its shape.
  const typed = (s: Schema): boolean =>
    Boolean(s.type || s.$ref || s.properties || s.items || s.const !== undefined || s.enum || s.anyOf || s.oneOf || s.allOf);
  const alternatives = (schema.oneOf ?? schema.anyOf)?.filter((s) => !isNull(s));
  if (alternatives?.length && (alternatives.some(typed) || !schema.type)) {
    if (alternatives.length === 1) {
      const only = shapeOf(doc, alternatives[0]);
      return only.kind === 'object' && !only.name && name ? { ...only, name } : only;
    }
    const shapes = alternatives.map((s) => shapeOf(doc, s));
    // A union of literals of one type (TypeBox's enums): one scalar with those values.
    const literals = shapes.filter((s): s is Extract<Shape, { kind: 'scalar' }> => s.kind === 'scalar' && s.values !== undefined);
    if (literals.length === shapes.length && literals.every((s) => s.type === literals[0]!.type)) {
      return { kind: 'scalar', type: literals[0]!.type, values: literals.flatMap((s) => s.values ?? []) };
    }
    return { kind: 'union', variants: alternatives.map((s) => ({ name: s.$ref ? refName(s.$ref) : undefined, schema: s })) };
  }
  const types = (Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : []).filter((t) => t !== 'null');
  const literal = schema.const !== undefined ? [schema.const] : schema.enum?.filter((v) => v !== null);
  const values = literal?.map(String);
  const type = types[0] ?? (literal ? typeof literal[0] : schema.properties ? 'object' : schema.items ? 'array' : undefined);
  if (types.length > 1) return { kind: 'mixed', types };
  if (type === undefined) return { kind: 'any' };
  if (type === 'object') {
    const extra = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : Object.values(schema.patternProperties ?? {})[0];
    return { kind: 'object', name, properties: schema.properties ?? {}, ...(extra ? { values: extra } : {}) };
  }
  if (type === 'array') return { kind: 'array', items: schema.items ?? {} };
  const range = type === 'number' || type === 'integer' ? rangeOf(schema) : undefined;
  return { kind: 'scalar', type, ...(schema.format ? { format: schema.format } : {}), ...(values ? { values } : {}), ...(range ? { range } : {}) };
};

/** How a gap names a type: `string<date-time>`, `string{Buy|Sell}`, `integer`, `object`, `array`, `oneOf`, `none` (no body). */
export const shapeLabel = (shape: Shape): string => {
  switch (shape.kind) {
    case 'scalar':
      return `${shape.type}${shape.type === 'string' && shape.format ? `<${shape.format}>` : ''}${shape.values ? `{${shape.values.join('|')}}` : ''}`;
    case 'union':
      return 'oneOf';
    case 'mixed':
      return shape.types.join('|');
    default:
      return shape.kind;
  }
};

/**
 * Can every value `ours` admits be decoded as `ref`? Integer where the reference says number is fine;
 * number where it says integer is not. A string format of the reference (date-time, uuid) must be
 * declared the same; numeric formats (int32, int64, double) are not compared. A reference enum must
 * be declared as an enum with no value outside it.
 */
const scalarFits = (ref: Extract<Shape, { kind: 'scalar' }>, ours: Shape): boolean => {
  if (ours.kind !== 'scalar') return false;
  const typeFits = ref.type === ours.type || (ref.type === 'number' && ours.type === 'integer');
  if (!typeFits) return false;
  if (ref.type === 'string' && ref.format && ref.format !== ours.format) return false;
  if (ref.values && (!ours.values || ours.values.some((v) => !ref.values!.includes(v)))) return false;
  return true;
};

export interface Comparison {
  /**
   * `member: missing`, `member: type X≠Y`, or `member: range [a,b]≠[c,d]` (ours may answer numbers the
   * reference refuses: a strict client, pydantic's, fails to decode them). Member paths are dotted:
   * `type.id`, `pendingApprovals[].id`, `tradesPerDay{}` (a map's values), `setting<FeatureMultiplierDTO>.multiplier`.
   */
  readonly gaps: string[];
  /** How many members of the reference were looked at (nested ones included). */
  readonly checked: number;
}

const MAX_DEPTH = 8;

/** The members of the reference's schema that ours lacks or types differently (ours may have more: clients keep unknown members). */
export const compareSchemas = (refDoc: OpenApiDocument, refSchema: Schema | undefined, ourDoc: OpenApiDocument, ourSchema: Schema | undefined): Comparison => {
  const gaps: string[] = [];
  let checked = 0;
  const walk = (ref: Schema | undefined, ours: Schema | undefined, path: string, depth: number, seen: readonly string[]): void => {
    const r = shapeOf(refDoc, ref);
    const o = shapeOf(ourDoc, ours);
    const where = path || '(body)';
    const mismatch = (): void => {
      gaps.push(`${where}: type ${shapeLabel(r)}≠${shapeLabel(o)}`);
    };
    if (r.kind === 'any' || r.kind === 'none' || r.kind === 'mixed' || depth > MAX_DEPTH) return;
    if (r.kind === 'scalar') {
      if (!scalarFits(r, o)) mismatch();
      else if (!rangeFits(r.range, (o as typeof r).range)) gaps.push(`${where}: range ${rangeLabel(r.range)}≠${rangeLabel((o as typeof r).range)}`);
      return;
    }
    if (r.kind === 'array') {
      if (o.kind !== 'array') return mismatch();
      // The items of a list answer are named like the members of a single answer: `id`, not `[].id`.
      return walk(r.items, o.items, depth === 0 ? '' : `${path}[]`, depth + 1, seen);
    }
    if (r.kind === 'union') {
      if (o.kind !== 'union') return mismatch();
      for (const v of r.variants) {
        const mine = o.variants.find((x) => x.name !== undefined && x.name === v.name);
        const label = `${path}<${v.name ?? '?'}>`;
        checked++;
        if (!mine) gaps.push(`${label}: missing`);
        else walk(v.schema, mine.schema, label, depth + 1, seen);
      }
      return;
    }
    // An object of the reference.
    if (o.kind !== 'object') return mismatch();
    if (r.name && seen.includes(r.name)) return; // a cycle: compared further up
    const next = r.name ? [...seen, r.name] : seen;
    for (const [member, schema] of Object.entries(r.properties)) {
      checked++;
      const at = path ? `${path}.${member}` : member;
      if (!(member in o.properties)) gaps.push(`${at}: missing`);
      else walk(schema, o.properties[member], at, depth + 1, next);
    }
    if (r.values && o.values) walk(r.values, o.values, `${path}{}`, depth + 1, next);
  };
  walk(refSchema, ourSchema, '', 0, []);
  return { gaps, checked };
};

// ---------------------------------------------------------------------------------------------
// Validation against the reference with ajv

type Direction = 'request' | 'response';

/**
 * OpenAPI 3.0 schema → JSON Schema draft-07. In a request, `readOnly` members are not required (the
 * server fills them); in a response, `writeOnly` members are not. `$ref`s point into `definitions` of
 * the schema registered under `idFor(direction)`.
 */
const toJsonSchema = (node: unknown, direction: Direction): unknown => {
  if (Array.isArray(node)) return node.map((n) => toJsonSchema(n, direction));
  if (!node || typeof node !== 'object') return node;
  const s = node as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s)) {
    switch (k) {
      case 'example':
      case 'examples':
      case 'xml':
      case 'externalDocs':
      case 'discriminator':
      case 'nullable':
        break;
      case '$ref':
        out.$ref = `${idFor(direction)}#/definitions/${refName(String(v))}`;
        break;
      case 'oneOf':
        out.anyOf = toJsonSchema(v, direction);
        break;
      case 'exclusiveMinimum':
      case 'exclusiveMaximum': {
        const bound = k === 'exclusiveMinimum' ? 'minimum' : 'maximum';
        if (v === true && typeof s[bound] === 'number') out[k] = s[bound];
        else if (typeof v === 'number') out[k] = v;
        break;
      }
      case 'enum':
        // The reference repeats values (FeatureSkipPositionDTO.logicOperatorTpSl); JSON Schema forbids that.
        out.enum = [...new Set(v as unknown[])];
        break;
      case 'properties':
        out.properties = Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([name, p]) => [name, toJsonSchema(p, direction)]));
        break;
      default:
        out[k] = toJsonSchema(v, direction);
    }
  }
  // A bound made exclusive above is not also inclusive.
  if (typeof out.exclusiveMinimum === 'number') delete out.minimum;
  if (typeof out.exclusiveMaximum === 'number') delete out.maximum;
  if (s.nullable === true) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    if (Array.isArray(out.enum)) out.enum = [...(out.enum as unknown[]), null];
    if (out.$ref || out.anyOf || out.allOf) {
      const { description, ...rest } = out;
      return { ...(description !== undefined ? { description } : {}), anyOf: [rest, { type: 'null' }] };
    }
  }
  if (Array.isArray(s.required) && s.properties && typeof s.properties === 'object') {
    const props = s.properties as Record<string, Schema>;
    const skip = (name: string) => (direction === 'request' ? props[name]?.readOnly === true : props[name]?.writeOnly === true);
    const required = (s.required as string[]).filter((name) => !skip(name));
    if (required.length) out.required = required;
    else delete out.required;
  }
  return out;
};

const idFor = (direction: Direction): string => `https://reference.invalid/openapi-1.2.5/${direction}.json`;

let referenceAjv: Ajv | undefined;
const ajvForReference = (): Ajv => {
  if (referenceAjv) return referenceAjv;
  const ajv = addFormats(new Ajv({ allErrors: true, strict: true, strictTypes: false, strictRequired: false, strictTuples: false }));
  const doc = loadReference();
  // Formats the reference uses that ajv-formats does not know are not checked.
  const formats = new Set<string>();
  JSON.stringify(doc, (key, value: unknown) => {
    if (key === 'format' && typeof value === 'string') formats.add(value);
    return value;
  });
  for (const f of formats) if (!ajv.formats[f]) ajv.addFormat(f, true);
  for (const direction of ['request', 'response'] as const) {
    const definitions = Object.fromEntries(Object.entries(doc.components?.schemas ?? {}).map(([name, schema]) => [name, toJsonSchema(schema, direction)]));
    ajv.addSchema({ $id: idFor(direction), definitions });
  }
  return (referenceAjv = ajv);
};

const compiled = new Map<string, ValidateFunction>();
const compileFor = (cacheKey: string, schema: Schema, direction: Direction): ValidateFunction => {
  let fn = compiled.get(cacheKey);
  if (!fn) {
    fn = ajvForReference().compile(toJsonSchema(schema, direction) as object);
    compiled.set(cacheKey, fn);
  }
  return fn;
};

const referenceOperation = (method: string, path: string): Operation => {
  const op = findOperation(loadReference(), method, path);
  if (!op) throw new Error(`the reference document has no operation ${method.toUpperCase()} ${path}`);
  return op;
};

/**
 * An ajv validate function for the body the reference declares for `method path` answering `status`
 * (path as template or concrete URL path, with or without /rest/api/v1). A status with no body
 * accepts only an empty one. Throws when the reference has no such operation or status.
 */
export const referenceResponseValidator = (method: string, path: string, status: number | string): ValidateFunction => {
  const op = referenceOperation(method, path);
  const response = op.operation.responses?.[String(status)];
  if (!response) throw new Error(`the reference declares no ${status} for ${op.key}`);
  const schema = jsonSchemaOf(response.content);
  return schema ? compileFor(`response ${op.key} ${status}`, schema, 'response') : emptyBody(`${op.key} ${status}`);
};

/** For a status without content: only no body (undefined, '' or {} as some HTTP clients parse an empty answer) passes. */
const emptyBody = (what: string): ValidateFunction => {
  const validate = (data: unknown): boolean => {
    const empty = data === undefined || data === '' || (typeof data === 'object' && data !== null && !Array.isArray(data) && Object.keys(data).length === 0);
    validate.errors = empty ? null : [{ instancePath: '', schemaPath: '#', keyword: 'empty', params: {}, message: `${what} has no body in the reference` }];
    return empty;
  };
  validate.errors = null as ValidateFunction['errors'];
  return validate as unknown as ValidateFunction;
};

/** An ajv validate function for the request body the reference declares for `method path`. Throws when it takes none. */
export const referenceRequestValidator = (method: string, path: string): ValidateFunction => {
  const op = referenceOperation(method, path);
  const schema = requestSchemaOf(op);
  if (!schema) throw new Error(`the reference declares no request body for ${op.key}`);
  return compileFor(`request ${op.key}`, schema, 'request');
};

/** ajv's errors as one line, for assertion messages. */
export const referenceErrors = (validate: ValidateFunction): string => ajvForReference().errorsText(validate.errors, { separator: '; ' });

/** The `example` the reference gives for a component (AccountDTO, PositionRequestDTO, ...). */
export const referenceExample = (component: string): unknown => {
  const example = loadReference().components?.schemas?.[component]?.example;
  if (example === undefined) throw new Error(`the reference gives no example for ${component}`);
  return structuredClone(example);
};

/** An ajv validate function for one component schema of the reference (FeatureDailyProfitTargetDTO), as answered or as sent. */
export const referenceComponentValidator = (component: string, direction: Direction = 'response'): ValidateFunction => {
  const schema = loadReference().components?.schemas?.[component];
  if (!schema) throw new Error(`the reference has no component ${component}`);
  return compileFor(`component ${direction} ${component}`, schema, direction);
};
