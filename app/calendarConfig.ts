// The economic calendar's configuration (environment variables, checked at start with the rest, app/config.ts):
//   CALENDAR_FEED_URL       unset     an http(s) URL of the weekly-calendar feed (JSON or XML), synced on a schedule
//   CALENDAR_SYNC_MINUTES   60        how often the feed is fetched, 1 to 1440
//   CALENDAR_SAMPLE_WEEK    true      at the first start (no calendar event yet) the sample week of data/calendar
//                                     is imported, moved to the current week
// The watched folder is DATA_DIR/calendar: a CSV, JSON, XML or iCal file put there is imported, and again
// whenever it changes.

export interface CalendarConfig {
  readonly feedUrl: string | null;
  readonly syncMinutes: number;
  readonly sampleWeek: boolean;
}

export const loadCalendarConfig = (
  env: NodeJS.ProcessEnv,
  parse: {
    integer: (name: string, value: string | undefined, fallback: number, min: number, max: number) => number;
    flag: (name: string, value: string | undefined) => boolean;
  },
  fail: (message: string) => Error,
): CalendarConfig => {
  const feedUrl = env.CALENDAR_FEED_URL?.trim() || null;
  if (feedUrl) {
    let url: URL | null = null;
    try {
      url = new URL(feedUrl);
    } catch {
      url = null;
    }
    if (!url || !['http:', 'https:'].includes(url.protocol)) throw fail(`CALENDAR_FEED_URL must be an http:// or https:// URL, got "${feedUrl}"`);
  }
  return {
    feedUrl,
    syncMinutes: parse.integer('CALENDAR_SYNC_MINUTES', env.CALENDAR_SYNC_MINUTES, 60, 1, 1440),
    sampleWeek:
      env.CALENDAR_SAMPLE_WEEK === undefined || env.CALENDAR_SAMPLE_WEEK.trim() === '' ? true : parse.flag('CALENDAR_SAMPLE_WEEK', env.CALENDAR_SAMPLE_WEEK),
  };
};
