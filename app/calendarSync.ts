// The economic calendar's background work, one leased job (store/postgres/leases.ts: of several
// instances one syncs at a time; a dead instance's turn moves within seconds):
//   - the sample week (data/calendar/sample-week.json) at the first start, when no calendar event exists
//     yet and CALENDAR_SAMPLE_WEEK is on, moved to the current week (each date keeps weekday and time);
//   - the watched folder DATA_DIR/calendar: a calendar file put there (or changed: a new size or
//     modification time) is imported at the next look;
//   - the online feed (CALENDAR_FEED_URL) every CALENDAR_SYNC_MINUTES, its last sync kept in
//     processor_checkpoints (`calendar:feed`) so an instance taking the lease over does not fetch again
//     before the interval has passed. A failed fetch is logged and tried again at the next look.
// Every source ends in importCalendar (app/calendar.ts): a changed forecast becomes a revision.
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { sql } from 'kysely';
import { type CalendarSource, fileSource, httpSource, textSource } from '../engine/calendar/source.js';
import type { JobRounds } from '../store/postgres/jobRounds.js';
import { LeasedLoop } from '../store/postgres/leasedLoop.js';
import type { Leases } from '../store/postgres/leases.js';
import { type CalendarImport, importCalendar } from './calendar.js';
import { projectFile } from './projectRoot.js';
import type { CommandServices } from './services.js';

export const CALENDAR_SYNC_LEASE = 'calendar-sync';
export const CALENDAR_FEED_CHECKPOINT = 'calendar:feed';
export const SAMPLE_WEEK_FILE = projectFile('data/calendar/sample-week.json');
const CALENDAR_FILES = /\.(csv|json|xml|ics|ical)$/i;
const WEEK_MS = 7 * 86_400_000;

/** Feed syncs written by this process (any CalendarSync here): moves whenever one wrote CALENDAR_FEED_CHECKPOINT. */
let feedSyncsHere = 0;

/**
 * A mark that moves whenever the online feed was synced (its checkpoint written), as far as this
 * instance can tell: only the holder of CALENDAR_SYNC_LEASE syncs it, so while this instance holds
 * that lease (the term's fencing token in the mark) every sync is one of its own; null while it does
 * not (another instance may sync: readers read the checkpoint). For kept reads (projections/keptRead.ts).
 */
export const calendarFeedMark = (leases: Pick<Leases, 'epochOf'>): string | null => {
  const epoch = leases.epochOf(CALENDAR_SYNC_LEASE);
  return epoch === undefined ? null : `${epoch}:${feedSyncsHere}`;
};

/** The sample week's body with every date moved by whole weeks into the week of `now` (weeks from Monday, UTC). */
export const sampleWeekAt = (body: string, now: Date): string => {
  const sample = JSON.parse(body) as { referenceMonday: string; events: { date: string }[] };
  const monday = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - ((now.getUTCDay() + 6) % 7)));
  const shift = Math.round((monday.getTime() - Date.parse(`${sample.referenceMonday}T00:00:00Z`)) / WEEK_MS) * WEEK_MS;
  return JSON.stringify({ events: sample.events.map((e) => ({ ...e, date: new Date(Date.parse(e.date) + shift).toISOString() })) });
};

export interface CalendarSyncDeps {
  readonly services: CommandServices;
  readonly leases: Leases;
  /** DATA_DIR/calendar. */
  readonly folder: string;
  readonly feedUrl: string | null;
  readonly feedEveryMs: number;
  readonly sampleWeek: boolean;
  /** How often the lease holder looks at the folder and whether the feed is due (default 10 s). */
  readonly lookMs?: number;
  readonly fetch?: typeof fetch;
  /** Where its rounds are recorded for /ready. */
  readonly rounds?: JobRounds;
}

export class CalendarSync {
  private readonly loop: LeasedLoop;
  private sampled = false;
  /** Files imported, by name: size and modification time then. */
  private readonly seen = new Map<string, string>();

  constructor(private readonly deps: CalendarSyncDeps) {
    this.loop = new LeasedLoop({
      leases: deps.leases,
      lease: CALENDAR_SYNC_LEASE,
      everyMs: deps.lookMs ?? 10_000,
      round: (signal) => this.round(signal),
      ...(deps.rounds ? { rounds: deps.rounds } : {}),
      failed: (error) => this.log.warn(`calendar sync failed (tried again later): ${String(error)}`),
      won: () => {
        this.sampled = false;
      },
    });
  }

  start(): void {
    this.loop.start();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
  }

  private get log() {
    return this.deps.services.log;
  }

  private async run(source: CalendarSource): Promise<CalendarImport> {
    const result = await importCalendar(this.deps.services, source);
    if (result.published + result.revised > 0 || result.skipped.length > 0) {
      this.log.info(
        `calendar ${result.source}: ${result.published} published, ${result.revised} revised, ${result.unchanged} unchanged${result.skipped.length ? `, ${result.skipped.length} skipped (${result.skipped.slice(0, 3).join('; ')})` : ''}`,
      );
    }
    return result;
  }

  /** The sample week, when it is on and the calendar is empty; null when not imported. */
  async sampleIfEmpty(): Promise<CalendarImport | null> {
    if (!this.deps.sampleWeek) return null;
    const any = await this.deps.services.db.selectFrom('calendar_events').select('event_id').limit(1).executeTakeFirst();
    if (any) return null;
    const body = sampleWeekAt(await readFile(SAMPLE_WEEK_FILE, 'utf8'), this.deps.services.clock());
    return this.run(textSource('sample', 'json', body));
  }

  /** Imports the watched folder's new and changed files; answers what each import did. */
  async scanFolder(): Promise<CalendarImport[]> {
    let names: string[];
    try {
      names = (await readdir(this.deps.folder)).filter((n) => CALENDAR_FILES.test(n)).sort();
    } catch {
      return [];
    }
    const results: CalendarImport[] = [];
    for (const name of names) {
      const file = path.join(this.deps.folder, name);
      const info = await stat(file).catch(() => null);
      if (!info?.isFile()) continue;
      const mark = `${info.size}/${info.mtimeMs}`;
      if (this.seen.get(name) === mark) continue;
      try {
        results.push(await this.run(fileSource(file)));
      } catch (error) {
        this.log.warn(`calendar file ${name} could not be imported: ${String(error)}`);
      }
      this.seen.set(name, mark);
    }
    return results;
  }

  /** Fetches the feed when it is configured and due (or `force`d); null when nothing was fetched. */
  async syncFeed(force = false): Promise<CalendarImport | null> {
    const url = this.deps.feedUrl;
    if (!url) return null;
    const { db, clock } = this.deps.services;
    const now = clock();
    if (!force) {
      const last = await db
        .withTables<{ processor_checkpoints: { name: string; updated: Date } }>()
        .selectFrom('processor_checkpoints')
        .select('updated')
        .where('name', '=', CALENDAR_FEED_CHECKPOINT)
        .executeTakeFirst();
      if (last && now.getTime() - new Date(last.updated).getTime() < this.deps.feedEveryMs) return null;
    }
    const result = await this.run(httpSource(url, this.deps.fetch ? { fetch: this.deps.fetch } : {}));
    try {
      await sql`INSERT INTO processor_checkpoints (name, position, updated) VALUES (${CALENDAR_FEED_CHECKPOINT}, NULL, ${now})
        ON CONFLICT (name) DO UPDATE SET updated = EXCLUDED.updated`.execute(db);
    } finally {
      // Also when the write's answer was lost: the checkpoint may have moved.
      feedSyncsHere += 1;
    }
    return result;
  }

  /** One look: the sample week (once per win of the lease), the folder, the feed if due; each step on its own. */
  private async round(signal: AbortSignal): Promise<void> {
    for (const [what, step] of [
      [
        'sample week',
        async () => {
          if (this.sampled) return;
          await this.sampleIfEmpty();
          this.sampled = true;
        },
      ],
      ['folder', () => this.scanFolder()],
      ['feed', () => this.syncFeed()],
    ] as const) {
      if (signal.aborted) break;
      try {
        await step();
      } catch (error) {
        this.log.warn(`calendar ${what} sync failed (tried again later): ${String(error)}`);
      }
    }
  }
}
