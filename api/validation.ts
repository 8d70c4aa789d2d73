// Request validation with ajv over TypeBox schemas: the same schema objects feed the OpenAPI document.
import type { TSchema } from '@sinclair/typebox';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { ApiError } from './errors.js';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;

// discriminator: a polymorphic body (FeatureSettingDTO) is checked against the one branch its `type` names,
// so its errors speak of that feature's members, not of every other feature's.
const bodies = addFormats(new Ajv({ allErrors: true, strict: false, useDefaults: false, discriminator: true }));
// Query strings and path parameters arrive as text: integers and booleans are coerced.
const strings = addFormats(new Ajv({ allErrors: true, strict: false, coerceTypes: true, useDefaults: true }));

const cache = new WeakMap<object, ValidateFunction>();

const compile = (ajv: Ajv, schema: TSchema): ValidateFunction => {
  const key = schema as object;
  let fn = cache.get(key);
  if (!fn) {
    fn = ajv.compile(schema);
    cache.set(key, fn);
  }
  return fn;
};

const describeError = (where: string, e: ErrorObject): { field: string; message: string } => {
  const base = `${where}${e.instancePath.replace(/\//g, '.')}`;
  if (e.keyword === 'additionalProperties') {
    const extra = (e.params as { additionalProperty: string }).additionalProperty;
    return { field: `${base}.${extra}`, message: 'unknown member' };
  }
  if (e.keyword === 'required') {
    return { field: `${base}.${(e.params as { missingProperty: string }).missingProperty}`, message: 'is required' };
  }
  return { field: base, message: e.message ?? 'is invalid' };
};

/** One message per field: a nullable or anyOf member otherwise reports every branch it did not match. */
const unique = <T extends { field: string; message: string }>(items: T[]): T[] =>
  items.filter((item, i) => items.findIndex((o) => o.field === item.field) === i);

/** Deeper JSON is refused: no body of the API nests beyond a handful of levels (a webhook setting is 4). */
export const MAX_JSON_DEPTH = 64;

type TextProblem = { readonly at: string; readonly kind: 'unstorable' | 'tooDeep' };

interface Visit {
  readonly value: unknown;
  readonly key: string | null;
  readonly parent: Visit | null;
  readonly depth: number;
}

/** `body.a.0.b`: built only for the one value named in an error. */
const pathOf = (visit: Visit, root: string): string => {
  const keys: string[] = [];
  for (let v: Visit | null = visit; v && v.key !== null; v = v.parent) keys.push(v.key);
  return [root, ...keys.reverse()].join('.');
};

/**
 * The first string (or member name) PostgreSQL cannot store (a NUL character or a lone surrogate), or
 * the first value nested deeper than MAX_JSON_DEPTH, in document order. A loop over an explicit stack,
 * not recursion: hostile input (10,000 nested arrays) must not reach the call stack's limit.
 */
const textProblem = (root: unknown, rootAt: string): TextProblem | null => {
  const unstorable = (text: string) => text.includes('\u0000') || !text.isWellFormed();
  const stack: Visit[] = [{ value: root, key: null, parent: null, depth: 0 }];
  for (let visit = stack.pop(); visit; visit = stack.pop()) {
    const { value, key, parent, depth } = visit;
    if (key !== null && parent && !Array.isArray(parent.value) && unstorable(key)) return { at: pathOf(visit, rootAt), kind: 'unstorable' };
    if (typeof value === 'string') {
      if (unstorable(value)) return { at: pathOf(visit, rootAt), kind: 'unstorable' };
      continue;
    }
    if (!value || typeof value !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH) return { at: pathOf(visit, rootAt), kind: 'tooDeep' };
    // Pushed in reverse, so the members are visited in document order.
    const keys = Array.isArray(value) ? null : Object.keys(value);
    const count = keys ? keys.length : (value as unknown[]).length;
    for (let i = count - 1; i >= 0; i--) {
      const k = keys ? keys[i]! : String(i);
      stack.push({ value: (value as Record<string, unknown>)[k], key: k, parent: visit, depth: depth + 1 });
    }
  }
  return null;
};

export const validate = <T>(schema: TSchema, value: unknown, where: 'body' | 'query' | 'path'): T => {
  const problem = textProblem(value, where);
  if (problem?.kind === 'tooDeep') {
    throw new ApiError(400, '[JSON_TOO_DEEP]', `${where} nests deeper than ${MAX_JSON_DEPTH} levels (at ${problem.at.slice(0, 200)})`);
  }
  if (problem) {
    const message = 'contains a NUL character or an unpaired surrogate';
    throw new ApiError(400, '[VALIDATION_FAILED]', `${problem.at} ${message}`, [{ field: problem.at, message }]);
  }
  const fn = compile(where === 'body' ? bodies : strings, schema);
  if (fn(value)) return value as T;
  const branchNoise = new Set(['anyOf', 'oneOf', 'type']);
  const described = (fn.errors ?? []).map((e) => ({ ...describeError(where, e), keyword: e.keyword }));
  // Prefer the telling error (format, maxLength...) over "must be null" / "must match a schema in anyOf".
  described.sort((a, b) => Number(branchNoise.has(a.keyword)) - Number(branchNoise.has(b.keyword)));
  const errors = unique(described).map(({ field, message }) => ({ field, message }));
  const first = errors[0];
  throw new ApiError(
    400,
    '[VALIDATION_FAILED]',
    first ? `${first.field} ${first.message}` + (errors.length > 1 ? ` (and ${errors.length - 1} more)` : '') : `${where} is invalid`,
    errors,
  );
};
