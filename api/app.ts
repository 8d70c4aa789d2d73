// The express application: correlation ids, JSON bodies, authentication, one router per area of the
// spec, and errors in the spec's format.
import express, { type Request, type RequestHandler, type Response } from 'express';
import { configurationSummaryRoutes } from './accounts/configurationSummary.js';
import { accountRoutes } from './accounts/routes.js';
import { analyticsRoutes } from './analytics/routes.js';
import { approvalRoutes } from './approvals/routes.js';
import { corsForKey, corsPreflight } from './apiKeys/cors.js';
import { apiKeyRoutes } from './apiKeys/routes.js';
import { recorderOf } from './auditLogs/requestRecorder.js';
import { auditLogRoutes } from './auditLogs/routes.js';
import { brokerRoutes } from './brokers/routes.js';
import { calendarRoutes } from './calendar/routes.js';
import { customerRoutes } from './customers/routes.js';
import { declareSelfServiceRoutes, mountSelfServiceRoutes } from './customers/selfService.js';
import { marketNewsRoutes } from './marketNews/routes.js';
import { newsBookmarkRoutes } from './newsBookmarks/routes.js';
import { whiteLabelRoutes } from './whiteLabel/routes.js';
import { whiteLabelMoneyRoutes } from './whiteLabel/money.js';
import { payoutRoutes } from './payouts/routes.js';
import { newsFilterRoutes } from './newsFilter/routes.js';
import { calendarAlertRoutes } from './alerts/routes.js';
import { calendarFeed, calendarSubscriptionRoutes } from './calendarSubscriptions/routes.js';
import { notificationChannelRoutes } from './notificationChannels/routes.js';
import { databaseGate, databaseUnavailable, loadShedding } from './availability.js';
import { authenticate } from './auth.js';
import { copierRoutes } from './copiers/routes.js';
import { dashboardRoutes } from './dashboards/routes.js';
import { featureRoutes } from './features/routes.js';
import { projectFeatureRoutes } from './features/projectRoutes.js';
import { featureTypeRoutes } from './features/typeRoutes.js';
import { logRoutes } from './logs/routes.js';
import { investorProgramRoutes } from './investorProgram/routes.js';
import { marketplaceRoutes } from './marketplace/routes.js';
import { earningsRoutes } from './earnings/routes.js';
import { invoiceRoutes } from './invoices/routes.js';
import { profitTargetRoutes } from './profitTargets/routes.js';
import { projectRoutes } from './projects/routes.js';
import { riskLimitRoutes } from './riskLimits/routes.js';
import { signalRoutes } from './signals/routes.js';
import { strategyRoutes } from './strategies/routes.js';
import { symbolMappingRoutes } from './symbolMappings/routes.js';
import { chartingInbound, chartingInboundSpec, withTextAlerts } from './webhooks/charting/inbound.js';
import { chartingDataRoutes } from './webhooks/charting/routes.js';
import { messagingRoutes } from './messaging/routes.js';
import { templateRoutes } from './templates/routes.js';
import { tradingRoutes } from './trading/routes.js';
import { correlationId, requestContext } from './context.js';
import { FirstSegmentDispatch, inSequence, underSegments } from './dispatch.js';
import { errorHandler, methodNotAllowed, notFoundHandler } from './errors.js';
import { API_PREFIX, buildOpenApi } from './openapi.js';
import { type Caller, Routes } from './route.js';
import type { Services } from '../app/services.js';
import { typeRoutes } from './types/routes.js';
import { timelineRoutes } from './timeline/routes.js';
import { readModelRoutes } from './readModels/routes.js';
import { consoleRoutes } from './console.js';
import { docsRoutes } from './docs.js';
import { healthRoutes } from './health.js';
import { ServiceMetrics } from './metrics.js';

export const INTERFACE_VERSION = '1.2.6';

export const declareRoutes = (services: Services): Routes => {
  const routes = new Routes();
  // Copier routes first: /accounts/masters, /accounts/activateAllCopiers and /accounts/configurationSummary precede /accounts/{accountId}.
  copierRoutes(routes, services);
  symbolMappingRoutes(routes, services);
  strategyRoutes(routes, services);
  configurationSummaryRoutes(routes, services);
  accountRoutes(routes, services);
  timelineRoutes(routes, services);
  readModelRoutes(routes, services);
  tradingRoutes(routes, services);
  featureRoutes(routes, services);
  riskLimitRoutes(routes, services);
  profitTargetRoutes(routes, services);
  approvalRoutes(routes, services);
  projectFeatureRoutes(routes, services);
  featureTypeRoutes(routes);
  projectRoutes(routes, services);
  dashboardRoutes(routes, services);
  templateRoutes(routes, services);
  analyticsRoutes(routes, services);
  investorProgramRoutes(routes, services);
  marketplaceRoutes(routes, services);
  earningsRoutes(routes, services);
  invoiceRoutes(routes, services);
  logRoutes(routes, services);
  auditLogRoutes(routes, services);
  apiKeyRoutes(routes, services);
  typeRoutes(routes);
  brokerRoutes(routes, services);
  chartingDataRoutes(routes, services);
  messagingRoutes(routes, services);
  calendarRoutes(routes, services);
  marketNewsRoutes(routes, services);
  newsBookmarkRoutes(routes, services);
  whiteLabelRoutes(routes, services);
  customerRoutes(routes, services);
  whiteLabelMoneyRoutes(routes, services);
  payoutRoutes(routes, services);
  declareSelfServiceRoutes(routes, services);
  newsFilterRoutes(routes, services);
  // After the account operations it runs for a provider on its followers' accounts.
  signalRoutes(routes, services);
  calendarAlertRoutes(routes, services);
  calendarSubscriptionRoutes(routes, services);
  notificationChannelRoutes(routes, services);
  chartingInboundSpec(routes);
  return routes;
};

/** express.json for requests that have a body; one without (no Content-Length, no Transfer-Encoding: every GET) goes on at once. */
const jsonBodies = (options: Parameters<typeof express.json>[0]): RequestHandler => {
  const parse = express.json(options);
  return (req, res, next) => {
    // body-parser's own test (type-is hasBody), without its per-request bookkeeping when there is nothing to read.
    if (req.headers['transfer-encoding'] === undefined && Number.isNaN(Number(req.headers['content-length']))) return next();
    parse(req, res, next);
  };
};

export const createApp = (services: Services): express.Express => {
  const app = express();
  app.disable('x-powered-by');
  // Only configured proxies may set the client address through X-Forwarded-For.
  app.set('trust proxy', services.config.trustedProxies.length ? [...services.config.trustedProxies] : false);
  app.set('query parser', 'simple');
  // The correlation id, then the request figures of the operator's signals (GET /metrics, below), in one layer.
  const metrics = new ServiceMetrics(services);
  app.use(inSequence(correlationId, metrics.middleware));

  const routes = declareRoutes(services);
  const openApi = withTextAlerts(buildOpenApi(routes.specs, INTERFACE_VERSION));

  const docs = express.Router();
  docs.get('/openapi.json', (_req, res) => {
    res.json(openApi);
  });
  // Swagger UI on the document above, its assets served from node_modules (no key needed to read).
  docsRoutes(docs);
  // Operations whose credential is not an API key, dispatched as the others are (api/dispatch.ts):
  const open = new FirstSegmentDispatch();
  // charting alerts: the webhookId in their path is the credential (webhooks/charting/inbound.ts);
  open.route('post', '/webhooks/charting/{webhookId}', ...chartingInbound(services));
  // the iCal feed: its subscription token is the credential (calendarSubscriptions/routes.ts);
  open.route('get', '/projects/{projectId}/economicCalendar.ics', calendarFeed(services));
  // a brand's customers sign in by e-mail and use a session token (customers/selfService.ts).
  mountSelfServiceRoutes(open, services);
  // The API: what every request goes through, in this order, as one handler (api/dispatch.ts inSequence;
  // no router of its own to walk, issue 16), mounted under API_PREFIX:
  const api = inSequence(
    // the documents, walked only by requests for them (api/dispatch.ts underSegments), without a key;
    underSegments(['openapi.json', 'docs'], docs),
    // bounded queues before any work, then 503 at once while the database is down;
    ...(services.config.loadShedding ? [loadShedding()] : []),
    databaseGate(services.health),
    // a preflight carries no key: see apiKeys/cors.ts for how per-key origins work;
    corsPreflight,
    // the operations above;
    open.handler,
    authenticate(services, routes.checksKey()),
    // requests that may change something are recorded for the audit log, off the request path;
    recorderOf(services).middleware,
    corsForKey(services.config.operatorDomain),
    // bodies are parsed only for authenticated callers;
    jsonBodies({ limit: '1mb', strict: true, type: ['application/json', 'application/*+json'] }),
    // then the route (api/route.ts).
    routes.handler(
      (res: Response) => res.locals.caller as Caller,
      (req: Request, res: Response) =>
        requestContext(req, res.locals.correlationId as string, res.locals.caller as Caller, res.locals.requestId as string | undefined),
    ),
  );
  // The API before the routes outside it, which no API path matches: its requests walk none of them.
  app.use(API_PREFIX, api);
  // The operator's signals, outside the REST API.
  app.get('/metrics', metrics.handler);
  healthRoutes(app, services);
  // The web console: static files, a client of the API below like any other.
  consoleRoutes(app, services);
  app.use(methodNotAllowed(routes, API_PREFIX));
  app.use(notFoundHandler);
  app.use(
    errorHandler(
      (m, e) => services.log.error(m, e),
      (e) => {
        if (!services.health.unreachableBecause(e)) return null;
        return databaseUnavailable(services.health);
      },
    ),
  );
  return app;
};
