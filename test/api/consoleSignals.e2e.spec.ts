// The operator's signals (issue 20): GET /health and /ready without a key, and GET /metrics in
// Prometheus' text format whose copy-latency histogram counts a copy made here.
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { processorLags } from '../../api/health.js';
import { importCalendar } from '../../app/calendar.js';
import { fileSource } from '../../engine/calendar/source.js';
import { startTestService, type TestService } from '../support/service.js';
import { bookWhere, copyPair, eventually, marketHoursClock, openPosition, pinQuotes } from '../support/trading.js';
import { tempDir } from '../support/tempDirs.js';

interface Sample {
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly value: number;
}

/** Parses the Prometheus text exposition format strictly: every line a comment, blank or a sample. */
const parsePrometheus = (text: string): { samples: Sample[]; types: Map<string, string> } => {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  const sampleLine = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (-?[0-9.eE+-]+|NaN|\+Inf|-Inf)( -?\d+)?$/;
  const labelPair = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('# HELP ')) continue;
    if (line.startsWith('# TYPE ')) {
      const [, , name, type] = line.split(' ');
      expect(['counter', 'gauge', 'histogram', 'summary', 'untyped']).to.include(type);
      types.set(name!, type!);
      continue;
    }
    const m = sampleLine.exec(line);
    if (!m) throw new Error(`not a Prometheus sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (m[3] ?? '').matchAll(labelPair)) labels[pair[1]!] = pair[2]!;
    samples.push({ name: m[1]!, labels, value: Number(m[4]) });
  }
  return { samples, types };
};

describe('console: health, readiness and metrics', function () {
  this.timeout(60_000);
  let t: TestService;
  let base: string;

  before(async () => {
    t = await startTestService({ clock: marketHoursClock() });
    base = t.url.replace(/\/rest\/api\/v1$/, '');
    await pinQuotes(t, { EURUSD: [1.085, 1.0851] });
  });
  after(() => t?.stop());

  const metrics = async () => {
    const res = await fetch(`${base}/metrics`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
    return parsePrometheus(await res.text());
  };
  const copyCount = (samples: Sample[]) => samples.filter((s) => s.name === 'copytrade_copy_latency_seconds_count').reduce((sum, s) => sum + s.value, 0);

  it('GET /health answers while the process does, without a key', async () => {
    const res = await fetch(`${base}/health`);
    expect(res.status).to.equal(200);
    expect(await res.json()).to.deep.equal({ status: 'UP' });
  });

  it('GET /ready answers 200 with the database up and nothing behind', async () => {
    const res = await fetch(`${base}/ready`);
    const body = (await res.json()) as { status: string; database: string; behind: unknown[] };
    expect(res.status, JSON.stringify(body)).to.equal(200);
    expect(body).to.deep.include({ status: 'READY', database: 'UP', behind: [] });
  });

  it('counts as behind only the events a processor reads: a calendar import leaves the copy engine and the webhooks caught up', async () => {
    const folder = tempDir('ct-ready-');
    const file = path.join(folder, 'week.csv');
    writeFileSync(file, ['date,title,currency,impact,forecast,previous,actual', '2026-01-08T13:30:00Z,CPI m/m,USD,High,0.2%,0.3%,'].join('\n'));
    expect(await importCalendar(t.service.services, fileSource(file))).to.include({ published: 1 });
    const lags = await processorLags(t.service.services, true);
    const of = (name: string) => lags.find((l) => l.name === name);
    // Neither reads calendar streams, nor saves a checkpoint for them: they are not behind on them.
    expect(of('copy-engine')).to.include({ events: 0, seconds: 0 });
    expect(of('webhooks')?.events ?? 0).to.equal(0);
    // A read model that reads every event is behind until it has applied the import, as before.
    expect(lags.some((l) => l.name.startsWith('projection:'))).to.equal(true);
  });

  it('GET /metrics parses as Prometheus text and its copy-latency histogram counts a copy made here', async () => {
    const before = await metrics();
    expect(before.types.get('copytrade_copy_latency_seconds')).to.equal('histogram');
    const { master, slave } = await copyPair(t, 'metrics', { multiplier: 2 });
    await openPosition(t, master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.01 });
    await bookWhere(t, slave, (book) => book.length === 1, 'the copy');
    // The slave's position shows before the engine's CopyExecuted is appended: wait for the latter.
    const after = await eventually(
      async () => {
        const now = await metrics();
        return copyCount(now.samples) > copyCount(before.samples) ? now : undefined;
      },
      10_000,
      'the copy in the histogram',
    );
    expect(copyCount(after.samples) - copyCount(before.samples)).to.equal(1);
    const open = after.samples.find((s) => s.name === 'copytrade_copy_latency_seconds_count' && s.labels.action === 'open');
    expect(open?.value).to.be.at.least(1);

    const find = (name: string, labels: Record<string, string> = {}) =>
      after.samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
    // Requests by route and status, with their latency.
    expect(find('copytrade_http_requests_total', { method: 'POST', route: '/rest/api/v1/accounts/:accountId/positions', status: '204' })?.value).to.equal(1);
    expect(after.types.get('copytrade_http_request_duration_seconds')).to.equal('histogram');
    expect(find('copytrade_http_request_duration_seconds_count', { method: 'POST', route: '/rest/api/v1/accounts', status: '200' })?.value).to.equal(2);
    // The order round trip per venue kind: the master's open and its copy, both at the simulated venue.
    expect(after.types.get('copytrade_venue_order_duration_seconds')).to.equal('histogram');
    const venueOrders = { venue: 'simulated', operation: 'placeOrder', outcome: 'ok' };
    expect(find('copytrade_venue_order_duration_seconds_count', venueOrders)?.value).to.be.at.least(2);
    // The store's appends, the processors' lag, the outbox and the sessions.
    expect(find('copytrade_event_store_append_duration_seconds_count', { result: 'ok' })?.value).to.be.greaterThan(0);
    expect(find('copytrade_engine_lag_seconds')).to.not.equal(undefined);
    expect(find('copytrade_projection_lag_seconds', { read_model: 'accounts' })).to.not.equal(undefined);
    expect(find('copytrade_processor_lag_events', { processor: 'copy-engine' })).to.not.equal(undefined);
    expect(find('copytrade_outbox_pending', { kind: 'WEBHOOK' })?.value).to.equal(0);
    expect(find('copytrade_venue_sessions_connected')?.value).to.equal(2);
  });
});

describe('console: API documentation', function () {
  this.timeout(60_000);
  let t: TestService;
  before(async () => {
    t = await startTestService();
  });
  after(() => t?.stop());

  it('serves Swagger UI at /rest/api/v1/docs without a key, its assets from the service itself', async () => {
    const page = await fetch(`${t.url}/docs`);
    expect(page.status).to.equal(200);
    const html = await page.text();
    expect(html).to.include('/rest/api/v1/docs/assets/swagger-ui-bundle.js');
    expect(html).to.not.match(/https?:\/\//);
    for (const asset of ['assets/swagger-ui-bundle.js', 'assets/swagger-ui.css', 'init.js']) {
      const res = await fetch(`${t.url}/docs/${asset}`);
      expect(res.status, asset).to.equal(200);
    }
    expect(await (await fetch(`${t.url}/docs/init.js`)).text()).to.include('/rest/api/v1/openapi.json');
    const missing = await fetch(`${t.url}/docs/assets/nothing.js`);
    expect(missing.status).to.equal(404);
    // The rest of the API still wants a key.
    expect((await fetch(`${t.url}/accounts`)).status).to.equal(401);
  });
});
