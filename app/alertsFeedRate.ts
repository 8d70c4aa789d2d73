// The iCal feed's rate limit (GET /projects/{projectId}/economicCalendar.ics), per subscription and shared
// by every instance of the service: a counter per subscription and one-minute window in PostgreSQL
// (calendar_feed_rate, projections/migrations.ts 0011), taken in one statement, so requests spread over
// instances behind a load balancer count together. Windows are whole minutes of the service's clock.
import { type Kysely, sql } from 'kysely';
import type { ReadModels } from '../projections/schema.js';

export const FEED_RATE_PER_MINUTE = 12;
const WINDOW_MS = 60_000;

/**
 * Counts one request of `subscriptionId` at `now`: null when it is within `perMinute` of its window,
 * else the seconds until the next window (Retry-After). Refused requests count too.
 */
export const takeFeedRequest = async (db: Kysely<ReadModels>, subscriptionId: string, now: Date, perMinute = FEED_RATE_PER_MINUTE): Promise<number | null> => {
  const windowStart = new Date(Math.floor(now.getTime() / WINDOW_MS) * WINDOW_MS);
  const { rows } = await sql<{ count: number }>`INSERT INTO calendar_feed_rate (subscription_id, window_start, count)
    VALUES (${subscriptionId}, ${windowStart}, 1)
    ON CONFLICT (subscription_id) DO UPDATE SET
      count = CASE WHEN calendar_feed_rate.window_start = EXCLUDED.window_start THEN calendar_feed_rate.count + 1 ELSE 1 END,
      window_start = EXCLUDED.window_start
    RETURNING count`.execute(db);
  if ((rows[0]?.count ?? 0) <= perMinute) return null;
  return Math.max(1, Math.ceil((windowStart.getTime() + WINDOW_MS - now.getTime()) / 1000));
};
