// The data collector's storage rules end to end (FeatureDataCollectorDTO; the reference: "Data is only
// saved when values have changed from the previous record", retentionDays a fixed system value): over
// HTTP a sample equal to the previous record is not stored while a changed one is; the sampler itself,
// driven tick by tick against the service's store and read models with a venue the spec sets, stores
// a record only when its members or their values change, also across a restart; samples older than
// the 90-day retention are hidden, then deleted by the retention job.
import { expect } from 'chai';
import type { Kysely } from 'kysely';
import { DataCollectorRetention } from '../../app/dataCollectorRetention.js';
import { samplesStream } from '../../domain/analytics/dataCollector.js';
import { DataCollector } from '../../engine/schedule/dataCollector.js';
import type { AccountConnections } from '../../engine/venues/connections.js';
import type { ReadModels } from '../../projections/schema.js';
import type { Leases } from '../../store/postgres/leases.js';
import { startTestService, type TestService } from '../support/service.js';
import { dataCollectorBody, eventually, movableClock, pinQuotes, positionRequest, startedAccount } from '../support/trading.js';
import { validAccount } from '../support/service.js';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const DAY = 86_400_000;

interface Sample {
  readonly id: string;
  readonly timestamp: number;
  readonly balance?: number;
  readonly equity?: number;
  readonly floatingPnL?: number;
}

describe('data collector storage end to end', function () {
  this.timeout(90_000);
  const clock = movableClock();
  let t: TestService;

  before(async () => {
    t = await startTestService({ clock });
    await pinQuotes(t, { EURUSD: [1.085, 1.0851] });
  });
  after(() => t?.stop());

  const samples = async (accountId: string): Promise<Sample[]> => {
    const res = await t.call('GET', `/accounts/${accountId}/dataCollector?limit=-1`);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body as Sample[];
  };
  /** Moves the clock just past the next 10-second boundary and gives the sampler (a tick a second) time to look. */
  const nextInterval = async () => {
    const now = clock().getTime();
    clock.advance(Math.ceil((now + 1) / 10_000) * 10_000 + 100 - now);
    await new Promise((r) => setTimeout(r, 2500));
  };

  it('over HTTP stores a sample only when it differs from the previous record', async () => {
    const account = await startedAccount(t, 'collector-changes');
    const added = await t.call('POST', `/accounts/${account}/features`, { body: dataCollectorBody({ collectionIntervalSeconds: 10 }) });
    expect(added.status, JSON.stringify(added.body)).to.equal(200);
    const [first] = await eventually(async () => ((await samples(account)).length >= 1 ? samples(account) : undefined), 5000, 'the first sample');
    expect(first).to.deep.include({ balance: 10_000, equity: 10_000, floatingPnL: 0 });
    // Nothing changes at the broker: the next intervals store nothing.
    await nextInterval();
    await nextInterval();
    expect(await samples(account)).to.deep.equal([first]);
    // A position changes the equity (the spread: 10 on 1 lot): the next interval stores it.
    const opened = await t.call('POST', `/accounts/${account}/positions`, { body: positionRequest({ symbol: 'EURUSD', orderType: 'Buy', volume: 1 }) });
    expect(opened.status, JSON.stringify(opened.body)).to.equal(204);
    await nextInterval();
    const all = await eventually(async () => ((await samples(account)).length >= 2 ? samples(account) : undefined), 5000, 'the changed sample');
    expect(all).to.have.length(2);
    expect(all[1]).to.deep.include({ balance: all[1]!.equity! + 10, floatingPnL: -10 });
    expect(all[1]!.timestamp).to.be.greaterThan(first!.timestamp + 10_000);
  });

  it('the sampler stores a record only when its members or their values change, also after a restart', async () => {
    // An account the service does not connect: only the sampler of this spec reads it, from a venue it sets.
    const created = await t.call('POST', '/accounts', { body: validAccount({ alias: 'collector-ticks', loginAccountNumber: 'collector-ticks' }) });
    expect(created.status, JSON.stringify(created.body)).to.equal(200);
    const account = created.body.id as string;
    const feature = await t.call('POST', `/accounts/${account}/features`, { body: dataCollectorBody({ collectionIntervalSeconds: 10 }) });
    expect(feature.status, JSON.stringify(feature.body)).to.equal(200);
    let info = { balance: 5000, equity: 5000, credit: 0, margin: 0 };
    const venue = { accountInformation: async () => info };
    const connections = { connection: (id: string) => (id === account ? venue : null) } as unknown as AccountConnections;
    let at = Date.parse('2026-02-02T10:00:00.000Z');
    const sampler = () => new DataCollector({ store: t.service.services.store, db: t.service.services.db, connections, clock: () => new Date(at), log: quiet });
    const stored = async () => {
      const out: unknown[] = [];
      for await (const e of t.service.services.store.readStream(samplesStream(account))) out.push((e.event as { data: unknown }).data);
      return out as { at: string; equity: number; recorded: { equity: boolean } }[];
    };
    const tick = async (collector: DataCollector) => {
      at += 10_000;
      await collector.tick();
    };
    const first = sampler();
    await tick(first);
    await tick(first);
    expect((await stored()).map((s) => s.equity)).to.deep.equal([5000]);
    info = { ...info, equity: 4990 };
    await tick(first);
    await tick(first);
    expect((await stored()).map((s) => s.equity)).to.deep.equal([5000, 4990]);
    // The margin is ours, not a member of the record: a change of it alone stores nothing.
    info = { ...info, margin: 100 };
    await tick(first);
    expect(await stored()).to.have.length(2);
    // Leaving equity out is another record, though the figures are the same.
    const put = await t.call('PUT', `/accounts/${account}/features/${feature.body.id}`, {
      body: dataCollectorBody({ collectionIntervalSeconds: 10, recordEquity: false }),
    });
    expect(put.status, JSON.stringify(put.body)).to.equal(200);
    await tick(first);
    expect((await stored()).map((s) => s.recorded.equity)).to.deep.equal([true, true, false]);
    // A new sampler (a restart) takes the previous record from the read model: the same one is not stored again.
    await eventually(async () => ((await samples(account)).length === 3 ? true : undefined), 5000, 'the read model');
    await tick(sampler());
    expect(await stored()).to.have.length(3);
  });

  it('hides the samples older than 90 days, and the retention job deletes them', async () => {
    const account = await startedAccount(t, 'collector-retention');
    const added = await t.call('POST', `/accounts/${account}/features`, { body: dataCollectorBody({ collectionIntervalSeconds: 10 }) });
    expect(added.status, JSON.stringify(added.body)).to.equal(200);
    const [old] = await eventually(async () => ((await samples(account)).length >= 1 ? samples(account) : undefined), 5000, 'the first sample');
    const db = t.service.services.db as Kysely<ReadModels>;
    const rows = () => db.selectFrom('data_collector_samples').select('time').where('account_id', '=', account).execute();
    expect((await rows()).map((r) => new Date(r.time).getTime())).to.deep.equal([old!.timestamp]);
    clock.advance(91 * DAY);
    // Hidden at once; then, once the equity changes, a new record is stored after the old one.
    expect(await samples(account)).to.deep.equal([]);
    const opened = await t.call('POST', `/accounts/${account}/positions`, { body: positionRequest({ symbol: 'EURUSD', orderType: 'Buy', volume: 1 }) });
    expect(opened.status, JSON.stringify(opened.body)).to.equal(204);
    const fresh = await eventually(async () => ((await samples(account)).length === 1 ? samples(account) : undefined), 15_000, 'a fresh sample');
    expect(fresh[0]!.timestamp).to.be.greaterThan(old!.timestamp + 90 * DAY);
    // A pass of the job (the service's own, a minute apart, may have passed already: then this one is not due).
    const retention = new DataCollectorRetention({ db, leases: {} as Leases, clock, log: quiet });
    await retention.passIfDue();
    expect((await rows()).map((r) => new Date(r.time).getTime())).to.deep.equal([fresh[0]!.timestamp]);
    expect(await samples(account)).to.deep.equal(fresh);
  });
});
