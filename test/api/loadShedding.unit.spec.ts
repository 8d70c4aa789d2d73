// The bounded request lanes of api/availability.ts, on a real HTTP server: excess is shed with 503
// [SERVICE_BUSY] and Retry-After, trading has slots of its own, and a client that leaves while queued
// gives its slot back (regression: such slots leaked until every read was shed). A read parked on a shared
// statement (LaneTurn) gives its slot back meanwhile and takes one again if it must read after all.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import express from 'express';
import { laneTurnOf, loadShedding } from '../../api/availability.js';
import { errorHandler } from '../../api/errors.js';

const LIMITS = {
  reads: { concurrent: 1, queued: 1, maxWaitMs: 2000 },
  writes: { concurrent: 1, queued: 1, maxWaitMs: 2000 },
  trading: { concurrent: 1, queued: 1, maxWaitMs: 2000 },
  retryAfterSeconds: 3,
};

describe('load shedding', () => {
  let server: http.Server;
  let base: string;
  /** Requests to /hold wait until the spec lets them go. */
  let holds: (() => void)[] = [];
  let served = 0;
  /** Requests to /park (and /park-then-read) that gave their slot back, waiting until the spec lets them go. */
  let parked: (() => void)[] = [];

  beforeEach(async () => {
    holds = [];
    parked = [];
    served = 0;
    const app = express();
    app.use(loadShedding(LIMITS));
    app.get(['/accounts/:id/park', '/accounts/:id/park-then-read'], (req, res, next) => {
      const turn = laneTurnOf(res.locals)!;
      expect(turn.park()).to.equal(true);
      parked.push(() => {
        // A kept answer is sent as it is; one that must be read again takes a slot first.
        (req.path.endsWith('/park') ? Promise.resolve() : turn.resume()).then(() => res.json({ ok: true }), next);
      });
    });
    app.all('/*path', (req, res) => {
      served += 1;
      if (req.path.endsWith('/hold')) holds.push(() => void (res.headersSent || res.json({ ok: true })));
      else res.json({ ok: true });
    });
    app.use(errorHandler(() => undefined));
    server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    for (const release of [...holds, ...parked]) release();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const until = async (test: () => boolean) => {
    for (let i = 0; i < 200 && !test(); i++) await new Promise((r) => setTimeout(r, 10));
    expect(test()).to.equal(true);
  };

  it('serves one, queues one and sheds the third with 503 [SERVICE_BUSY] and Retry-After', async () => {
    const first = fetch(`${base}/accounts/a/hold`);
    await until(() => holds.length === 1);
    const second = fetch(`${base}/accounts/b`);
    await new Promise((r) => setTimeout(r, 50));
    const third = await fetch(`${base}/accounts/c`);
    expect(third.status).to.equal(503);
    expect(third.headers.get('retry-after')).to.equal('3');
    expect(await third.json()).to.deep.include({ error: '[SERVICE_BUSY]' });
    holds[0]!();
    expect((await first).status).to.equal(200);
    expect((await second).status).to.equal(200);
  });

  it('keeps slots for trading: a master trade is served while reads are full', async () => {
    void fetch(`${base}/accounts/a/hold`);
    await until(() => holds.length === 1);
    void fetch(`${base}/accounts/b`).catch(() => undefined);
    const trade = await fetch(`${base}/accounts/a/positions`, { method: 'POST' });
    expect(trade.status).to.equal(200);
  });

  it('keeps slots for other changes: a PUT of an account is served while reads are full, and queues behind changes only', async () => {
    void fetch(`${base}/accounts/a/hold`);
    await until(() => holds.length === 1);
    void fetch(`${base}/accounts/b`).catch(() => undefined);
    const change = await fetch(`${base}/accounts/a`, { method: 'PUT' });
    expect(change.status).to.equal(200);
    // A change holding the one write slot: the next change waits, the one after is shed; reads are not affected by it.
    void fetch(`${base}/accounts/c/hold`, { method: 'PUT' });
    await until(() => holds.length === 2);
    const waiting = fetch(`${base}/accounts/d`, { method: 'DELETE' });
    await new Promise((r) => setTimeout(r, 50));
    expect((await fetch(`${base}/accounts/e`, { method: 'POST' })).status).to.equal(503);
    holds[1]!();
    expect((await waiting).status).to.equal(200);
  });

  it('gives back the slot of a client that left while queued', async () => {
    const first = fetch(`${base}/accounts/a/hold`);
    await until(() => holds.length === 1);
    const abandoned = new AbortController();
    const queued = fetch(`${base}/accounts/b`, { signal: abandoned.signal }).catch(() => 'aborted');
    await new Promise((r) => setTimeout(r, 50));
    abandoned.abort();
    expect(await queued).to.equal('aborted');
    await new Promise((r) => setTimeout(r, 50));
    holds[0]!();
    await first;
    // The abandoned request's slot came back: a later read is served at once, again and again.
    for (let i = 0; i < 3; i++) expect((await fetch(`${base}/accounts/c`)).status).to.equal(200);
    expect(served).to.equal(4);
  });

  it('does not count reads parked on a shared statement: the reads behind them are served, none is shed', async () => {
    // One slot and one place in the queue: without parking the third of these would be shed.
    const waiting = ['a', 'b', 'c', 'd'].map((id) => fetch(`${base}/accounts/${id}/park`));
    await until(() => parked.length === 4);
    expect((await fetch(`${base}/accounts/e`)).status).to.equal(200);
    for (const release of parked) release();
    for (const answer of await Promise.all(waiting)) expect(answer.status).to.equal(200);
  });

  it('gives a parked read that must read again a slot first: it queues, or is shed when the lane is full', async () => {
    const rereads = ['a', 'b'].map((id) => fetch(`${base}/accounts/${id}/park-then-read`));
    await until(() => parked.length === 2);
    const first = fetch(`${base}/accounts/c/hold`);
    await until(() => holds.length === 1);
    // The one slot is held: the first parked read queues behind the hold (taking a slot again starts at
    // once, synchronously), the second finds the one place in the queue taken and is shed.
    parked[0]!();
    parked[1]!();
    const shed = await rereads[1]!;
    expect(shed.status).to.equal(503);
    expect(await shed.json()).to.deep.include({ error: '[SERVICE_BUSY]' });
    holds[0]!();
    expect((await rereads[0]!).status).to.equal(200);
    expect((await first).status).to.equal(200);
  });
});
