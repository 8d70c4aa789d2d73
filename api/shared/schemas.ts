// Schemas shared by every area of the API.
import { type TProperties, type TSchema, Type } from '@sinclair/typebox';
import { MAX_JSON_DEPTH } from '../validation.js';

export const Uuid = Type.String({ format: 'uuid', description: 'UUID' });
export const IsoDateTime = Type.String({ format: 'date-time', description: 'ISO 8601 date-time with offset' });
/** A query bound: a date-time, or a whole day (YYYY-MM-DD, UTC: from its first to its last millisecond). */
export const IsoDateOrDateTime = Type.String({
  anyOf: [{ format: 'date-time' }, { format: 'date' }],
  description: 'ISO 8601 date-time with offset, or a date (YYYY-MM-DD, a whole UTC day)',
});
/**
 * Each member states the default the service fills in when it is left out (numbers and booleans of
 * `defaults`; a member that states its own keeps it), as the reference document does: a generated
 * client's defaults are then the service's.
 */
export const withDefaults = <P extends TProperties>(defaults: object, properties: P): P => {
  const values = defaults as Record<string, unknown>;
  return Object.fromEntries(
    Object.entries(properties).map(([name, schema]) => {
      const value = values[name];
      const stated = schema.default !== undefined || (typeof value !== 'number' && typeof value !== 'boolean');
      return [name, stated ? schema : { ...schema, default: value }];
    }),
  ) as P;
};

/**
 * The schema or null. A default of the schema is also said on the union itself: generated clients read a
 * property's `default` at its top level, not inside an `anyOf` branch.
 */
export const Nullable = <T extends TSchema>(schema: T) =>
  Type.Union([schema, Type.Null()], schema.default === undefined ? {} : { default: schema.default as unknown });

export const ErrorDTO = Type.Object(
  {
    error: Type.String({ description: 'error code in square brackets, e.g. [ACCOUNT_NOT_FOUND]' }),
    message: Type.String(),
    details: Type.Optional(Type.Unknown({ description: 'for [VALIDATION_FAILED]: the failing fields' })),
  },
  { $id: 'ErrorDTO' },
);

export const Int32 = (options: { minimum?: number; maximum?: number; description?: string; default?: number } = {}) =>
  Type.Integer({ minimum: -2147483648, maximum: 2147483647, ...options });

export const errorResponses = (...statuses: number[]) =>
  Object.fromEntries(
    statuses.map((s) => [
      s,
      {
        description:
          {
            400: `invalid path, query or body ([VALIDATION_FAILED], [MALFORMED_JSON], [JSON_TOO_DEEP] when it nests deeper than ${MAX_JSON_DEPTH} levels)`,
            401: 'missing, unknown, expired or revoked API key',
            403: 'the key may not do this, or its access policy refuses it ([FORBIDDEN_ENDPOINT_NOT_ALLOWED], [FORBIDDEN_IP_NOT_ALLOWED], [FORBIDDEN_ORIGIN_NOT_ALLOWED], [AI_KEY_ACCESS_POLICY_REQUIRED])',
            404: 'unknown resource, or one of another project',
            409: 'the resource is in a state that does not allow this, or concurrent requests kept changing it ([CONCURRENT_MODIFICATION]: nothing was changed; read it again and retry)',
            413: 'the body is larger than 1 MB',
            415: 'the body is not application/json',
            429: 'too frequent; Retry-After says when to try again',
            500: 'unexpected error (logged); nothing was changed unless the write was acknowledged',
            503: 'the database cannot be reached ([DATABASE_UNAVAILABLE]) or the service has more requests than it takes ([SERVICE_BUSY]), or the broker sessions of the accounts are moving to another instance of the service ([VENUE_SESSIONS_UNAVAILABLE], README "Running more than one instance"); Retry-After says when to try again',
          }[s] ?? 'error',
        schema: ErrorDTO,
      },
    ]),
  );
