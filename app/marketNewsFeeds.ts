// The state of each market news feed (issue 18): when the sync (app/marketNewsSync.ts) last read it well
// and how many reads of it have failed in a row since, with the last error. One row per feed in
// market_news_feeds (read-model migration 0031), written by whichever instance holds the sync's lease, so
// every instance's /metrics shows it (api/metrics.ts: copytrade_news_feed_last_success_timestamp_seconds
// and copytrade_news_feed_consecutive_failures, by feed). A feed that is down does not make an instance
// unready (a vendor outage is no fault of the service's): the metric is where an operator sees it.
import { type Kysely, sql } from 'kysely';
import type { ReadModels } from '../projections/schema.js';

const ERROR_LENGTH = 500;

export interface FeedState {
  /** The feed as configured (NEWS_FEEDS). */
  readonly feed: string;
  /** Unix seconds of the last good read; null: never read well. */
  readonly lastSuccess: number | null;
  /** Reads that failed since the last good one. */
  readonly consecutiveFailures: number;
  readonly lastError: string | null;
}

/** The feed's label in /metrics: its URL without credentials, query or fragment (they may hold a key). */
export const feedLabel = (feed: string): string => {
  try {
    const url = new URL(feed);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return feed.replace(/[?#].*$/, '');
  }
};

/** Records a read of `feed`: good (no `error`) or failed with `error`. */
export const recordFeedRead = async (db: Kysely<ReadModels>, feed: string, error?: unknown): Promise<void> => {
  const statement =
    error === undefined
      ? sql`INSERT INTO market_news_feeds (feed, last_success, consecutive_failures) VALUES (${feed}, now(), 0)
        ON CONFLICT (feed) DO UPDATE SET last_success = excluded.last_success, consecutive_failures = 0`
      : sql`INSERT INTO market_news_feeds (feed, last_failure, consecutive_failures, last_error)
        VALUES (${feed}, now(), 1, ${(error instanceof Error ? error.message : String(error)).slice(0, ERROR_LENGTH)})
        ON CONFLICT (feed) DO UPDATE SET last_failure = excluded.last_failure,
          consecutive_failures = market_news_feeds.consecutive_failures + 1, last_error = excluded.last_error`;
  await statement.execute(db);
};

/** The state of each of `feeds`, in their order; a feed never read yet: no success, no failure. */
export const feedStates = async (db: Kysely<ReadModels>, feeds: readonly string[]): Promise<FeedState[]> => {
  if (feeds.length === 0) return [];
  const rows = (
    await sql<{ feed: string; last_success: number | null; consecutive_failures: number; last_error: string | null }>`
    SELECT feed, EXTRACT(EPOCH FROM last_success)::float8 AS last_success, consecutive_failures, last_error
    FROM market_news_feeds WHERE feed = ANY(${[...feeds]}::text[])`.execute(db)
  ).rows;
  const byFeed = new Map(rows.map((r) => [r.feed, r]));
  return feeds.map((feed) => {
    const row = byFeed.get(feed);
    return {
      feed,
      lastSuccess: row?.last_success ?? null,
      consecutiveFailures: row?.consecutive_failures ?? 0,
      lastError: row?.last_error ?? null,
    };
  });
};
