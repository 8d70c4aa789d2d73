// Market news configuration (environment variables, checked at start with the rest, app/config.ts):
//   NEWS_FEEDS          unset   comma-separated RSS or Atom feeds: http(s):// URLs, or file:///path of a
//                               feed file kept on the machine (a recorded feed, offline)
//   NEWS_SYNC_MINUTES   15      how often every feed is read, 1 to 1440
// Unset, there is no news: GET /projects/{projectId}/marketNews answers an empty page.

export interface MarketNewsConfig {
  readonly feeds: readonly string[];
  readonly syncMinutes: number;
}

/** At most this many feeds. */
export const MAX_NEWS_FEEDS = 50;

export const loadMarketNewsConfig = (
  env: NodeJS.ProcessEnv,
  parse: { integer: (name: string, value: string | undefined, fallback: number, min: number, max: number) => number },
  fail: (message: string) => Error,
): MarketNewsConfig => {
  const feeds = [
    ...new Set(
      (env.NEWS_FEEDS ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
  if (feeds.length > MAX_NEWS_FEEDS) throw fail(`NEWS_FEEDS names ${feeds.length} feeds, at most ${MAX_NEWS_FEEDS}`);
  for (const feed of feeds) {
    let url: URL | null;
    try {
      url = new URL(feed);
    } catch {
      url = null;
    }
    if (!url || !['http:', 'https:', 'file:'].includes(url.protocol))
      throw fail(`NEWS_FEEDS must list http://, https:// or file:/// URLs of RSS or Atom feeds, comma-separated; got "${feed}"`);
  }
  return { feeds, syncMinutes: parse.integer('NEWS_SYNC_MINUTES', env.NEWS_SYNC_MINUTES, 15, 1, 1440) };
};
