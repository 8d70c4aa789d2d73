// The durable outbox (engine/delivery/outbox.ts) on a real PostgreSQL with a real loopback receiver:
// the per-key rate limit spaces attempt starts, and a webhook whose endpoint hangs takes at most its
// share of the concurrent attempts, so another webhook's delivery is not held back.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { Kysely } from 'kysely';
import { Outbox, WEBHOOK_DELIVERY_KIND } from '../../../engine/delivery/outbox.js';
import { createReadModelDb } from '../../../projections/database.js';
import type { ReadModels } from '../../../projections/schema.js';
import { freshDatabase } from '../../support/postgres.js';
import { eventually } from '../../support/trading.js';

interface Arrival {
  readonly path: string;
  readonly at: number;
  readonly headers: http.IncomingHttpHeaders;
}

describe('delivery outbox: rate limit and per-webhook concurrency', function () {
  this.timeout(30_000);
  let db: Kysely<ReadModels>;
  let outbox: Outbox;
  let server: http.Server;
  let base: string;
  const arrivals: Arrival[] = [];
  let open = 0;
  let mostOpenAtHang = 0;

  before(async () => {
    db = createReadModelDb(await freshDatabase()).db;
    server = http.createServer((req, res) => {
      arrivals.push({ path: req.url ?? '', at: Date.now(), headers: req.headers });
      req.resume();
      if (req.url === '/hang') {
        open += 1;
        mostOpenAtHang = Math.max(mostOpenAtHang, open);
        req.socket.on('close', () => (open -= 1));
        return;
      }
      res.writeHead(204).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    outbox = new Outbox({ db, log: { info: () => undefined, warn: () => undefined, error: () => undefined }, allowPrivateOutbound: true, unseal: (c) => c });
    await outbox.start();
  });
  after(async () => {
    await outbox?.stop();
    server?.closeAllConnections();
    server?.close();
    await db?.destroy();
  });

  const message = (id: string, path: string, key: string, minIntervalMs: number, timeoutMs = 5000) => ({
    id,
    kind: WEBHOOK_DELIVERY_KIND,
    url: `${base}${path}`,
    headers: { 'Content-Type': 'application/json', 'X-Webhook-Id': id, 'X-Webhook-Event': 'POSITION_OPENED' },
    body: { eventId: id },
    maxAttempts: 1,
    backoffMs: [],
    timeoutMs,
    rateLimit: { key, minIntervalMs },
    auth: null,
  });

  it('starts the attempts of one key at least minIntervalMs apart, in the order queued, and drops none', async () => {
    const ids = [1, 2, 3, 4, 5].map((n) => `00000000-0000-4000-8000-00000000000${n}`);
    for (const id of ids) await outbox.enqueue(db, message(id, '/spaced', 'webhook:spaced', 300));
    outbox.wake();
    const spaced = await eventually(
      async () => {
        const got = arrivals.filter((a) => a.path === '/spaced');
        return got.length === 5 ? got : undefined;
      },
      5000,
      'five deliveries',
    );
    expect(spaced.map((a) => a.headers['x-webhook-id'])).to.deep.equal(ids);
    const gaps = spaced.slice(1).map((a, i) => a.at - spaced[i]!.at);
    for (const gap of gaps) expect(gap, JSON.stringify(gaps)).to.be.at.least(280);
    // the attempt headers of a webhook: its time and number
    expect(spaced[0]!.headers['x-webhook-attempt']).to.equal('1');
    expect(Number(spaced[0]!.headers['x-webhook-timestamp'])).to.be.closeTo(Date.now() / 1000, 10);
  });

  it('lets a hanging webhook hold at most 4 attempts at once, while another webhook is delivered at once', async () => {
    for (let n = 10; n < 18; n++) await outbox.enqueue(db, message(`00000000-0000-4000-8000-0000000000${n}`, '/hang', 'webhook:hang', 1, 1000));
    outbox.wake();
    await eventually(async () => (open >= 4 ? true : undefined), 3000, 'four hanging attempts');
    const queuedAt = Date.now();
    await outbox.enqueue(db, message('00000000-0000-4000-8000-000000000099', '/fast', 'webhook:fast', 1));
    outbox.wake();
    const fast = await eventually(async () => arrivals.find((a) => a.path === '/fast'), 3000, 'the other webhook');
    expect(fast.at - queuedAt).to.be.below(1000);
    expect(mostOpenAtHang).to.equal(4);
    // all eight are attempted in the end, four at a time, each failing by its 1 s timeout
    await eventually(async () => (arrivals.filter((a) => a.path === '/hang').length === 8 ? true : undefined), 10_000, 'every hanging attempt');
    expect(mostOpenAtHang).to.equal(4);
  });
});
