// Outbound webhooks end to end (spec "Events" 2, FeatureWebhookDTO): trades on started accounts at the
// simulated venue reach a loopback receiver (ALLOW_PRIVATE_OUTBOUND lets the service call 127.0.0.1)
// that verifies the HMAC signatures; bearer and no authentication; custom headers; retries with
// measured backoff; a timeout as a failed attempt; the rate limit; project webhooks and project
// isolation; masked secrets; validation; and a restart with a delivery pending.
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { sql } from 'kysely';
import { DEFAULT_PROJECT_ID } from '../../domain/project/decider.js';
import { verifyWebhookSignature } from '../../domain/webhook/signature.js';
import { createOtherProject, startTestService, type TestResponse, type TestService, validAccount } from '../support/service.js';
import { eventually, featureBody, pinQuotes, positionRequest, startedAccount } from '../support/trading.js';

const PRIVATE_OK = { ALLOW_PRIVATE_OUTBOUND: 'true' };
const SECRET = 'whsec_e2e_0123456789abcdef';
const MASK = '********';
const BID = 42000;
const ASK = 42010;
const A = DEFAULT_PROJECT_ID;
const B = '77777777-7777-4777-8777-777777777777';
const B_KEY = 'webhooks-project-b-key-0123456789abcdef';

interface Hit {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly raw: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a webhook body, read freely
  readonly body: any;
  readonly at: number;
}

type Behaviour = { kind: 'fail'; left: number } | { kind: 'hang' } | { kind: 'down' };

/**
 * A webhook receiver on 127.0.0.1: records every request that it answers 2xx in `hits`, every request
 * at all in `attempts`. A path can fail its next N requests (500), hang (never answer), or be down
 * (the connection is dropped).
 */
const startReceiver = async () => {
  const hits: Hit[] = [];
  const attempts: Hit[] = [];
  const behaviours = new Map<string, Behaviour>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const hit: Hit = { path: req.url ?? '', headers: req.headers, raw, body: raw ? JSON.parse(raw) : undefined, at: Date.now() };
      attempts.push(hit);
      const behaviour = behaviours.get(hit.path);
      if (behaviour?.kind === 'down') return void req.socket.destroy();
      if (behaviour?.kind === 'hang') return;
      if (behaviour?.kind === 'fail' && behaviour.left > 0) {
        behaviour.left -= 1;
        return void res.writeHead(500).end('not now');
      }
      hits.push(hit);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    to: (path: string) => hits.filter((h) => h.path === path),
    attemptsAt: (path: string) => attempts.filter((h) => h.path === path),
    behave: (path: string, behaviour: Behaviour | null) => (behaviour ? behaviours.set(path, behaviour) : behaviours.delete(path)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
type Receiver = Awaited<ReturnType<typeof startReceiver>>;

const webhook = (url: string, extra: Record<string, unknown> = {}) =>
  featureBody({ type: 'FeatureWebhookDTO', url, events: ['POSITION_OPENED'], authentication: { type: 'NONE' }, ...extra });

const expectStatus = (res: TestResponse, status: number): void => {
  expect(res.status, JSON.stringify(res.body)).to.equal(status);
};

const addWebhook = async (t: TestService, owner: string, setting: ReturnType<typeof webhook>, key?: string): Promise<string> => {
  const res = await t.call('POST', `${owner}/features`, { body: setting, ...(key ? { key } : {}) });
  expectStatus(res, 200);
  return res.body.featureId as string;
};

const open = async (t: TestService, accountId: string, key?: string): Promise<string> => {
  const res = await t.call('POST', `/accounts/${accountId}/positions`, {
    body: positionRequest({ symbol: 'BTCUSD', orderType: 'Buy', volume: 0.01 }),
    ...(key ? { key } : {}),
  });
  expectStatus(res, 204);
  return res.headers.get('x-position-id')!;
};

const close = async (t: TestService, accountId: string, positionId: string): Promise<void> => {
  expectStatus(await t.call('DELETE', `/accounts/${accountId}/positions/${positionId}`), 204);
};

const hitsAt = (receiver: Receiver, path: string, n: number, timeoutMs = 5000) =>
  eventually(async () => (receiver.to(path).length >= n ? receiver.to(path) : undefined), timeoutMs, `${n} deliveries at ${path}`);

const verified = (hit: Hit, secret = SECRET) =>
  verifyWebhookSignature({ secret, header: hit.headers['x-webhook-signature'] as string | undefined, rawBody: hit.raw, nowSeconds: Date.now() / 1000 });

const deliveriesOf = async (t: TestService, owner: string, featureId: string) => {
  const res = await t.call('GET', `${owner}/features/${featureId}/deliveries`);
  expectStatus(res, 200);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- WebhookDeliveryDTO, checked by the contract
  return res.body as any[];
};

describe('outbound webhooks end to end', function () {
  this.timeout(60_000);
  let receiver: Receiver;
  before(async () => {
    receiver = await startReceiver();
  });
  after(() => receiver?.close());

  describe('deliveries', () => {
    let t: TestService;
    before(async () => {
      t = await startTestService({ env: PRIVATE_OK });
      await createOtherProject(t, B, B_KEY);
      await pinQuotes(t, { BTCUSD: [BID, ASK] });
    });
    after(() => t?.stop());

    it('signs POSITION_OPENED and POSITION_CLOSED of a trade with HMAC-SHA256 and delivers the documented payload and headers', async () => {
      const accountId = await startedAccount(t, 'hmac');
      const account = (await t.call('GET', `/accounts/${accountId}`)).body;
      const added = await t.call('POST', `/accounts/${accountId}/features`, {
        body: webhook(receiver.url('/hmac'), {
          events: ['POSITION_OPENED', 'POSITION_CLOSED'],
          authentication: { type: 'HMAC_SHA256', secret: SECRET },
          headers: { 'X-Tenant': 'acme' },
          includeAccountMetadata: true,
        }),
      });
      expectStatus(added, 200);
      const featureId = added.body.featureId;
      expect(added.body.setting).to.deep.equal({
        url: receiver.url('/hmac'),
        events: ['POSITION_OPENED', 'POSITION_CLOSED'],
        authentication: { type: 'HMAC_SHA256', secret: MASK },
        headers: { 'X-Tenant': 'acme' },
        includePositionDetails: true,
        includeAccountMetadata: true,
        maxAttempts: 10,
        initialBackoffSeconds: 10,
        backoffMultiplier: 2,
        maxBackoffSeconds: 3600,
        rateLimitPerMinute: 600,
        timeoutSeconds: 10,
      });

      const positionId = await open(t, accountId);
      await close(t, accountId, positionId);
      const [opened, closed] = await hitsAt(receiver, '/hmac', 2);

      for (const hit of [opened!, closed!]) {
        const check = verified(hit);
        expect(check.valid, JSON.stringify(check)).to.equal(true);
        expect(hit.headers['x-webhook-signature']).to.match(/^t=\d+,v1=[0-9a-f]{64}$/);
        expect(hit.headers['x-webhook-timestamp']).to.equal(String((check as { timestamp: number }).timestamp));
        expect(hit.headers['x-webhook-id']).to.equal(hit.body.eventId);
        expect(hit.headers['x-webhook-event']).to.equal(hit.body.type);
        expect(hit.headers['x-webhook-attempt']).to.equal('1');
        expect(hit.headers['content-type']).to.equal('application/json');
        expect(hit.headers['user-agent']).to.match(/^copy-trading-service-webhooks/);
        expect(hit.headers['x-tenant']).to.equal('acme');
        expect(hit.headers.authorization).to.equal(undefined);
        expect(hit.body.eventId).to.match(/^[0-9a-f-]{36}$/);
      }
      const metadata = {
        accountId,
        projectId: A,
        alias: 'hmac',
        loginServer: account.loginServer,
        loginAccountNumber: account.loginAccountNumber,
        accountTypeId: 1,
        regionId: 2,
      };
      expect(Object.keys(opened!.body)).to.deep.equal(['eventId', 'type', 'occurredAt', 'webhookId', 'accountId', 'positionId', 'position', 'account']);
      expect(opened!.body).to.deep.include({ type: 'POSITION_OPENED', webhookId: featureId, accountId, positionId, account: metadata });
      expect(opened!.body.position).to.deep.include({
        positionId,
        symbol: 'BTCUSD',
        orderType: 'Buy',
        volume: 0.01,
        openPrice: ASK,
        stopLoss: null,
        takeProfit: null,
        magicNumber: null,
        fromPendingOrder: false,
      });
      // Opened through POST .../positions: the broker's comment carries the reference's API|<requestId>| prefix.
      expect(opened!.body.position.comment).to.match(/^API\|\d+\|$/);
      expect(Object.keys(opened!.body.position)).to.deep.equal([
        'positionId',
        'symbol',
        'orderType',
        'volume',
        'openPrice',
        'openTime',
        'stopLoss',
        'takeProfit',
        'swap',
        'commission',
        'comment',
        'magicNumber',
        'fromPendingOrder',
      ]);
      expect(new Date(opened!.body.occurredAt).toISOString()).to.equal(opened!.body.occurredAt);

      expect(closed!.body).to.deep.include({ type: 'POSITION_CLOSED', webhookId: featureId, accountId, positionId, account: metadata });
      expect(closed!.body.position).to.deep.include({
        positionId,
        symbol: 'BTCUSD',
        orderType: 'Buy',
        volume: 0.01,
        openPrice: ASK,
        closePrice: BID,
        closeReason: 'manual',
      });
      expect(Object.keys(closed!.body.position)).to.deep.equal([
        'tradeId',
        'positionId',
        'symbol',
        'orderType',
        'volume',
        'openPrice',
        'openTime',
        'closePrice',
        'closeTime',
        'profit',
        'swap',
        'commission',
        'closeReason',
        'comment',
        'magicNumber',
      ]);
      expect(closed!.body.position.profit).to.be.closeTo((BID - ASK) * 0.01, 1e-9);
      expect(closed!.body.eventId).not.to.equal(opened!.body.eventId);

      const deliveries = await deliveriesOf(t, `/accounts/${accountId}`, featureId);
      expect(deliveries.map((d) => [d.type, d.status, d.attempts, d.lastStatusCode, d.lastError])).to.have.deep.members([
        ['POSITION_OPENED', 'DELIVERED', 1, 204, null],
        ['POSITION_CLOSED', 'DELIVERED', 1, 204, null],
      ]);
      expect(deliveries.map((d) => d.eventId)).to.have.members([opened!.body.eventId, closed!.body.eventId]);
      // the account's first deposit came before the webhook, HISTORY_UPDATED was not asked for: two deliveries only
      expect(receiver.to('/hmac')).to.have.length(2);
    });

    it('delivers HISTORY_UPDATED with the closed trade as the new history entry when a position closes, and nothing from before the webhook was added', async () => {
      // starting the account deposited its first 10,000 USD: a history entry, before the webhook
      const accountId = await startedAccount(t, 'history');
      const featureId = await addWebhook(
        t,
        `/accounts/${accountId}`,
        webhook(receiver.url('/history'), { events: ['HISTORY_UPDATED'], includePositionDetails: true }),
      );
      const positionId = await open(t, accountId);
      await close(t, accountId, positionId);
      const [entry] = await hitsAt(receiver, '/history', 1);
      expect(entry!.body).to.deep.include({ type: 'HISTORY_UPDATED', webhookId: featureId, accountId, positionId });
      expect(entry!.body.historyEntry).to.deep.include({ entryType: 'TRADE', positionId, volume: 0.01, closePrice: BID, partial: false, remainingVolume: 0 });
      expect(entry!.body).not.to.have.property('position');
      const deposits = await sql<{
        n: string;
      }>`SELECT count(*) AS n FROM es_events WHERE stream_name = ${`positions-${accountId}`} AND event_type = 'BalanceChanged'`.execute(t.service.services.db);
      expect(Number(deposits.rows[0]!.n)).to.equal(1);
      expect(receiver.to('/history').map((h) => h.body.historyEntry.entryType)).to.deep.equal(['TRADE']);
      expect(await deliveriesOf(t, `/accounts/${accountId}`, featureId)).to.have.length(1);
    });

    it('answers the secret masked, keeps it on a PUT that leaves it out, signs with a new one once changed, and stores it nowhere in clear', async () => {
      const accountId = await startedAccount(t, 'masked');
      const base = `/accounts/${accountId}/features`;
      const setting = webhook(receiver.url('/masked'), { authentication: { type: 'HMAC_SHA256', secret: SECRET } });
      const featureId = await addWebhook(t, `/accounts/${accountId}`, setting);
      expect((await t.call('GET', `${base}/${featureId}`)).body.setting.authentication).to.deep.equal({ type: 'HMAC_SHA256', secret: MASK });
      expect((await t.call('GET', base)).body[0].setting.authentication).to.deep.equal({ type: 'HMAC_SHA256', secret: MASK });

      const kept = await t.call('PUT', `${base}/${featureId}`, {
        body: webhook(receiver.url('/masked'), { authentication: { type: 'HMAC_SHA256' }, headers: { 'X-Step': 'kept' } }),
      });
      expectStatus(kept, 200);
      expect(kept.body.setting.authentication).to.deep.equal({ type: 'HMAC_SHA256', secret: MASK });
      await open(t, accountId);
      const [first] = await hitsAt(receiver, '/masked', 1);
      expect(first!.headers['x-step']).to.equal('kept');
      expect(verified(first!).valid).to.equal(true);

      const rotated = 'whsec_rotated_abcdefghijklmnop';
      expectStatus(
        await t.call('PUT', `${base}/${featureId}`, { body: webhook(receiver.url('/masked'), { authentication: { type: 'HMAC_SHA256', secret: rotated } }) }),
        200,
      );
      await open(t, accountId);
      const [, second] = await hitsAt(receiver, '/masked', 2);
      expect(verified(second!, rotated).valid).to.equal(true);
      expect(verified(second!, SECRET).valid).to.equal(false);

      const clear = await sql<{
        n: string;
      }>`SELECT count(*) AS n FROM es_events WHERE data::text LIKE ${`%${SECRET}%`} OR data::text LIKE ${`%${rotated}%`}`.execute(t.service.services.db);
      expect(Number(clear.rows[0]!.n)).to.equal(0);
      const readModel = await sql<{
        n: string;
      }>`SELECT count(*) AS n FROM features WHERE setting::text LIKE ${`%${SECRET}%`} OR setting::text LIKE ${`%${rotated}%`}`.execute(t.service.services.db);
      expect(Number(readModel.rows[0]!.n)).to.equal(0);
      const audit = JSON.stringify((await t.call('GET', `/accounts/${accountId}/auditLogs`)).body);
      expect(audit).not.to.include(SECRET);
      expect(audit).not.to.include(rotated);
    });

    it('sends a bearer token, or no authentication at all', async () => {
      const accountId = await startedAccount(t, 'bearer');
      const bearerId = await addWebhook(
        t,
        `/accounts/${accountId}`,
        webhook(receiver.url('/bearer'), { authentication: { type: 'BEARER', token: 'tok_abc-123.XYZ' } }),
      );
      await addWebhook(t, `/accounts/${accountId}`, webhook(receiver.url('/none')));
      expect((await t.call('GET', `/accounts/${accountId}/features/${bearerId}`)).body.setting.authentication).to.deep.equal({
        type: 'BEARER',
        token: MASK,
      });
      await open(t, accountId);
      const [bearer] = await hitsAt(receiver, '/bearer', 1);
      const [none] = await hitsAt(receiver, '/none', 1);
      expect(bearer!.headers.authorization).to.equal('Bearer tok_abc-123.XYZ');
      expect(bearer!.headers['x-webhook-signature']).to.equal(undefined);
      expect(none!.headers.authorization).to.equal(undefined);
      expect(none!.headers['x-webhook-signature']).to.equal(undefined);
      for (const hit of [bearer!, none!]) {
        expect(hit.headers['x-webhook-id']).to.equal(hit.body.eventId);
        expect(Number(hit.headers['x-webhook-timestamp'])).to.be.closeTo(Date.now() / 1000, 10);
      }
      expect(bearer!.body.eventId).not.to.equal(none!.body.eventId);
    });

    it('retries a receiver that fails twice after 0.5 s and 1 s (exponential backoff): three attempts, one eventId', async () => {
      const accountId = await startedAccount(t, 'flaky');
      receiver.behave('/flaky', { kind: 'fail', left: 2 });
      const featureId = await addWebhook(
        t,
        `/accounts/${accountId}`,
        webhook(receiver.url('/flaky'), { initialBackoffSeconds: 0.5, backoffMultiplier: 2, maxAttempts: 5 }),
      );
      await open(t, accountId);
      const [delivered] = await hitsAt(receiver, '/flaky', 1, 8000);
      const attempts = receiver.attemptsAt('/flaky');
      expect(attempts).to.have.length(3);
      expect(attempts.map((a) => a.headers['x-webhook-attempt'])).to.deep.equal(['1', '2', '3']);
      expect(new Set(attempts.map((a) => a.headers['x-webhook-id']))).to.deep.equal(new Set([delivered!.body.eventId]));
      const waits = [attempts[1]!.at - attempts[0]!.at, attempts[2]!.at - attempts[1]!.at];
      expect(waits[0]).to.be.within(450, 1400);
      expect(waits[1]).to.be.within(950, 2400);
      const [delivery] = await deliveriesOf(t, `/accounts/${accountId}`, featureId);
      expect(delivery).to.deep.include({
        eventId: delivered!.body.eventId,
        status: 'DELIVERED',
        attempts: 3,
        maxAttempts: 5,
        lastStatusCode: 204,
        lastError: null,
        nextAttemptAt: null,
      });
    });

    it('counts an answer later than timeoutSeconds as a failed attempt, and after maxAttempts marks the delivery FAILED with the reason', async () => {
      const accountId = await startedAccount(t, 'slow');
      receiver.behave('/slow', { kind: 'hang' });
      const featureId = await addWebhook(
        t,
        `/accounts/${accountId}`,
        webhook(receiver.url('/slow'), { timeoutSeconds: 1, maxAttempts: 2, initialBackoffSeconds: 0.5 }),
      );
      await open(t, accountId);
      const [delivery] = await eventually(
        async () => {
          const list = await deliveriesOf(t, `/accounts/${accountId}`, featureId);
          return list[0]?.status === 'FAILED' ? list : undefined;
        },
        8000,
        'the delivery to fail',
      );
      expect(delivery).to.deep.include({ status: 'FAILED', attempts: 2, lastStatusCode: null, nextAttemptAt: null });
      expect(delivery.lastError).to.match(/no answer within 1000 ms/);
      expect(delivery.finishedAt).to.be.a('string');
      const attempts = receiver.attemptsAt('/slow');
      expect(attempts).to.have.length(2);
      expect(attempts[1]!.at - attempts[0]!.at).to.be.within(1400, 3000);
      expect(receiver.to('/slow')).to.have.length(0);
      receiver.behave('/slow', null);
    });

    it('spaces the attempts to one webhook by 60 / rateLimitPerMinute seconds, deferring rather than dropping', async () => {
      const accountId = await startedAccount(t, 'limited');
      const featureId = await addWebhook(t, `/accounts/${accountId}`, webhook(receiver.url('/limited'), { rateLimitPerMinute: 120 }));
      await Promise.all([open(t, accountId), open(t, accountId), open(t, accountId), open(t, accountId)]);
      const hits = await hitsAt(receiver, '/limited', 4, 8000);
      const gaps = hits.slice(1).map((h, i) => h.at - hits[i]!.at);
      for (const gap of gaps) expect(gap, JSON.stringify(gaps)).to.be.at.least(430);
      expect(hits[3]!.at - hits[0]!.at).to.be.below(4000);
      expect(new Set(hits.map((h) => h.body.positionId)).size).to.equal(4);
      expect((await deliveriesOf(t, `/accounts/${accountId}`, featureId)).map((d) => d.status)).to.deep.equal([
        'DELIVERED',
        'DELIVERED',
        'DELIVERED',
        'DELIVERED',
      ]);
    });

    it('cancels the pending deliveries of a removed webhook and delivers nothing more to it', async () => {
      const accountId = await startedAccount(t, 'removed');
      receiver.behave('/removed', { kind: 'down' });
      const featureId = await addWebhook(t, `/accounts/${accountId}`, webhook(receiver.url('/removed'), { initialBackoffSeconds: 0.5, backoffMultiplier: 1 }));
      await open(t, accountId);
      await eventually(
        async () => ((await deliveriesOf(t, `/accounts/${accountId}`, featureId))[0]?.attempts >= 1 ? true : undefined),
        5000,
        'a failed attempt',
      );
      expectStatus(await t.call('DELETE', `/accounts/${accountId}/features/${featureId}`), 200);
      const cancelled = await eventually(
        async () => {
          const rows = await sql<{
            status: string;
            last_error: string;
          }>`SELECT status, last_error FROM delivery_outbox WHERE feature_id = ${featureId}`.execute(t.service.services.db);
          return rows.rows[0]?.status === 'CANCELLED' ? rows.rows[0] : undefined;
        },
        5000,
        'the delivery to be cancelled',
      );
      expect(cancelled.last_error).to.equal('the webhook was removed');
      receiver.behave('/removed', null);
      const tried = receiver.attemptsAt('/removed').length;
      await open(t, accountId);
      await new Promise((r) => setTimeout(r, 700));
      expect(receiver.attemptsAt('/removed')).to.have.length(tried);
      expectStatus(await t.call('GET', `/accounts/${accountId}/features/${featureId}/deliveries`), 404);
    });

    it("delivers a project webhook every account's events of its project, and nothing of another project", async () => {
      const featureId = await addWebhook(t, `/projects/${A}`, webhook(receiver.url('/project'), { includeAccountMetadata: true }));
      const a1 = await startedAccount(t, 'project one');
      const a2 = await startedAccount(t, 'project two');
      const b1 = await startedAccount({ ...t, call: (m, p, o) => t.call(m, p, { key: B_KEY, ...o }) }, 'other project');
      // B's own webhook on b1 shows when b1's event has been dispatched
      await addWebhook(t, `/accounts/${b1}`, webhook(receiver.url('/b-only')), B_KEY);
      const p1 = await open(t, a1);
      const p2 = await open(t, a2);
      await open(t, b1, B_KEY);
      await hitsAt(receiver, '/b-only', 1);
      const mine = await eventually(
        async () => {
          const hits = receiver.to('/project').filter((h) => [a1, a2, b1].includes(h.body.accountId));
          return hits.length >= 2 ? hits : undefined;
        },
        5000,
        'the project deliveries',
      );
      expect(mine.map((h) => [h.body.accountId, h.body.positionId, h.body.account.projectId])).to.have.deep.members([
        [a1, p1, A],
        [a2, p2, A],
      ]);
      const deliveries = await deliveriesOf(t, `/projects/${A}`, featureId);
      expect(deliveries.map((d) => d.accountId)).not.to.include(b1);
      expect(JSON.stringify(receiver.to('/project'))).not.to.include(b1);
      expectStatus(await t.call('DELETE', `/projects/${A}/features/${featureId}`), 200);
    });

    it('manages project features with a project-level key of that project only', async () => {
      const base = `/projects/${A}/features`;
      const created = await t.call('POST', base, { body: webhook(receiver.url('/crud'), { authentication: { type: 'BEARER', token: 'tok_crud' } }) });
      expectStatus(created, 200);
      const id = created.body.featureId;
      expect((await t.call('GET', base)).body.map((f: { featureId: string }) => f.featureId)).to.deep.equal([id]);
      expect((await t.call('GET', `${base}/${id}`)).body.setting).to.deep.include({
        url: receiver.url('/crud'),
        authentication: { type: 'BEARER', token: MASK },
      });
      const changed = await t.call('PUT', `${base}/${id}`, {
        body: webhook(receiver.url('/crud2'), { authentication: { type: 'BEARER', token: MASK }, events: ['POSITION_CLOSED'] }),
      });
      expectStatus(changed, 200);
      expect(changed.body.setting).to.deep.include({
        url: receiver.url('/crud2'),
        events: ['POSITION_CLOSED'],
        authentication: { type: 'BEARER', token: MASK },
      });

      // another project's key: the project does not exist for it; an account-level key: 403
      const other = await t.call('GET', base, { key: B_KEY });
      expectStatus(other, 404);
      expect(other.body.error).to.equal('[PROJECT_NOT_FOUND]');
      expectStatus(await t.call('GET', `${base}/${id}`, { key: B_KEY }), 404);
      expectStatus(await t.call('DELETE', `${base}/${id}`, { key: B_KEY }), 404);
      const withAccountKey = await t.call('POST', '/accounts', {
        body: validAccount({ alias: 'holder of an account key', loginAccountNumber: 'wh-key-holder' }),
      });
      const accountKey = withAccountKey.headers.get('x-account-api-key')!;
      const forbidden = await t.call('GET', base, { key: accountKey });
      expectStatus(forbidden, 403);
      expect(forbidden.body.error).to.equal('[PROJECT_LEVEL_API_KEY_REQUIRED]');
      expectStatus(await t.call('POST', base, { key: accountKey, body: webhook(receiver.url('/x')) }), 403);
      // a feature that does not attach to projects
      const wrongScope = await t.call('POST', base, { body: featureBody({ type: 'FeatureDataCollectorDTO' }) });
      expectStatus(wrongScope, 400);
      expect(wrongScope.body.error).to.equal('[FEATURE_SCOPE_NOT_ALLOWED]');

      expectStatus(await t.call('DELETE', `${base}/${id}`), 200);
      expect((await t.call('GET', base)).body).to.deep.equal([]);
      expectStatus(await t.call('GET', `${base}/${id}`), 404);
    });
  });

  describe('validation without ALLOW_PRIVATE_OUTBOUND', () => {
    let t: TestService;
    let accountId: string;
    before(async () => {
      t = await startTestService();
      accountId = (await t.call('POST', '/accounts', { body: validAccount({ alias: 'validation', loginAccountNumber: 'wh-validation' }) })).body.id;
    });
    after(() => t?.stop());

    it('refuses bad and private URLs, http, bad event kinds, out-of-range numbers, reserved headers and missing secrets with 400, storing nothing', async () => {
      const good = 'https://hooks.example.invalid/in';
      const cases: [Record<string, unknown>, string, RegExp][] = [
        [{ url: 'not a url' }, '[WEBHOOK_URL_INVALID]', /not a valid absolute URL/],
        [{ url: 'ftp://hooks.example.invalid/in' }, '[WEBHOOK_URL_INVALID_PROTOCOL]', /http/],
        [{ url: 'http://hooks.example.invalid/in' }, '[WEBHOOK_URL_INVALID_PROTOCOL]', /https/],
        [{ url: 'https://127.0.0.1/in' }, '[WEBHOOK_URL_NOT_ALLOWED]', /not a public address/],
        [{ url: 'https://2130706433/in' }, '[WEBHOOK_URL_NOT_ALLOWED]', /not a public address/],
        [{ url: 'https://[::1]/in' }, '[WEBHOOK_URL_NOT_ALLOWED]', /not a public address/],
        [{ url: 'https://10.1.2.3/in' }, '[WEBHOOK_URL_NOT_ALLOWED]', /not a public address/],
        [{ url: 'https://169.254.169.254/latest/meta-data' }, '[WEBHOOK_URL_NOT_ALLOWED]', /not a public address/],
        [{ url: 'https://localhost/in' }, '[WEBHOOK_URL_NOT_ALLOWED]', /loopback/],
        [{ url: 'https://user:pw@hooks.example.invalid/in' }, '[WEBHOOK_URL_NOT_ALLOWED]', /user name or password/],
        [{ events: ['POSITION_MODIFIED'] }, '[VALIDATION_FAILED]', /events/],
        [{ events: [] }, '[VALIDATION_FAILED]', /events/],
        [{ events: ['POSITION_OPENED', 'POSITION_OPENED'] }, '[VALIDATION_FAILED]', /events/],
        [{ maxAttempts: 0 }, '[VALIDATION_FAILED]', /maxAttempts/],
        [{ maxAttempts: 21 }, '[VALIDATION_FAILED]', /maxAttempts/],
        [{ initialBackoffSeconds: 0.1 }, '[VALIDATION_FAILED]', /initialBackoffSeconds/],
        [{ backoffMultiplier: 11 }, '[VALIDATION_FAILED]', /backoffMultiplier/],
        [{ initialBackoffSeconds: 100, maxBackoffSeconds: 50 }, '[VALIDATION_FAILED]', /maxBackoffSeconds 50 is below/],
        [{ rateLimitPerMinute: 0 }, '[VALIDATION_FAILED]', /rateLimitPerMinute/],
        [{ timeoutSeconds: 31 }, '[VALIDATION_FAILED]', /timeoutSeconds/],
        [{ headers: { Host: 'evil.example' } }, '[VALIDATION_FAILED]', /Host is set by the service/],
        [{ headers: { 'X-Webhook-Signature': 'forged' } }, '[VALIDATION_FAILED]', /X-Webhook-Signature/],
        [{ headers: { 'X-Bad': 'line\r\nInjected: yes' } }, '[VALIDATION_FAILED]', /headers/],
        [{ headers: { 'Bad Name': 'x' } }, '[VALIDATION_FAILED]', /headers/],
        [{ authentication: { type: 'HMAC_SHA256' } }, '[VALIDATION_FAILED]', /authentication.secret is required/],
        [{ authentication: { type: 'HMAC_SHA256', secret: 'short' } }, '[VALIDATION_FAILED]', /at least 16 characters/],
        [{ authentication: { type: 'BEARER' } }, '[VALIDATION_FAILED]', /authentication.token is required/],
        [{ authentication: { type: 'BASIC', user: 'x' } }, '[VALIDATION_FAILED]', /authentication/],
        [{ colour: 'blue' }, '[VALIDATION_FAILED]', /colour/],
      ];
      for (const [extra, code, message] of cases) {
        const res = await t.call('POST', `/accounts/${accountId}/features`, { body: webhook(good, extra) });
        expect(res.status, `${JSON.stringify(extra)}: ${JSON.stringify(res.body)}`).to.equal(400);
        expect(res.body.error, JSON.stringify(extra)).to.equal(code);
        expect(res.body.message, JSON.stringify(extra)).to.match(message);
      }
      const project = await t.call('POST', `/projects/${A}/features`, { body: webhook('https://192.168.1.10/in') });
      expectStatus(project, 400);
      expect(project.body.error).to.equal('[WEBHOOK_URL_NOT_ALLOWED]');

      expect((await t.call('GET', `/accounts/${accountId}/features`)).body).to.deep.equal([]);
      expect((await t.call('GET', `/projects/${A}/features`)).body).to.deep.equal([]);
      const stored = await sql<{ n: string }>`SELECT count(*) AS n FROM es_events WHERE event_type = 'FeatureAdded'`.execute(t.service.services.db);
      expect(Number(stored.rows[0]!.n)).to.equal(0);

      // and a public https URL is taken (a name that does not resolve now is checked again at each delivery)
      expectStatus(await t.call('POST', `/accounts/${accountId}/features`, { body: webhook(good) }), 200);
    });
  });

  describe('a restart with a delivery pending', () => {
    it('delivers after the restart, once, with the same eventId', async () => {
      const first = await startTestService({ env: PRIVATE_OK });
      let second: TestService | null = null;
      try {
        await pinQuotes(first, { BTCUSD: [BID, ASK] });
        const accountId = await startedAccount(first, 'restart');
        receiver.behave('/restart', { kind: 'down' });
        const featureId = await addWebhook(
          first,
          `/accounts/${accountId}`,
          webhook(receiver.url('/restart'), {
            authentication: { type: 'HMAC_SHA256', secret: SECRET },
            initialBackoffSeconds: 0.5,
            backoffMultiplier: 1,
            maxAttempts: 20,
          }),
        );
        await open(first, accountId);
        const [pending] = await eventually(
          async () => {
            const list = await deliveriesOf(first, `/accounts/${accountId}`, featureId);
            return list[0]?.attempts >= 1 ? list : undefined;
          },
          5000,
          'a failed attempt',
        );
        expect(pending).to.deep.include({ status: 'PENDING', lastStatusCode: null });
        await first.stop();

        receiver.behave('/restart', null);
        const triedWhileDown = receiver.attemptsAt('/restart').length;
        second = await startTestService({ databaseUrl: first.databaseUrl, dataDir: first.dataDir, env: PRIVATE_OK });
        const [delivered] = await hitsAt(receiver, '/restart', 1, 8000);
        expect(delivered!.body.eventId).to.equal(pending.eventId);
        expect(delivered!.headers['x-webhook-id']).to.equal(pending.eventId);
        expect(verified(delivered!).valid).to.equal(true);
        expect(Number(delivered!.headers['x-webhook-attempt'])).to.be.greaterThan(triedWhileDown > 0 ? 1 : 0);
        await new Promise((r) => setTimeout(r, 1000));
        expect(receiver.to('/restart')).to.have.length(1);
        const [after] = await deliveriesOf(second, `/accounts/${accountId}`, featureId);
        expect(after).to.deep.include({ eventId: pending.eventId, status: 'DELIVERED', lastStatusCode: 204 });
        expect(await deliveriesOf(second, `/accounts/${accountId}`, featureId)).to.have.length(1);
      } finally {
        await second?.stop();
        await first.stop().catch(() => undefined);
      }
    });
  });
});
