// LogDTO (the reference's, with our extras), LogTypeDTO, and the queries and parameters of the log routes.
import { Type } from '@sinclair/typebox';
import { MAX_ACKNOWLEDGED_AT_ONCE } from '../../domain/accountLog/decider.js';
import { EnumObject } from '../shared/enumObjects.js';
import { Int32, IsoDateTime, Nullable, Uuid } from '../shared/schemas.js';

export const LogQuery = Type.Object(
  {
    limit: Type.Optional(Int32({ minimum: 1, maximum: 1000, description: 'the last N entries; default 100, at most 1000' })),
    offset: Type.Optional(Int32({ minimum: 0, description: 'entries skipped from the newest: offset 100 means entries 101 to 200' })),
    start: Type.Optional(Type.String({ format: 'date-time', description: 'ISO 8601: entries at or after it' })),
    stop: Type.Optional(Type.String({ format: 'date-time', description: 'ISO 8601: entries at or before it' })),
    logTypeId: Type.Optional(
      Int32({ minimum: 1, maximum: 3, description: '1 Error, 2 Warning, 3 Info: that level and the lower ones (3 returns 1, 2 and 3); default 3' }),
    ),
  },
  { additionalProperties: false },
);

/** A log entry's id: the global position in the event store of the event that wrote it. */
const LogId = Type.Integer({
  minimum: 0,
  maximum: Number.MAX_SAFE_INTEGER,
  format: 'int64',
  description:
    "the entry's id: the position in the event store of the event that wrote it, so unique across the installation and the same after a rebuild of the read model; increasing with time only roughly (concurrent writes), so order by date",
});

export const LogDTO = Type.Object(
  {
    id: LogId,
    date: IsoDateTime,
    text: Type.String({ description: 'what happened, in words; for a trade not copied, why' }),
    logType: Type.Union([Type.Literal('Error'), Type.Literal('Warning'), Type.Literal('Info')], {
      description: 'the name of the log type (GET /types/logTypes); the reference types it as a string',
    }),
    accountId: Uuid,
    projectId: Uuid,
    acknowledged: Type.Boolean({ description: 'set by PUT /projects/{projectId}/logs/.../acknowledge; false until then' }),
    customerEmail: Type.Optional(
      Type.String({ description: "the reference's white-label customer of the account; this service has no customers, so it is never present" }),
    ),
    logTypeId: Type.Integer({ description: 'ours: the id of logType, 1 Error, 2 Warning, 3 Info' }),
    category: Type.Union([Type.Literal('CONNECTION'), Type.Literal('TRADING'), Type.Literal('COPY'), Type.Literal('BALANCE'), Type.Literal('PROTECTION')], {
      description: 'ours. PROTECTION: risk limits and profit targets (period references, hits, locks, closes, resets)',
    }),
    code: Nullable(Type.String({ description: "ours: skip reason (e.g. VOLUME_BELOW_MINIMUM) or the broker's error code (e.g. [NOT_ENOUGH_MONEY])" })),
    copierId: Nullable(Uuid),
    positionId: Nullable(Type.String({ description: "ours: the position or pending order concerned (for a skip: the master's)" })),
  },
  { $id: 'LogDTO', additionalProperties: false },
);

export const LogTypeDTO = EnumObject('LogTypeDTO', 'A log level: 1 Error, 2 Warning, 3 Info (LogDTO.logType is its name)');

export const ProjectLogParams = Type.Object({ projectId: Uuid }, { additionalProperties: false });
export const ProjectLogIdParams = Type.Object({ projectId: Uuid, id: LogId }, { additionalProperties: false });
export const LogIdList = Type.Array(LogId, {
  maxItems: MAX_ACKNOWLEDGED_AT_ONCE,
  description: `ids of entries of the project's logs (LogDTO.id), at most ${MAX_ACKNOWLEDGED_AT_ONCE}; an empty list changes nothing`,
});
