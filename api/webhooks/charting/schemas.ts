// ChartingDataDTO and the parameters of the charting webhook's operations. The spec names the
// operations (/webhooks/charting/accounts/{accountId}/data, .../data/{dataId}) and the address shape
// (/webhooks/charting/{webhookId}); the reference document has none of them, so the shapes are ours.
import { Type } from '@sinclair/typebox';
import { IsoDateTime, Uuid } from '../../shared/schemas.js';

const Level = Type.Object(
  {
    kind: Type.Union([Type.Literal('price'), Type.Literal('points')], { description: 'price: a price; points: a distance in points from the entry' }),
    value: Type.Number(),
  },
  { additionalProperties: false },
);

/** The alert as read (ours): what the grammar understood. */
export const ChartingAlertDTO = Type.Object(
  {
    action: Type.Union([Type.Literal('open'), Type.Literal('close'), Type.Literal('modify')]),
    symbol: Type.String(),
    side: Type.Union([Type.Literal('buy'), Type.Literal('sell'), Type.Null()], { description: 'null: a close or modify of both sides' }),
    entry: Type.Optional(
      Type.Object(
        { kind: Type.Union([Type.Literal('market'), Type.Literal('limit'), Type.Literal('stop')]), price: Type.Optional(Type.Number()) },
        { additionalProperties: false },
      ),
    ),
    sizing: Type.Optional(
      Type.Object(
        { kind: Type.Union([Type.Literal('volume'), Type.Literal('riskPercent'), Type.Literal('riskAmount')]), value: Type.Number() },
        { additionalProperties: false },
      ),
    ),
    stopLoss: Type.Optional(Type.Union([Level, Type.Null()])),
    takeProfits: Type.Optional(Type.Array(Level)),
    takeProfit: Type.Optional(Type.Union([Level, Type.Null()])),
    comment: Type.Union([Type.String(), Type.Null()]),
  },
  { $id: 'ChartingAlertDTO', additionalProperties: false, description: 'ours: the alert as the service read it' },
);

export const ChartingOutcomeDTO = Type.Object(
  {
    attempt: Type.Integer({ minimum: 1, description: '1: at arrival; 2, 3, ...: the retries' }),
    at: IsoDateTime,
    kind: Type.Union(
      ['OPENED', 'PLACED', 'MODIFIED', 'CLOSED', 'REFUSED', 'RETRYING', 'GAVE_UP', 'NOTHING_TO_DO'].map((k) => Type.Literal(k)),
      {
        description:
          'OPENED a position, PLACED a pending order, MODIFIED, CLOSED (or cancelled), REFUSED (by the broker, or the alert itself: code says which), RETRYING (the next attempt is due), GAVE_UP (openRetryTimeoutInMinutes passed, or openRetry off), NOTHING_TO_DO',
      },
    ),
    leg: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], { description: 'the take-profit leg of an open (one position per take profit)' }),
    positionId: Type.Union([Type.String(), Type.Null()]),
    volume: Type.Union([Type.Number(), Type.Null()]),
    code: Type.Union([Type.String(), Type.Null()], {
      description:
        "[ALERT_UNREADABLE] the message does not read, [ALERT_REFUSED] it cannot be traded (sizing, stops), else the broker's code ([MARKET_CLOSED], ...)",
    }),
    message: Type.String(),
  },
  { $id: 'ChartingOutcomeDTO', additionalProperties: false },
);

export const ChartingDataDTO = Type.Object(
  {
    id: Uuid,
    accountId: Uuid,
    featureId: Type.String({ format: 'uuid', description: 'the FeatureChartingWebhookDTO that received it' }),
    received: IsoDateTime,
    format: Type.Union([Type.Literal('JSON'), Type.Literal('TEXT')]),
    message: Type.String({ description: 'the body as received (at most 4000 characters kept)' }),
    alert: Type.Union([ChartingAlertDTO, Type.Null()], { description: 'what the message was read as; null when it did not read' }),
    status: Type.Union(
      ['RECEIVED', 'COMPLETED', 'PARTIAL', 'RETRYING', 'REFUSED'].map((s) => Type.Literal(s)),
      {
        description: 'COMPLETED everything asked was done; PARTIAL some of it; RETRYING waiting for its next attempt; REFUSED nothing was done',
      },
    ),
    attempts: Type.Integer({ minimum: 0 }),
    retryUntil: Type.Union([IsoDateTime, Type.Null()], { description: 'an open: until when refused legs are retried (openRetry); null otherwise' }),
    nextAttemptAt: Type.Union([IsoDateTime, Type.Null()], { description: 'while RETRYING: when the next attempt is due' }),
    outcomes: Type.Array(ChartingOutcomeDTO, { description: 'what every attempt did, in order' }),
  },
  { $id: 'ChartingDataDTO', additionalProperties: false },
);

export const ChartingDataParams = Type.Object({ accountId: Uuid, dataId: Uuid }, { additionalProperties: false });

export const ChartingDataQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'default 100' })),
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'skips from the newest; default 0' })),
  },
  { additionalProperties: false },
);
