// The bounded request lanes of api/availability.ts, on a real HTTP server: excess is shed with 503
// [SERVICE_BUSY] and Retry-After, trading has slots of its own, and a client that leaves while queued
// gives its slot back (regression: such slots leaked until every read was shed).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import express from 'express';
import { loadShedding } from '../../api/availability.js';
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

  beforeEach(async () => {
    holds = [];
    served = 0;
    const app = express();
    app.use(loadShedding(LIMITS));
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
    for (const release of holds) release();
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
});
