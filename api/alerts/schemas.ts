// Schemas of calendar alerts, standing alert rules and notification channels (spec "Economic calendar,
// news and alerts": CalendarAlertDTO, CalendarAlertRuleDTO, NotificationTargetDTO, NotificationChannelDTO,
// NotificationRecipientDTO). Neither the reference document nor the spec gives their members: these are
// ours, documented in each operation.
import { Type } from '@sinclair/typebox';
import { ALERT_LIMITS } from '../../domain/alerts/decider.js';
import { IMPACTS } from '../../domain/calendar/entry.js';
import { MAX_TARGETS } from '../../domain/notification/targets.js';
import { IsoDateTime, Nullable, Uuid } from '../shared/schemas.js';

export const ProjectParams = Type.Object({ projectId: Uuid }, { additionalProperties: false });
export const AlertParams = Type.Object({ projectId: Uuid, alertId: Uuid }, { additionalProperties: false });
export const RuleParams = Type.Object({ projectId: Uuid, ruleId: Uuid }, { additionalProperties: false });

export const NotificationTargetDTO = Type.Object(
  {
    featureId: Type.String({ format: 'uuid', description: 'the channel: a featureId of GET /projects/{projectId}/notificationChannels' }),
    recipient: Type.Optional(
      Nullable(
        Type.String({
          minLength: 1,
          maxLength: 254,
          description: 'the recipient within the channel, a NotificationRecipientDTO key: the e-mail address for EMAIL (required); null (default) for WEBHOOK',
        }),
      ),
    ),
  },
  { $id: 'NotificationTargetDTO', additionalProperties: false, description: 'where a notification goes: a channel, optionally narrowed to one recipient' },
);

const Targets = Type.Array(NotificationTargetDTO, {
  minItems: 1,
  maxItems: MAX_TARGETS,
  description: `1 to ${MAX_TARGETS} targets; a repeated one counts once`,
});
const LeadMinutes = Type.Integer({
  minimum: ALERT_LIMITS.leadMinutes.min,
  maximum: ALERT_LIMITS.leadMinutes.max,
  description: `minutes before the event the alert fires, ${ALERT_LIMITS.leadMinutes.min} to ${ALERT_LIMITS.leadMinutes.max}`,
});
const ImpactName = Type.Union(
  IMPACTS.map((i) => Type.Literal(i)),
  { description: 'HOLIDAY, NONE, LOW, MEDIUM, HIGH' },
);
const Currency = Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code (ALL: releases of no one currency)' });

export const CalendarAlertEventDTO = Type.Object(
  { title: Type.String(), country: Type.String(), currency: Type.String(), impact: ImpactName, time: IsoDateTime },
  { additionalProperties: false, description: 'the calendar event as it is now' },
);

export const CalendarAlertDTO = Type.Object(
  {
    id: Uuid,
    eventId: Uuid,
    event: Nullable(CalendarAlertEventDTO),
    leadMinutes: Type.Integer(),
    fireAt: Nullable(Type.String({ format: 'date-time', description: 'the event time minus the lead time (follows a revised event time)' })),
    targets: Type.Array(NotificationTargetDTO),
    ruleId: Nullable(Type.String({ format: 'uuid', description: 'the standing rule that armed it; null: armed by hand (manual)' })),
    manual: Type.Boolean({ description: 'armed by hand: only these can be changed (PUT)' }),
    status: Type.Union([Type.Literal('PENDING'), Type.Literal('FIRED'), Type.Literal('DISARMED'), Type.Literal('MISSED')], {
      description:
        'PENDING until it fires (FIRED); DISARMED by hand, by its rule deleted or narrowed, or its project deleted; MISSED: not sent, its event was more than 15 minutes past when the scheduler came to it (the service was down, or it was armed on an event already past)',
    }),
    created: IsoDateTime,
    updated: IsoDateTime,
    firedAt: Nullable(IsoDateTime),
    deliveries: Nullable(Type.Integer({ description: 'deliveries enqueued when it fired (one per target still a channel)' })),
    disarmReason: Nullable(
      Type.Union([Type.Literal('DISARMED'), Type.Literal('RULE_DELETED'), Type.Literal('RULE_NARROWED'), Type.Literal('PROJECT_DELETED')], {
        description:
          'ours: why a DISARMED alert was disarmed: DISARMED by hand (DELETE), RULE_DELETED, RULE_NARROWED (its rule no longer takes the event; widening the rule again re-arms it at the next sync), PROJECT_DELETED; null for every other status',
      }),
    ),
  },
  { $id: 'CalendarAlertDTO', additionalProperties: false },
);

export const CalendarAlertRequestDTO = Type.Object(
  {
    eventId: Type.String({ format: 'uuid', description: 'the calendar event (GET /projects/{projectId}/economicCalendar)' }),
    leadMinutes: Type.Optional({ ...LeadMinutes, default: 15 }),
    targets: Targets,
  },
  { $id: 'CalendarAlertRequestDTO', additionalProperties: false },
);

export const CalendarAlertUpdateDTO = Type.Object(
  { leadMinutes: Type.Optional(LeadMinutes), targets: Type.Optional(Targets) },
  { $id: 'CalendarAlertUpdateDTO', additionalProperties: false, description: 'the members to change; the others stay' },
);

export const AlertListQuery = Type.Object(
  {
    status: Type.Optional(
      Type.Union([Type.Literal('PENDING'), Type.Literal('FIRED'), Type.Literal('DISARMED'), Type.Literal('MISSED')], { description: 'default PENDING' }),
    ),
    eventId: Type.Optional(Type.String({ format: 'uuid', description: 'only the alerts of this event' })),
  },
  { additionalProperties: false },
);

export const CalendarAlertRuleDTO = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    currencies: Type.Array(Type.String(), { description: 'empty: every currency' }),
    impacts: Type.Array(ImpactName),
    leadMinutes: Type.Integer(),
    targets: Type.Array(NotificationTargetDTO),
    created: IsoDateTime,
    updated: IsoDateTime,
  },
  { $id: 'CalendarAlertRuleDTO', additionalProperties: false },
);

export const CalendarAlertRuleRequestDTO = Type.Object(
  {
    id: Type.Optional(Type.String({ format: 'uuid', description: 'a rule of this project to update; absent: a new rule' })),
    name: Type.String({ minLength: 1, maxLength: 100 }),
    currencies: Type.Optional(Type.Array(Currency, { maxItems: 30, uniqueItems: true, description: 'default empty: every currency' })),
    impacts: Type.Optional(Type.Array(ImpactName, { minItems: 1, uniqueItems: true, description: 'default [HIGH]' })),
    leadMinutes: Type.Optional({ ...LeadMinutes, default: 15 }),
    targets: Targets,
  },
  { $id: 'CalendarAlertRuleRequestDTO', additionalProperties: false },
);

export const NotificationRecipientDTO = Type.Object(
  { key: Type.String({ description: 'the value of NotificationTargetDTO.recipient' }), name: Type.String() },
  { $id: 'NotificationRecipientDTO', additionalProperties: false },
);

const Count = Type.Integer({ minimum: 0 });
export const NotificationChannelDTO = Type.Object(
  {
    featureId: Uuid,
    channel: Type.Union(
      ['WEBHOOK', 'EMAIL', 'TELEGRAM', 'DISCORD', 'OFFLINE'].map((c) => Type.Literal(c)),
      {
        description:
          "WEBHOOK: a FeatureWebhookDTO of the project or of one of its accounts; EMAIL: the service e-mail (SMTP_URL) of the project; TELEGRAM, DISCORD, OFFLINE: a FeatureMessagingNotificationDTO (by its bot's platform) or FeatureTelegramNotificationDTO (TELEGRAM) of the project or of one of its accounts",
      },
    ),
    name: Type.String(),
    accountId: Nullable(Type.String({ format: 'uuid', description: "an account-level channel's account; null: the project's" })),
    recipientRequired: Type.Boolean(),
    recipients: Type.Array(NotificationRecipientDTO, {
      description:
        'recipients known to the channel (EMAIL: the addresses its targets use now; a chat channel: its chats, key "chatId" or "chatId/forumTopicId", or the Telegram usernames; recipient null sends to all of them)',
    }),
    deliveries: Type.Object(
      { PENDING: Count, DELIVERED: Count, FAILED: Count, CANCELLED: Count },
      { additionalProperties: false, description: "the channel's deliveries by status (finished ones are kept 7 days)" },
    ),
  },
  { $id: 'NotificationChannelDTO', additionalProperties: false },
);

export const ChannelsQuery = Type.Object(
  { accountId: Type.Optional(Type.String({ format: 'uuid', description: "an account of this project: its own channels and the project's" })) },
  { additionalProperties: false },
);
