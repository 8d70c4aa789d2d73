// The inbound charting webhook (spec: FeatureChartingWebhookDTO, address `/webhooks/charting/{webhookId}`):
// charting platforms POST alerts here without an API key; the long random webhookId in the path is the
// credential. Served before authentication (api/app.ts), with its own body parser: any content type is
// read as text (platforms send JSON as text/plain), at most CHARTING_BODY_LIMIT bytes (413 beyond).
//
// The webhookId is a secret: it never reaches the service log or the audit trail in full. The request
// context recorded with the alert's events carries the path with the id masked, and errors are logged
// here with the masked path (the generic error handler would log req.path).
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { Type } from '@sinclair/typebox';
import { receiveChartingAlert } from '../../../app/chartingWebhook/alerts.js';
import { WEBHOOK_ID_PATTERN } from '../../../app/chartingWebhook/webhookIds.js';
import type { Services } from '../../../app/services.js';
import { maskedWebhookId } from '../../../domain/chartingWebhook/feature.js';
import { ALERT_LIMITS } from '../../../domain/chartingWebhook/message.js';
import type { RequestContext } from '../../../domain/shared/command.js';
import { ApiError, errorBody, toApiError } from '../../errors.js';
import type { Routes } from '../../route.js';
import { ErrorDTO } from '../../shared/schemas.js';
import { toChartingDataDTO } from './dto.js';
import { ChartingDataDTO } from './schemas.js';

/** The body size limit of an alert. */
export const CHARTING_BODY_LIMIT = '16kb';

export const CHARTING_INBOUND_PATH = '/webhooks/charting/{webhookId}';

const GRAMMAR = `Two formats, told apart by the first character (\`{\` or \`[\`: JSON) or an application/json content type; any content type is accepted (platforms send text/plain).
JSON: an object of symbol (or ticker; an exchange prefix "FX:" is dropped), action or side (buy, sell, long, short; close, flat, exit; modify), one of volume (or lots, qty, quantity, contracts), riskPercent, riskAmount; stopLoss (or sl) as a price or stopLossPoints (or slPoints) as a distance in points; takeProfit (or tp) as a price or an array of prices (one position per take profit), or takeProfitPoints (or tpPoints); orderType market (default), limit or stop with price; comment (at most 200 characters). Numbers may be strings. Unknown members are refused.
Text: words and key=value pairs (also key: value, key = value) in any order, separated by spaces, new lines or ";": "buy EURUSD 0.1 sl=1.0850 tp=1.0950/1.1000 comment=breakout", "sell limit US500 risk=1% price=5010 sl=30pts tp1=60pts tp2=120pts", "close EURUSD", "flat XAUUSD long", "modify EURUSD sl=1.0870". A bare number is the volume; risk=1% is riskPercent, risk=50 riskAmount; "@5010" is price=5010; a level ending in pts/points/p is a distance in points from the entry; comment= takes the rest of its line.
Numbers: "1.5" and "1,5" are 1.5; with both separators the last one written is the decimal one ("1.000,50" and "1,000.50" are 1000.5); several of one separator group thousands ("1.000.000"); no exponents, at most 15 significant digits. Bounds: volume up to ${ALERT_LIMITS.volume}, prices up to ${ALERT_LIMITS.price}, riskPercent up to 100, ${ALERT_LIMITS.takeProfits} take profits.
Sizing: volume is the whole trade, split evenly over the take-profit legs; riskPercent (of the balance) and riskAmount (account currency) need a stop loss and the account-level FeatureRiskPerTradeDTO (its tickValue members give the value of a point): lots = risk / (points to the stop loss x value of a point of one lot). Every leg is rounded down to the lot step and capped by maxAllowedVolume (0 or null: no cap) and the symbol's maximum; a leg below the symbol's minimum is refused. Close and flat close every open position and cancel every pending order of the symbol (of one side when given); modify sets the stop loss and take profit of each (distances from each one's open price).`;

export const chartingInboundSpec = (routes: Routes): void => {
  routes.add<{ webhookId: string }, unknown, unknown>({
    method: 'post',
    path: CHARTING_INBOUND_PATH,
    tag: 'Charting webhook',
    operationId: 'receiveChartingAlert',
    summary: 'An alert from a charting platform',
    description: `No X-API-KEY: webhookId (FeatureChartingWebhookDTO.webhookUrl) is the credential; an unknown, rotated or removed one answers 404 [WEBHOOK_NOT_FOUND]. Each webhook takes rateLimitPerMinute alerts a minute (default 60; beyond: 429 [RATE_LIMITED] with Retry-After, not stored, nothing traded); a body above ${CHARTING_BODY_LIMIT} answers 413 [PAYLOAD_TOO_LARGE]. Every other alert is stored as charting data (GET /webhooks/charting/accounts/{accountId}/data) and attempted at once: 200 with the charting data when it was done (COMPLETED or PARTIAL), 202 when the broker refused or did not answer and it is retried (RETRYING: every 30 seconds until openRetryTimeoutInMinutes for an open, until done for a close), 422 with the first reason when nothing was done ([ALERT_UNREADABLE]: it does not read; [ALERT_REFUSED]: it cannot be sized or its stops are on the wrong side; or the broker's code; details.dataId names the stored data). Orders go to the account's broker through the Trading API's path (recorded as its trading requests, with client order ids fixed per alert and leg: a retry never opens twice) and are copied to the account's slaves like any of its trades.\n\n${GRAMMAR}`,
    params: Type.Object(
      { webhookId: Type.String({ description: 'the secret of the address (43 characters)', minLength: 1, maxLength: 128 }) },
      { additionalProperties: false },
    ),
    body: Type.Unknown({ description: 'a JSON alert, or a text alert (text/plain): see the description' }),
    authenticated: false,
    responses: {
      200: { description: 'done (COMPLETED or PARTIAL)', schema: ChartingDataDTO },
      202: { description: 'the broker refused or did not answer; retried (RETRYING)', schema: ChartingDataDTO },
      404: { description: 'no webhook with this id ([WEBHOOK_NOT_FOUND])', schema: ErrorDTO },
      413: { description: `the body is above ${CHARTING_BODY_LIMIT} ([PAYLOAD_TOO_LARGE])`, schema: ErrorDTO },
      422: { description: 'nothing was done: details.dataId names the stored charting data', schema: ErrorDTO },
      429: { description: 'rateLimitPerMinute reached ([RATE_LIMITED]); Retry-After says when', schema: ErrorDTO },
    },
    handler: () => Promise.reject(new Error('served by api/webhooks/charting/inbound.ts before authentication')),
  });
};

/** The request's path with the webhookId masked: what the records and the log may keep. */
const maskedPath = (req: Request): string => {
  const id = String(req.params.webhookId ?? '');
  const path = req.originalUrl.split('?')[0] ?? req.originalUrl;
  return id ? path.replace(id, maskedWebhookId(id)) : path;
};

const contextOf = (req: Request, res: Response): RequestContext => ({
  apiKeyId: null,
  projectId: null,
  clientIp: req.ip ?? null,
  method: req.method,
  path: maskedPath(req),
  correlationId: res.locals.correlationId as string,
});

const answerError = (services: Services, req: Request, res: Response, error: unknown): void => {
  const apiError = toApiError(error);
  if (res.headersSent) return;
  if (apiError) {
    res.set(apiError.headers).status(apiError.status).json(errorBody(apiError));
    return;
  }
  services.log.error(`unhandled error on ${req.method} ${maskedPath(req)}`, error);
  res.status(500).json({ error: '[INTERNAL_ERROR]', message: 'an unexpected error occurred; it was logged' });
};

/** The handlers of POST /webhooks/charting/:webhookId, mounted before authentication. */
export const chartingInbound = (services: Services): (RequestHandler | express.ErrorRequestHandler)[] => [
  express.text({ type: () => true, limit: CHARTING_BODY_LIMIT }),
  async (req: Request, res: Response) => {
    try {
      const webhookId = String(req.params.webhookId ?? '');
      if (!WEBHOOK_ID_PATTERN.test(webhookId)) throw new ApiError(404, '[WEBHOOK_NOT_FOUND]', 'no charting webhook has this address');
      const body = typeof req.body === 'string' ? req.body : '';
      const row = await receiveChartingAlert(services, {
        webhookId,
        body,
        declaredJson: Boolean(req.is(['application/json', 'application/*+json'])),
        context: contextOf(req, res),
      });
      const dto = toChartingDataDTO(row);
      if (row.status === 'COMPLETED' || row.status === 'PARTIAL') {
        res.status(200).json(dto);
        return;
      }
      if (row.status === 'RETRYING') {
        res.status(202).json(dto);
        return;
      }
      const why = row.outcomes.filter((o) => o.kind === 'REFUSED' || o.kind === 'GAVE_UP' || o.kind === 'NOTHING_TO_DO');
      res.status(422).json({
        error: why.find((o) => o.code)?.code ?? '[ALERT_REFUSED]',
        message: why.map((o) => o.message).join('; ') || 'nothing was done',
        details: { dataId: row.id, status: row.status },
      });
    } catch (error) {
      answerError(services, req, res, error);
    }
  },
  (error: unknown, req: Request, res: Response, _next: NextFunction) => answerError(services, req, res, error),
];

/** The document's alert operation takes text too: the grammar's examples under text/plain. */
export const withTextAlerts = <T>(document: T): T => {
  const operation = (document as { paths?: Record<string, { post?: { requestBody?: { content?: Record<string, unknown> } } }> }).paths?.[CHARTING_INBOUND_PATH]
    ?.post;
  const content = operation?.requestBody?.content;
  if (content) {
    content['text/plain'] = {
      schema: { type: 'string', maxLength: ALERT_LIMITS.text },
      examples: {
        market: { value: 'buy EURUSD 0.1 sl=1.0850 tp=1.0950/1.1000 comment=breakout' },
        pendingByRisk: { value: 'sell limit US500 risk=1% price=5010 sl=30pts tp1=60pts tp2=120pts' },
        close: { value: 'close EURUSD' },
        modify: { value: 'modify EURUSD sl=1.0870' },
      },
    };
    content['application/json'] = {
      ...(content['application/json'] as object),
      examples: {
        tradingView: { value: { ticker: 'FX:EURUSD', action: 'buy', contracts: '0.1', sl: '1.0850', tp: ['1.0950', '1.1000'] } },
        risk: { value: { symbol: 'XAUUSD', side: 'sell', riskPercent: 1, stopLossPoints: 500, takeProfitPoints: [500, 1000] } },
        flat: { value: { symbol: 'EURUSD', action: 'flat' } },
      },
    };
  }
  return document;
};
