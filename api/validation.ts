// Request validation with ajv over TypeBox schemas: the same schema objects feed the OpenAPI document.
import type { TSchema } from '@sinclair/typebox';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { ApiError } from './errors.js';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv,
) => Ajv;

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

/** The first string (or member name) PostgreSQL cannot store: a NUL character or a lone surrogate. */
const unstorableText = (value: unknown, at: string): string | null => {
  if (typeof value === 'string') return value.includes('\u0000') || !value.isWellFormed() ? at : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = unstorableText(value[i], `${at}.${i}`);
      if (found) return found;
    }
    return null;
  }
  if (value && typeof value === 'object') {
    for (const [key, member] of Object.entries(value)) {
      const found = unstorableText(key, `${at}.${key}`) ?? unstorableText(member, `${at}.${key}`);
      if (found) return found;
    }
  }
  return null;
};

export const validate = <T>(schema: TSchema, value: unknown, where: 'body' | 'query' | 'path'): T => {
  const unstorable = unstorableText(value, where);
  if (unstorable) {
    const message = 'contains a NUL character or an unpaired surrogate';
    throw new ApiError(400, '[VALIDATION_FAILED]', `${unstorable} ${message}`, [{ field: unstorable, message }]);
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
