// GET /metrics: the operator's signals in Prometheus' text format (prom-client), outside the REST API
// and without a key (expose it to the scraper only). One registry per service: HTTP requests by route
// and status with their latency, the copy latency (master fill -> slave fill, from CopyExecuted), the
// event store's append latency (both from the store's signals, store/observed.ts), the lag of the copy
// engine, the webhook dispatcher and each read model, the delivery outbox backlog, the venue
// sessions connected, each news feed's last good read and failures in a row (app/marketNewsFeeds.ts;
// these read when scraped), and the order round trip per venue kind (engine/venues/latency.ts).
import type { NextFunction, Request, Response } from 'express';
import { sql } from 'kysely';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { feedLabel, feedStates } from '../app/marketNewsFeeds.js';
import type { Services } from '../app/services.js';
import type { AppendObservation } from '../store/observed.js';
import { isCopyEngineCheckpoint, processorLags } from './health.js';

const PREFIX = 'copytrade_';
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const COPY_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60];

interface CopyExecutedData {
  readonly result?: { readonly type?: string; readonly kind?: string; readonly time?: string };
  readonly masterEventAt?: string | null;
  readonly by?: string;
}

/** The express route a request matched (`/rest/api/v1/accounts/:accountId`), or a fixed label: bounded cardinality. */
const routeOf = (req: Request): string => {
  const route = (req as Request & { route?: { path?: unknown } }).route;
  if (route && typeof route.path === 'string') return `${req.baseUrl}${route.path}`;
  return '(unmatched)';
};

export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly requestSeconds: Histogram<'method' | 'route' | 'status'>;
  private readonly copySeconds: Histogram<'action'>;
  private readonly appendSeconds: Histogram<'result'>;
  private readonly lagSeconds: Gauge<'processor'>;
  private readonly lagEvents: Gauge<'processor'>;
  private readonly engineLagSeconds: Gauge;
  private readonly projectionLagSeconds: Gauge<'read_model'>;
  private readonly outboxPending: Gauge<'kind'>;
  private readonly sessions: Gauge;
  private readonly venueOrderSeconds: Histogram<'venue' | 'operation' | 'outcome'>;
  private readonly feedLastSuccess: Gauge<'feed'>;
  private readonly feedFailures: Gauge<'feed'>;

  constructor(private readonly services: Services) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: PREFIX });
    this.requests = new Counter({
      name: `${PREFIX}http_requests_total`,
      help: 'HTTP requests by route and status',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.requestSeconds = new Histogram({
      name: `${PREFIX}http_request_duration_seconds`,
      help: 'HTTP request latency by route and status',
      labelNames: ['method', 'route', 'status'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.copySeconds = new Histogram({
      name: `${PREFIX}copy_latency_seconds`,
      help: "Copy latency: the master's fill (venue time of the master event) to the slave's fill (venue time of the slave's execution), per copied open or close",
      labelNames: ['action'],
      buckets: COPY_BUCKETS,
      registers,
    });
    this.appendSeconds = new Histogram({
      name: `${PREFIX}event_store_append_duration_seconds`,
      help: 'Event store append latency (one appendToStream or appendToStreams call)',
      labelNames: ['result'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.lagSeconds = new Gauge({
      name: `${PREFIX}processor_lag_seconds`,
      help: 'Age of the oldest event a processor of $all (projection:<read model>, copy-engine, webhooks) has not handled; 0 when caught up',
      labelNames: ['processor'],
      registers,
    });
    this.lagEvents = new Gauge({
      name: `${PREFIX}processor_lag_events`,
      help: 'Events of $all a processor has not handled yet (counted up to 100000)',
      labelNames: ['processor'],
      registers,
    });
    this.engineLagSeconds = new Gauge({
      name: `${PREFIX}engine_lag_seconds`,
      help: 'Age of the oldest event the copy engine has not handled; 0 when caught up',
      registers,
    });
    this.projectionLagSeconds = new Gauge({
      name: `${PREFIX}projection_lag_seconds`,
      help: 'Age of the oldest event a read model has not applied; 0 when caught up',
      labelNames: ['read_model'],
      registers,
    });
    this.outboxPending = new Gauge({
      name: `${PREFIX}outbox_pending`,
      help: 'Deliveries waiting in the durable outbox by kind (callbacks, webhooks)',
      labelNames: ['kind'],
      registers,
    });
    this.sessions = new Gauge({ name: `${PREFIX}venue_sessions_connected`, help: 'Venue sessions of this instance that are connected', registers });
    this.venueOrderSeconds = new Histogram({
      name: `${PREFIX}venue_order_duration_seconds`,
      help: "Order round trip per venue kind (simulated, ccxt:<exchange>, MetaTrader bridge...): an account connection's place, modify, close or cancel request to its answer, by outcome (ok, refused, error); counted by the service that holds the venue sessions",
      labelNames: ['venue', 'operation', 'outcome'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.feedLastSuccess = new Gauge({
      name: `${PREFIX}news_feed_last_success_timestamp_seconds`,
      help: 'Unix time of the last good read of each market news feed of NEWS_FEEDS (its URL without credentials or query); 0: never read well',
      labelNames: ['feed'],
      registers,
    });
    this.feedFailures = new Gauge({
      name: `${PREFIX}news_feed_consecutive_failures`,
      help: 'Reads of each market news feed that failed since its last good read',
      labelNames: ['feed'],
      registers,
    });
    // The venue sessions' timings: counted from the first order of whichever term this instance holds them in.
    services.venueOrderTimings.listen((t) => this.venueOrderSeconds.observe({ venue: t.venue, operation: t.operation, outcome: t.outcome }, t.seconds));
    services.signals.onAppend((o) => this.observeAppend(o));
  }

  /** Counts and times every request (mounted first). */
  readonly middleware = (req: Request, res: Response, next: NextFunction): void => {
    // Timed as the histogram's startTimer would (a monotonic clock), without its two closures per request.
    const started = performance.now();
    res.once('finish', () => {
      const labels = { method: req.method, route: routeOf(req), status: String(res.statusCode) };
      this.requestSeconds.observe(labels, (performance.now() - started) / 1000);
      this.requests.inc(labels);
    });
    next();
  };

  private observeAppend(o: AppendObservation): void {
    this.appendSeconds.observe({ result: o.ok ? 'ok' : 'error' }, o.seconds);
    if (!o.ok) return;
    for (const event of o.events) {
      if (event.type !== 'CopyExecuted') continue;
      const data = event.data as CopyExecutedData;
      // A feature's own trade (a trailing stop, a keep-alive trade) copies no master fill.
      if (data.by || !data.masterEventAt || !data.result?.time) continue;
      const action = data.result.type === 'opened' && data.result.kind === 'position' ? 'open' : data.result.type === 'closed' ? 'close' : null;
      if (!action) continue;
      const seconds = (Date.parse(data.result.time) - Date.parse(data.masterEventAt)) / 1000;
      if (Number.isFinite(seconds)) this.copySeconds.observe({ action }, Math.max(0, seconds));
    }
  }

  /** Reads what is measured when scraped: lags, outbox backlog, sessions. */
  private async refresh(): Promise<void> {
    this.sessions.set(this.services.connections.connectedAccountIds().length);
    const lags = await processorLags(this.services, true);
    this.lagSeconds.reset();
    this.lagEvents.reset();
    this.projectionLagSeconds.reset();
    // The copy engine's lag: its furthest-behind partition.
    this.engineLagSeconds.set(Math.max(0, ...lags.filter((l) => isCopyEngineCheckpoint(l.name)).map((l) => l.seconds)));
    for (const lag of lags) {
      this.lagSeconds.set({ processor: lag.name }, lag.seconds);
      this.lagEvents.set({ processor: lag.name }, lag.events ?? 0);
      if (lag.name.startsWith('projection:')) this.projectionLagSeconds.set({ read_model: lag.name.slice('projection:'.length) }, lag.seconds);
    }
    const pending = await sql<{ kind: string; n: number }>`SELECT kind, count(*)::int AS n FROM delivery_outbox WHERE status = 'PENDING' GROUP BY kind`.execute(
      this.services.db,
    );
    this.outboxPending.reset();
    for (const kind of ['ACCOUNT_CREATION_CALLBACK', 'WEBHOOK']) this.outboxPending.set({ kind }, 0);
    for (const row of pending.rows) this.outboxPending.set({ kind: row.kind }, row.n);
    const feeds = await feedStates(this.services.db, this.services.config.news.feeds);
    this.feedLastSuccess.reset();
    this.feedFailures.reset();
    for (const state of feeds) {
      this.feedLastSuccess.set({ feed: feedLabel(state.feed) }, state.lastSuccess ?? 0);
      this.feedFailures.set({ feed: feedLabel(state.feed) }, state.consecutiveFailures);
    }
  }

  readonly handler = async (_req: Request, res: Response): Promise<void> => {
    try {
      await this.refresh();
    } catch (error) {
      // The database may be down: the in-process figures are still worth scraping.
      this.services.health.observe(error);
    }
    res
      .set('content-type', this.registry.contentType)
      .set('cache-control', 'no-store')
      .send(await this.registry.metrics());
  };
}
