// The durable outbox (engine/delivery/outbox.ts) on a real PostgreSQL with a real loopback receiver:
// the per-key rate limit spaces attempt starts, and a webhook whose endpoint hangs takes at most its
// share of the concurrent attempts, so another webhook's delivery is not held back.
// The rate limit is shown on the outbox's own clock, a fake one that only the spec moves: the slots it
// reserves and the start each attempt records, never the time between arrivals (a loaded machine
// delays a send after its slot, and the next one less, whatever the outbox does).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { type Kysely, sql } from 'kysely';
import { Outbox, WEBHOOK_DELIVERY_KIND } from '../../../engine/delivery/outbox.js';
import { createReadModelDb } from '../../../projections/database.js';
import type { ReadModels } from '../../../projections/schema.js';
import { freshDatabase } from '../../support/postgres.js';
import { eventually } from '../../support/trading.js';

interface Arrival {
  readonly path: string;
  /** /hang requests open when it arrived. */
  readonly openHanging: number;
  readonly headers: http.IncomingHttpHeaders;
}

describe('delivery outbox: rate limit and per-webhook concurrency', function () {
  this.timeout(60_000);
  let db: Kysely<ReadModels>;
  let outbox: Outbox;
  /** The rate-limit case's outbox, on the fake clock `fakeNow`. */
  let spacedOutbox: Outbox | undefined;
  let server: http.Server;
  let base: string;
  const arrivals: Arrival[] = [];
  const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
  let open = 0;
  let mostOpenAtHang = 0;

  before(async () => {
    db = createReadModelDb(await freshDatabase()).db;
    server = http.createServer((req, res) => {
      arrivals.push({ path: req.url ?? '', openHanging: open, headers: req.headers });
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
    outbox = new Outbox({ db, log: quiet, allowPrivateOutbound: true, unseal: (c) => c });
    await outbox.start();
  });
  after(async () => {
    await spacedOutbox?.stop();
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

  it('starts the attempts of one key minIntervalMs apart on its clock, in the order queued, and drops none', async () => {
    // A year ahead, so the spec's other outbox (the real clock) never finds these messages due.
    const t0 = Date.parse('2030-01-01T00:00:00.000Z');
    let fakeNow = t0;
    spacedOutbox = new Outbox({ db, log: quiet, allowPrivateOutbound: true, unseal: (c) => c, now: () => fakeNow });
    await spacedOutbox.start();
    const ids = [1, 2, 3, 4, 5].map((n) => `00000000-0000-4000-8000-00000000000${n}`);
    for (const id of ids) await spacedOutbox.enqueue(db, message(id, '/spaced', 'webhook:spaced', 300));
    spacedOutbox.wake();
    const rows = () =>
      sql<{ id: string; status: string; slot_reserved: boolean; locked_until: Date | null; next_attempt_at: Date; last_attempt_at: Date | null }>`
        SELECT id, status, slot_reserved, locked_until, next_attempt_at, last_attempt_at FROM delivery_outbox WHERE rate_key = 'webhook:spaced' ORDER BY seq`
        .execute(db)
        .then((r) => r.rows);
    const spaced = () => arrivals.filter((a) => a.path === '/spaced');
    // The first starts at once; each other one has the next free slot reserved, in queue order, and waits for it.
    const waiting = await eventually(
      async () => {
        const all = await rows();
        const rest = all.slice(1);
        return all[0]!.status === 'DELIVERED' && rest.every((r) => r.slot_reserved && r.locked_until === null) ? rest : undefined;
      },
      5000,
      'the first delivered, the others waiting for their slots',
    );
    expect(waiting.map((r) => r.next_attempt_at.getTime() - t0)).to.deep.equal([300, 600, 900, 1200]);
    expect(spaced()).to.have.length(1);
    // Each goes once the clock reaches its slot, and alone: the next slot is 300 ms on.
    for (const [n, row] of waiting.entries()) {
      fakeNow = row.next_attempt_at.getTime();
      spacedOutbox.wake();
      await eventually(async () => (spaced().length === n + 2 ? true : undefined), 5000, `delivery ${n + 2}`);
      await eventually(async () => ((await rows())[n + 1]!.status === 'DELIVERED' ? true : undefined), 5000, `delivery ${n + 2} recorded`);
      expect(spaced()).to.have.length(n + 2);
    }
    expect(spaced().map((a) => a.headers['x-webhook-id'])).to.deep.equal(ids);
    // The start each attempt recorded (the sender's own reading): 300 ms apart.
    const started = (await rows()).map((r) => r.last_attempt_at!.getTime() - t0);
    expect(started).to.deep.equal([0, 300, 600, 900, 1200]);
    // the attempt headers of a webhook: its time and number
    expect(spaced()[0]!.headers['x-webhook-attempt']).to.equal('1');
    expect(Number(spaced()[0]!.headers['x-webhook-timestamp'])).to.equal(t0 / 1000);
    await spacedOutbox.stop();
  });

  it('lets a hanging webhook hold at most 4 attempts at once, while another webhook is delivered at once', async () => {
    for (let n = 10; n < 18; n++) await outbox.enqueue(db, message(`00000000-0000-4000-8000-0000000000${n}`, '/hang', 'webhook:hang', 1, 3000));
    outbox.wake();
    await eventually(async () => (open >= 4 ? true : undefined), 5000, 'four hanging attempts');
    await outbox.enqueue(db, message('00000000-0000-4000-8000-000000000099', '/fast', 'webhook:fast', 1));
    outbox.wake();
    const fast = await eventually(async () => arrivals.find((a) => a.path === '/fast'), 5000, 'the other webhook');
    // Delivered while the four were still hanging: it did not wait for one of their slots.
    expect(fast.openHanging).to.equal(4);
    expect(mostOpenAtHang).to.equal(4);
    // all eight are attempted in the end, four at a time, each failing by its 3 s timeout
    await eventually(async () => (arrivals.filter((a) => a.path === '/hang').length === 8 ? true : undefined), 20_000, 'every hanging attempt');
    expect(mostOpenAtHang).to.equal(4);
  });
});
