// The market news sync, one leased job (store/postgres/leases.ts: of several instances one reads the feeds
// at a time; a dead instance's turn moves within seconds), like app/calendarSync.ts (store/postgres/leasedLoop.ts): every
// NEWS_SYNC_MINUTES it reads each feed of NEWS_FEEDS (app/marketNewsConfig.ts) and imports its articles
// (app/marketNews.ts). The time of the last pass is kept in processor_checkpoints (`marketNews:feeds`), so
// an instance taking the lease over does not read the feeds again before the interval has passed. A feed
// that fails is logged and read again at the next pass; the others are read all the same. Each read is
// recorded per feed (app/marketNewsFeeds.ts: last good read, failures in a row) for /metrics.
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { feedFileSource, feedUrlSource, type NewsSource } from '../engine/news/source.js';
import type { JobRounds } from '../store/postgres/jobRounds.js';
import { LeasedLoop } from '../store/postgres/leasedLoop.js';
import type { Leases } from '../store/postgres/leases.js';
import { importMarketNews, type MarketNewsImport } from './marketNews.js';
import { recordFeedRead } from './marketNewsFeeds.js';
import type { CommandServices } from './services.js';

export const MARKET_NEWS_SYNC_LEASE = 'market-news-sync';
export const MARKET_NEWS_CHECKPOINT = 'marketNews:feeds';

/** The source of one configured feed: a file:/// URL is a feed file on this machine, the others are fetched. */
export const newsSourceOf = (feed: string): NewsSource => (feed.startsWith('file:') ? feedFileSource(fileURLToPath(feed), feed) : feedUrlSource(feed));

export interface MarketNewsSyncDeps {
  readonly services: CommandServices;
  readonly leases: Leases;
  readonly feeds: readonly string[];
  readonly everyMs: number;
  /** How often the lease holder looks whether a pass is due (default 10 s). */
  readonly lookMs?: number;
  /** Where its rounds are recorded for /ready. */
  readonly rounds?: JobRounds;
}

/**
 * Reads every feed of `feeds` when a pass is due (the last one, by any instance, is `everyMs` ago) or
 * `force`d; null when none was due; otherwise what each feed brought (a feed that failed is left out).
 */
export const syncMarketNews = async (
  services: CommandServices,
  { feeds, everyMs }: { feeds: readonly string[]; everyMs: number },
  force = false,
): Promise<MarketNewsImport[] | null> => {
  const { db, clock, log } = services;
  const now = clock();
  if (!force) {
    const last = await db
      .withTables<{ processor_checkpoints: { name: string; updated: Date } }>()
      .selectFrom('processor_checkpoints')
      .select('updated')
      .where('name', '=', MARKET_NEWS_CHECKPOINT)
      .executeTakeFirst();
    if (last && now.getTime() - new Date(last.updated).getTime() < everyMs) return null;
  }
  const results: MarketNewsImport[] = [];
  for (const feed of feeds) {
    try {
      const result = await importMarketNews(services, newsSourceOf(feed));
      await recordFeedRead(db, feed);
      results.push(result);
      if (result.published + result.revised > 0)
        log.info(`market news ${feed}: ${result.published} new, ${result.revised} revised, ${result.unchanged} unchanged`);
    } catch (error) {
      log.warn(`market news feed ${feed} could not be read (tried again at the next pass): ${String(error)}`);
      await recordFeedRead(db, feed, error);
    }
  }
  await sql`INSERT INTO processor_checkpoints (name, position, updated) VALUES (${MARKET_NEWS_CHECKPOINT}, NULL, ${now})
    ON CONFLICT (name) DO UPDATE SET updated = EXCLUDED.updated`.execute(db);
  return results;
};

export class MarketNewsSync {
  private readonly loop: LeasedLoop;

  constructor(private readonly deps: MarketNewsSyncDeps) {
    this.loop = new LeasedLoop({
      leases: deps.leases,
      lease: MARKET_NEWS_SYNC_LEASE,
      everyMs: deps.lookMs ?? 10_000,
      ...(deps.rounds ? { rounds: deps.rounds } : {}),
      round: async () => {
        await syncMarketNews(deps.services, deps);
      },
      failed: (error) => deps.services.log.warn(`market news sync failed (tried again later): ${String(error)}`),
    });
  }

  /** Without a feed there is nothing to read: no lease is taken. */
  start(): void {
    if (this.deps.feeds.length > 0) this.loop.start();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
  }
}
