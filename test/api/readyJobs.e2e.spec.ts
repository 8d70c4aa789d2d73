// /ready and the leased jobs (issue 18; store/postgres/jobRounds.ts): each timed leased job records its
// rounds in the database, so every instance's /ready sees whether it is stalled, whichever instance runs
// it; a stalled job makes /ready 503 with its name and why; a job turned off by configuration is not
// watched, and the trade guardrails are watched by the instance holding the venue sessions, which runs
// them. "An hour ago" is written into the rounds' row (no spec waits out 5 rounds).
import { expect } from 'chai';
import { sql } from 'kysely';
import { CALENDAR_ALERTS_LEASE } from '../../app/alertsScheduler.js';
import { importCalendar } from '../../app/calendar.js';
import { MarketNewsSync } from '../../app/marketNewsSync.js';
import type { VenueSessions } from '../../app/venueSessions.js';
import type { Leases } from '../../store/postgres/leases.js';
import { textSource } from '../../engine/calendar/source.js';
import { allowedSecondsOf, goodRoundWriteMsOf, JobRounds, READY_MIN_STALL_SECONDS } from '../../store/postgres/jobRounds.js';
import { startTestService, type TestService } from '../support/service.js';
import { eventually } from '../support/trading.js';

interface Ready {
  status: string;
  behind: unknown[];
  stalledJobs: { name: string; secondsSinceGoodRound: number | null; allowedSeconds: number; reason: string }[];
}

/** The leased jobs every instance runs (without NEWS_FEEDS: no market news sync). */
const WATCHED = [
  'api-requests-retention',
  'calendar-alerts',
  'calendar-sync',
  'charting-webhook-retries',
  'customers:blocks',
  'data-collector-retention',
  'invoices-monthly-close',
  'keep-alive-trades',
  'messaging-reader',
  'news-warnings',
  'notifications:logs',
  'signals:follower-repair',
];
/** Run by the instance holding the venue sessions only. */
const HOLDER_ONLY = 'trade-guardrails';

describe('/ready: the leased jobs (issue 18)', function () {
  this.timeout(180_000);
  let a: TestService;
  let b: TestService;

  const ready = async (t: TestService): Promise<{ status: number; body: Ready }> => {
    const res = await fetch(`${t.url.replace(/\/rest\/api\/v1$/, '')}/ready`);
    return { status: res.status, body: (await res.json()) as Ready };
  };
  const rows = async () =>
    (
      await sql<{
        lease: string;
        good: Date | null;
        failed: Date | null;
        error: string | null;
      }>`SELECT lease, good, failed, error FROM leased_job_rounds ORDER BY lease`.execute(a.service.services.db)
    ).rows;
  /** Moves a job's last good round and last lease win an hour back. */
  const anHourAgo = (lease: string) =>
    sql`UPDATE leased_job_rounds SET good = good - interval '1 hour', won = won - interval '1 hour' WHERE lease = ${lease}`.execute(a.service.services.db);

  before(async () => {
    a = await startTestService({ venueTicker: false });
    b = await startTestService({ databaseUrl: a.databaseUrl, dataDir: a.dataDir, venueTicker: false });
  });
  after(async () => {
    await b?.stop();
    await a?.stop();
  });

  it('watches every leased job, the guardrails on the venue sessions holder, not the news sync without NEWS_FEEDS, and records their good rounds', async () => {
    const holders = [a, b].filter((t) => (t.service.services.connections as VenueSessions).holds);
    expect(holders).to.have.length(1);
    for (const t of [a, b]) {
      const expected = t === holders[0] ? [...WATCHED, HOLDER_ONLY].sort() : WATCHED;
      expect([...t.service.services.jobRounds.jobs.keys()].sort()).to.deep.equal(expected);
    }
    const all = [...WATCHED, HOLDER_ONLY].sort();
    const recorded = await eventually(
      async () => {
        const now = await rows();
        return all.every((lease) => now.some((r) => r.lease === lease && r.good !== null)) ? now : undefined;
      },
      60_000,
      'a good round of every job',
    );
    expect(recorded.map((r) => r.lease)).to.deep.equal(all);
    expect(recorded.filter((r) => r.failed !== null).map((r) => `${r.lease}: ${r.error}`)).to.deep.equal([]);
    for (const t of [a, b]) {
      const { status, body } = await ready(t);
      expect(status, JSON.stringify(body)).to.equal(200);
      expect(body).to.deep.include({ status: 'READY', stalledJobs: [] });
    }
  });

  it('a job whose rounds fail is NOT READY on every instance, with its name and error, and READY again after a good round', async () => {
    const { db } = a.service.services;
    await sql`ALTER VIEW calendar_alerts RENAME TO calendar_alerts_away`.execute(db);
    try {
      // The loop reads its alerts again only once the calendar or the alerts moved (kept reads): a
      // calendar import moves the calendar.
      await importCalendar(
        a.service.services,
        textSource('file:ready.csv', 'csv', 'date,title,currency,impact,forecast,previous,actual\n2026-01-07T13:30:00Z,CPI m/m,USD,High,0.3%,0.2%,'),
      );
      await eventually(
        async () => (await rows()).find((r) => r.lease === CALENDAR_ALERTS_LEASE && r.error?.includes('calendar_alerts')),
        30_000,
        'a failed round of the calendar alerts',
      );
      await anHourAgo(CALENDAR_ALERTS_LEASE);
      for (const t of [a, b]) {
        const { status, body } = await ready(t);
        expect(status, JSON.stringify(body)).to.equal(503);
        expect(body.status).to.equal('NOT_READY');
        expect(body.stalledJobs).to.have.length(1);
        const [stalled] = body.stalledJobs;
        expect(stalled).to.deep.include({ name: CALENDAR_ALERTS_LEASE, allowedSeconds: READY_MIN_STALL_SECONDS });
        expect(stalled!.secondsSinceGoodRound).to.be.at.least(3600);
        expect(stalled!.reason).to.match(/^its rounds fail: .*calendar_alerts/);
      }
    } finally {
      await sql`ALTER VIEW calendar_alerts_away RENAME TO calendar_alerts`.execute(db);
    }
    const back = await eventually(
      async () => {
        const answer = await ready(b);
        return answer.status === 200 ? answer : undefined;
      },
      30_000,
      'READY after a good round',
    );
    expect(back.body).to.deep.include({ status: 'READY', stalledJobs: [] });
  });

  it('says why a job has no good round: nobody ran it, or its round never ended', async () => {
    const rounds = new JobRounds(a.service.services.db);
    rounds.watch('ready-spec-job', 1000);
    // A second loop of the job here (a spec beside the service's own) stopping leaves it watched.
    rounds.watch('ready-spec-job', 1000);
    rounds.unwatch('ready-spec-job');
    expect([...rounds.jobs.keys()]).to.deep.equal(['ready-spec-job']);
    // Started here a moment ago, never run anywhere: not stalled yet.
    expect(await rounds.stalled()).to.deep.equal([]);
    await rounds.won('ready-spec-job', 1000);
    await anHourAgo('ready-spec-job');
    const [hung, ...others] = await rounds.stalled();
    expect(others).to.deep.equal([]);
    expect(hung).to.deep.include({
      name: 'ready-spec-job',
      allowedSeconds: READY_MIN_STALL_SECONDS,
      reason: 'no round has ended: no instance holds its lease, or its round hangs',
    });
    expect(hung!.secondsSinceGoodRound).to.be.within(3600, 3700);
    await rounds.good('ready-spec-job', 1000);
    expect(await rounds.stalled()).to.deep.equal([]);
    rounds.unwatch('ready-spec-job');
    expect([...rounds.jobs.keys()]).to.deep.equal([]);
    await sql`DELETE FROM leased_job_rounds WHERE lease = 'ready-spec-job'`.execute(a.service.services.db);
  });

  it('allows 5 rounds of a job, never less than 30 s', () => {
    expect([allowedSecondsOf(1000), allowedSecondsOf(10_000), allowedSecondsOf(60_000)]).to.deep.equal([30, 50, 300]);
  });

  it('writes a good round at most once per half its allowed time, and the first good round after a failure or a win at once', async () => {
    expect([goodRoundWriteMsOf(1000), goodRoundWriteMsOf(10_000), goodRoundWriteMsOf(60_000)]).to.deep.equal([15_000, 25_000, 150_000]);
    const { db } = a.service.services;
    const good = async (): Promise<number> =>
      (await sql<{ good: Date }>`SELECT good FROM leased_job_rounds WHERE lease = 'ready-spec-writes'`.execute(db)).rows[0]!.good.getTime();
    const rounds = new JobRounds(db);
    await rounds.good('ready-spec-writes', 1000);
    const first = await good();
    await rounds.good('ready-spec-writes', 1000);
    expect(await good()).to.equal(first);
    await rounds.failed('ready-spec-writes', 1000, new Error('down'));
    await rounds.good('ready-spec-writes', 1000);
    const afterFailure = await good();
    expect(afterFailure).to.be.above(first);
    await rounds.won('ready-spec-writes', 1000);
    await rounds.good('ready-spec-writes', 1000);
    expect(await good()).to.be.above(afterFailure);
    await sql`DELETE FROM leased_job_rounds WHERE lease = 'ready-spec-writes'`.execute(db);
  });

  it('the news sync is watched only with feeds to read', async () => {
    const leases = { hold: () => ({ release: () => Promise.resolve() }) } as unknown as Leases;
    const watched = async (feeds: string[]) => {
      const rounds = new JobRounds(a.service.services.db);
      const sync = new MarketNewsSync({ services: a.service.services, leases, feeds, everyMs: 60_000, rounds });
      sync.start();
      const names = [...rounds.jobs.keys()];
      await sync.stop();
      expect([...rounds.jobs.keys()]).to.deep.equal([]);
      return names;
    };
    expect(await watched([])).to.deep.equal([]);
    expect(await watched(['file:///nowhere.xml'])).to.deep.equal(['market-news-sync']);
  });
});
