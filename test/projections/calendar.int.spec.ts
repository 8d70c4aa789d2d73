// The economic calendar's sources and read model against a real PostgreSQL: the online weekly feed
// synced from a local fake HTTP server (a changed forecast becomes a revision), the watched folder, the
// sample week, and a rebuilt read model equal to the live one.
import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync, utimesSync } from 'node:fs';
import path from 'node:path';
import type { Kysely } from 'kysely';
import { loadConfig } from '../../app/config.js';
import { silentLogger } from '../../app/logger.js';
import { CalendarSync } from '../../app/calendarSync.js';
import type { CommandServices } from '../../app/services.js';
import { allProjections, projectionByName } from '../../projections/all.js';
import { createReadModelDb } from '../../projections/database.js';
import { migrateReadModels } from '../../projections/migrations.js';
import { rebuildProjection } from '../../projections/rebuild.js';
import { ProjectionRunner } from '../../projections/runner.js';
import type { ReadModels } from '../../projections/schema.js';
import { Leases } from '../../store/postgres/leases.js';
import { PostgresEventStore } from '../../store/postgres/postgresEventStore.js';
import { migrateEventStore } from '../../store/postgres/schema.js';
import { freshDatabase } from '../support/postgres.js';
import { tempDir } from '../support/tempDirs.js';

/** A fake weekly-calendar feed: serves `body` as JSON (or XML), counts the requests. */
const fakeFeed = async () => {
  const feed = { body: '[]', type: 'application/json', requests: 0, status: 200 };
  const server = http.createServer((_req, res) => {
    feed.requests++;
    res.writeHead(feed.status, { 'content-type': feed.type }).end(feed.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/ff_calendar_thisweek.json`;
  return { feed, url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
};

const week = (forecast: string) =>
  JSON.stringify([
    { title: 'Non-Farm Employment Change', country: 'USD', date: '2026-01-09T08:30:00-05:00', impact: 'High', forecast, previous: '199K' },
    { title: 'Unemployment Rate', country: 'CAD', date: '2026-01-09T08:30:00-05:00', impact: 'High', forecast: '5.9%', previous: '5.8%' },
  ]);

describe('economic calendar sources and read model', function () {
  this.timeout(60_000);
  let db: Kysely<ReadModels>;
  let store: PostgresEventStore;
  let runner: ProjectionRunner;
  let leases: Leases;
  let services: CommandServices;
  let fake: Awaited<ReturnType<typeof fakeFeed>>;
  const folder = tempDir('ct-calendar-');
  let now = new Date('2026-01-06T10:00:00Z');

  before(async () => {
    const url = await freshDatabase();
    db = createReadModelDb(url).db;
    await migrateEventStore(db);
    await migrateReadModels(db);
    store = await PostgresEventStore.connect(url);
    runner = new ProjectionRunner(db, store, allProjections, silentLogger);
    await runner.start();
    leases = new Leases(url, silentLogger);
    services = { db, store, runner, config: loadConfig({ DATABASE_URL: url }), log: silentLogger, clock: () => now };
    fake = await fakeFeed();
  });
  after(async () => {
    await fake.close();
    await leases.stop();
    await runner.stop();
    await store.dispose();
    await db.destroy();
  });

  const sync = () => new CalendarSync({ services, leases, folder, feedUrl: fake.url, feedEveryMs: 3_600_000, sampleWeek: true });
  const nfp = () => db.selectFrom('calendar_events').selectAll().where('title', '=', 'Non-Farm Employment Change').executeTakeFirstOrThrow();

  it('the online source syncs from a local fake server, and a changed forecast becomes a revision', async () => {
    const calendar = sync();
    fake.feed.body = week('175K');
    const first = await calendar.syncFeed();
    expect(first).to.include({ source: `feed:${fake.url}`, read: 2, published: 2, revised: 0 });
    expect(await nfp()).to.include({ currency: 'USD', country: 'US', impact: 'HIGH', forecast: '175K', revision: 0 });
    expect((await nfp()).time.toISOString()).to.equal('2026-01-09T13:30:00.000Z');

    // Not due yet: the interval since the last sync has not passed.
    expect(await calendar.syncFeed()).to.equal(null);
    expect(fake.feed.requests).to.equal(1);

    now = new Date(now.getTime() + 3_600_000);
    fake.feed.body = week('180K');
    expect(await calendar.syncFeed()).to.include({ published: 0, revised: 1, unchanged: 1 });
    const row = await nfp();
    expect(row).to.include({ forecast: '180K', revision: 1 });
    const revisions = await db.selectFrom('calendar_event_revisions').selectAll().where('event_id', '=', row.event_id).orderBy('revision').execute();
    expect(revisions.map((r) => [r.revision, r.changes])).to.deep.equal([
      [0, []],
      [1, [{ member: 'forecast', from: '175K', to: '180K' }]],
    ]);
  });

  it('a failing feed imports nothing and says why', async () => {
    fake.feed.status = 503;
    try {
      await sync().syncFeed(true);
      expect.fail('a 503 feed must fail the sync');
    } catch (error) {
      expect(String(error)).to.contain('answered 503');
    } finally {
      fake.feed.status = 200;
    }
  });

  it('the watched folder imports a new file, and a changed file again', async () => {
    const calendar = sync();
    const file = path.join(folder, 'boc.csv');
    writeFileSync(file, 'date,title,currency,impact,forecast,previous\n2026-01-28T14:45:00Z,Overnight Rate,CAD,High,2.25%,2.25%\n');
    expect((await calendar.scanFolder()).map((r) => [r.source, r.published])).to.deep.equal([['file:boc.csv', 1]]);
    expect(await calendar.scanFolder()).to.deep.equal([]);
    writeFileSync(file, 'date,title,currency,impact,forecast,previous,actual\n2026-01-28T14:45:00Z,Overnight Rate,CAD,High,2.25%,2.25%,2.00%\n');
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    expect((await calendar.scanFolder()).map((r) => [r.revised])).to.deep.equal([[1]]);
    const row = await db.selectFrom('calendar_events').selectAll().where('title', '=', 'Overnight Rate').executeTakeFirstOrThrow();
    expect(row).to.include({ actual: '2.00%', revision: 1, source: 'file:boc.csv' });
  });

  it('the sample week is imported only into an empty calendar', async () => {
    expect(await sync().sampleIfEmpty()).to.equal(null);
  });

  it('a rebuilt calendar read model equals the live one', async () => {
    const snapshot = async () => ({
      events: await db.selectFrom('calendar_events').selectAll().orderBy('event_id').execute(),
      revisions: await db.selectFrom('calendar_event_revisions').selectAll().orderBy('event_id').orderBy('revision').execute(),
    });
    const live = await snapshot();
    expect(live.events).to.have.length(3);
    expect(live.revisions).to.have.length(5);
    await rebuildProjection(db, store, projectionByName('calendar')!);
    expect(await snapshot()).to.deep.equal(live);
  });
});

describe('economic calendar: the sample week at the first start', function () {
  this.timeout(60_000);
  it('an empty calendar gets the sample week, moved to the current week', async () => {
    const url = await freshDatabase();
    const db = createReadModelDb(url).db;
    await migrateEventStore(db);
    await migrateReadModels(db);
    const store = await PostgresEventStore.connect(url);
    const runner = new ProjectionRunner(db, store, allProjections, silentLogger);
    await runner.start();
    const leases = new Leases(url, silentLogger);
    try {
      const clock = () => new Date('2026-11-26T09:00:00Z');
      const services = { db, store, runner, config: loadConfig({ DATABASE_URL: url }), log: silentLogger, clock };
      const calendar = new CalendarSync({ services, leases, folder: '/nonexistent', feedUrl: null, feedEveryMs: 1, sampleWeek: true });
      const result = await calendar.sampleIfEmpty();
      expect(result).to.include({ source: 'sample', published: 16 });
      const times = (await db.selectFrom('calendar_events').select('time').execute()).map((r) => r.time.getTime());
      expect(Math.min(...times)).to.equal(Date.parse('2026-11-23T00:00:00Z'));
      expect(Math.max(...times)).to.be.below(Date.parse('2026-11-28T00:00:00Z'));
      expect(await calendar.sampleIfEmpty()).to.equal(null);
    } finally {
      await leases.stop();
      await runner.stop();
      await store.dispose();
      await db.destroy();
    }
  });
});
