// The auditor's timeline and the account at an instant (ours; the reference has neither): the wire
// shapes of app/timeline.ts. Event data and settings are as the event store holds them (the events'
// own member names), secrets masked.
import { Type } from '@sinclair/typebox';
import { Int32, Nullable, Uuid } from '../shared/schemas.js';

const Str = Type.String();
const Json = Type.Unknown({ description: 'as the event store holds it (secrets masked as "***")' });

export const TimelineQuery = Type.Object(
  {
    until: Type.Optional(Type.String({ format: 'date-time', description: 'ISO 8601: only events recorded at or before it' })),
    offset: Type.Optional(Int32({ minimum: 0, description: 'events skipped from the oldest; default 0' })),
    limit: Type.Optional(Int32({ minimum: 1, maximum: 5000, description: 'events answered at most; default 1000, at most 5000' })),
  },
  { additionalProperties: false },
);

export const StateAtQuery = Type.Object(
  {
    instant: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'ISO 8601: the account as the events recorded at or before it make it, to the millisecond. Give instant or position, not both',
      }),
    ),
    position: Type.Optional(
      Type.String({
        pattern: '^[0-9]+:[0-9]+$',
        description:
          "a timeline entry's position (`commit:prepare`): the account right after that event, exact even when several events share a millisecond. Give instant or position, not both",
      }),
    ),
  },
  { additionalProperties: false },
);

export const CauseDTO = Type.Object(
  {
    kind: Type.Union(
      ['API_KEY', 'ENGINE', 'VENUE', 'PROTECTION', 'SCHEDULE', 'SYSTEM'].map((k) => Type.Literal(k)),
      {
        description:
          'who caused the event: API_KEY (a request; apiKeyId, clientIp, method and path say which), ENGINE (the copy engine), VENUE (what the venue reported: fills, closes, balance, the connection), PROTECTION (risk limits, profit targets, trade guardrails), SCHEDULE (maintenance windows), SYSTEM (the service itself: bootstrap, retries)',
      },
    ),
    apiKeyId: Nullable(Uuid),
    clientIp: Nullable(Str),
    method: Nullable(Str),
    path: Nullable(Str),
    correlationId: Nullable(Str),
  },
  { $id: 'TimelineCauseDTO' },
);

export const TimelineEntryDTO = Type.Object(
  {
    position: Type.String({ description: "the event's place in the store's $all order, `commit:prepare`" }),
    time: Type.String({ format: 'date-time', description: 'when the store recorded it' }),
    stream: Type.String({ description: 'account-, positions-, protection-, copier- or copies-<id>' }),
    revision: Type.String({ description: "the event's revision in its stream" }),
    type: Str,
    cause: CauseDTO,
    data: Json,
    after: Type.Object(
      {
        status: Nullable(Type.String({ description: "the account's status name after the event" })),
        balance: Type.Number({ description: 'deposits, withdrawals and closed trades so far, as the venue reported them' }),
        openPositions: Type.Integer(),
        pendingOrders: Type.Integer(),
        copiers: Type.Integer({ description: 'copiers copying into the account' }),
      },
      { description: 'the account after this event' },
    ),
  },
  { $id: 'TimelineEntryDTO' },
);

export const TimelineDTO = Type.Object(
  {
    accountId: Uuid,
    total: Type.Integer({ description: 'events of the account up to `until` (all of them without it)' }),
    entries: Type.Array(TimelineEntryDTO),
  },
  { $id: 'TimelineDTO' },
);

const CopierAtInstantDTO = Type.Object({
  id: Uuid,
  fromAccountId: Uuid,
  settings: Type.Record(Type.String(), Type.Unknown(), { description: "the copier's settings as its events state them" }),
  symbolMappings: Type.Record(Type.String(), Type.String()),
});

export const AccountStateAtDTO = Type.Object(
  {
    accountId: Uuid,
    instant: Type.String({
      format: 'date-time',
      description: 'the instant asked for; with position, the time the store recorded that event',
    }),
    eventsReplayed: Type.Integer(),
    lastEvent: Nullable(Type.Object({ position: Str, time: Type.String({ format: 'date-time' }), type: Str })),
    account: Type.Object({
      exists: Type.Boolean({ description: 'false before the account was created' }),
      projectId: Nullable(Uuid),
      status: Nullable(Type.Object({ id: Type.Integer(), name: Str })),
      settings: Nullable(Type.Record(Type.String(), Type.Unknown(), { description: 'its settings as its events state them, secrets masked' })),
      balance: Type.Number({ description: 'deposits, withdrawals and closed trades until the instant, as the venue reported them' }),
      connected: Type.Boolean({ description: 'its venue session was connected' }),
      positions: Type.Array(Type.Record(Type.String(), Type.Unknown()), {
        description: 'open positions (positionId, symbol, orderType, volume, openPrice, openTime, stopLoss, takeProfit, ...)',
      }),
      pendingOrders: Type.Array(Type.Record(Type.String(), Type.Unknown()), {
        description: 'pending orders (orderId, symbol, orderType, volume, openPrice, ...)',
      }),
      copiers: Type.Array(CopierAtInstantDTO, { description: 'copiers copying into the account' }),
    }),
  },
  { $id: 'AccountStateAtDTO' },
);
