// Market news articles (spec "Economic calendar, news and alerts": GET /marketNews with category, impact,
// sentiment and currencies): what a feed item becomes, by rules. Pure: the feeds are read by a NewsSource
// (engine/news/source.ts), the sentiment score comes from a lexicon (engine/news/sentiment.ts).
//   - id: a UUID v5 of the item's guid (else its link, else its title and the date the feed gives): the same
//     item read twice is one, also when the feed gives no date (the time of reading stands in for it then,
//     but is no part of the id, and `dated` says so).
//   - category: the first rule whose words appear in the title or summary (CENTRAL_BANKS, ECONOMY,
//     FOREX, COMMODITIES, CRYPTO, EQUITIES, GEOPOLITICS), else GENERAL.
//   - currencies: ISO codes, currency names and central banks named in the text (Fed: USD; ECB: EUR ...).
//   - impact: HIGH when it names a rate decision, payrolls, CPI/inflation, GDP or a central bank head;
//     MEDIUM for the other economy and central bank items; LOW otherwise.
//   - sentiment: POSITIVE above +1 of the lexicon's comparative score x 10, NEGATIVE below -1, else NEUTRAL.
import { v5 as uuidv5 } from 'uuid';

/** Fixed forever: article ids derive from it. */
export const ARTICLE_NAMESPACE = 'c0b5e3a2-8f6d-4c1e-9a7b-3d2f1e0a9c84';

export const CATEGORIES = ['CENTRAL_BANKS', 'ECONOMY', 'FOREX', 'COMMODITIES', 'CRYPTO', 'EQUITIES', 'GEOPOLITICS', 'GENERAL'] as const;
export type NewsCategory = (typeof CATEGORIES)[number];
export const NEWS_IMPACTS = ['LOW', 'MEDIUM', 'HIGH'] as const;
export type NewsImpact = (typeof NEWS_IMPACTS)[number];
export const SENTIMENTS = ['POSITIVE', 'NEUTRAL', 'NEGATIVE'] as const;
export type NewsSentiment = (typeof SENTIMENTS)[number];

/** A feed item as a source reads it. */
export interface FeedItem {
  readonly guid: string | null;
  readonly title: string;
  readonly link: string | null;
  readonly summary: string | null;
  readonly publishedAt: string | null;
}

export interface Article {
  readonly articleId: string;
  readonly source: string;
  /** The feed's guid of the item (articles published before it was kept have none). */
  readonly guid?: string | null;
  readonly title: string;
  readonly link: string | null;
  readonly summary: string | null;
  readonly publishedAt: string;
  readonly category: NewsCategory;
  readonly currencies: readonly string[];
  readonly impact: NewsImpact;
  readonly sentiment: NewsSentiment;
  /** The lexicon's comparative score (per word), rounded to 4 digits. */
  readonly sentimentScore: number;
  /** false: the feed gave no readable date and publishedAt is the time the article was read. */
  readonly dated: boolean;
}

/** Two dated articles of the same title published at most this many minutes apart tell the same story. */
export const TITLE_MATCH_MINUTES = 30;

/** A link without scheme, "www.", fragment, tracking parameters (utm_*) and trailing slash. */
const linkKey = (link: string): string => {
  try {
    const url = new URL(link);
    for (const name of [...url.searchParams.keys()]) if (name.toLowerCase().startsWith('utm_')) url.searchParams.delete(name);
    const search = url.searchParams.toString();
    return `link:${url.hostname.toLowerCase().replace(/^www\./, '')}${url.pathname.replace(/\/+$/, '')}${search ? `?${search}` : ''}`;
  } catch {
    return `link:${link.trim().toLowerCase()}`;
  }
};

/**
 * What tells the same story from two feeds by equality (an article remembers each feed that brought it):
 * its link (linkKey), and its guid when the guid is a URI, so meant to be unique beyond its feed: a URL
 * guid is a link like any other, another (urn:uuid:..., tag:...) is compared as it is; a guid without a
 * scheme ("1234") is the feed's own numbering and tells nothing across feeds. The title is compared
 * within a window of minutes (titleKeyOf).
 */
export const storyKeysOf = (article: Pick<Article, 'link' | 'guid'>): string[] => {
  const keys = new Set<string>();
  if (article.link) keys.add(linkKey(article.link));
  const guid = article.guid?.trim();
  if (guid && /^[a-z][a-z0-9+.-]*:\S/i.test(guid)) keys.add(/^https?:\/\//i.test(guid) ? linkKey(guid) : `guid:${guid}`);
  return [...keys];
};

/**
 * The title in lower case without punctuation, when the feed dated the article (null otherwise): two
 * articles with this key published at most TITLE_MATCH_MINUTES apart tell the same story.
 */
export const titleKeyOf = (article: Pick<Article, 'title' | 'dated'>): string | null => {
  const title = article.title
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
  return article.dated && title ? title : null;
};

/** The members a later reading may change: a change is a revision of the article (domain/news/decider.ts). */
export const REVISABLE_MEMBERS = ['title', 'link', 'summary', 'publishedAt', 'category', 'currencies', 'impact', 'sentiment', 'sentimentScore'] as const;
export type RevisableMember = (typeof REVISABLE_MEMBERS)[number];

const words = (list: string): RegExp => new RegExp(`\\b(?:${list})\\b`, 'i');

const CATEGORY_RULES: readonly [NewsCategory, RegExp][] = [
  [
    'CENTRAL_BANKS',
    words(
      'central bank|fed|federal reserve|fomc|ecb|boe|bank of england|boj|bank of japan|snb|rba|rbnz|bank of canada|boc|rate decision|rate cut|rate hike|interest rates?|monetary policy|powell|lagarde|bailey|ueda',
    ),
  ],
  ['ECONOMY', words('gdp|inflation|cpi|ppi|payrolls?|nfp|unemployment|jobless|retail sales|pmi|recession|economy|economic|trade balance|consumer confidence')],
  ['CRYPTO', words('bitcoin|btc|ether|ethereum|crypto|cryptocurrenc(?:y|ies)|stablecoin|blockchain')],
  ['COMMODITIES', words('oil|crude|brent|wti|opec|gold|silver|copper|natural gas|commodit(?:y|ies)|wheat')],
  ['FOREX', words('forex|fx|currency|currencies|dollar|euro|sterling|pound|yen|franc|loonie|aussie|kiwi|yuan|exchange rate|[A-Z]{3}/[A-Z]{3}')],
  ['EQUITIES', words('stocks?|shares|equit(?:y|ies)|s&p|nasdaq|dow|index|indices|earnings|ipo|wall street')],
  ['GEOPOLITICS', words('war|sanctions?|election|tariffs?|conflict|ceasefire|geopolitic(?:s|al)|summit')],
];

const CURRENCY_RULES: readonly [string, RegExp][] = [
  ['USD', words('usd|dollar|greenback|fed|federal reserve|fomc|powell|u\\.s\\.|us|united states|nfp|nonfarm|non-farm')],
  ['EUR', words('eur|euro|eurozone|euro area|ecb|lagarde')],
  ['GBP', words('gbp|sterling|pound|boe|bank of england|bailey|uk|britain|british')],
  ['JPY', words('jpy|yen|boj|bank of japan|ueda|japan|japanese')],
  ['CHF', words('chf|swiss franc|snb|swiss national bank|switzerland')],
  ['CAD', words('cad|loonie|canadian dollar|bank of canada|boc|canada')],
  ['AUD', words('aud|aussie|australian dollar|rba|reserve bank of australia|australia')],
  ['NZD', words('nzd|kiwi|new zealand dollar|rbnz|new zealand')],
  ['CNY', words('cny|cnh|yuan|renminbi|pboc|china|chinese')],
];

const HIGH_IMPACT = words(
  'rate decision|rate cut|rate hike|raises rates|cuts rates|holds rates|payrolls?|nfp|nonfarm|non-farm|cpi|inflation|gdp|powell|lagarde|bailey|ueda|fomc',
);

/** The currencies named in the text, also those of pairs written EUR/USD or EURUSD. */
export const currenciesOf = (text: string): string[] => {
  const found = new Set<string>();
  for (const [currency, rule] of CURRENCY_RULES) if (rule.test(text)) found.add(currency);
  for (const pair of text.matchAll(/\b([A-Z]{3})\/?([A-Z]{3})\b/g)) {
    for (const code of [pair[1]!, pair[2]!]) if (CURRENCY_RULES.some(([c]) => c === code)) found.add(code);
  }
  return CURRENCY_RULES.map(([c]) => c).filter((c) => found.has(c));
};

export const categoryOf = (text: string): NewsCategory => CATEGORY_RULES.find(([, rule]) => rule.test(text))?.[0] ?? 'GENERAL';

export const impactOf = (text: string, category: NewsCategory): NewsImpact =>
  HIGH_IMPACT.test(text) ? 'HIGH' : category === 'CENTRAL_BANKS' || category === 'ECONOMY' ? 'MEDIUM' : 'LOW';

export const sentimentOf = (comparative: number): NewsSentiment => (comparative * 10 > 1 ? 'POSITIVE' : comparative * 10 < -1 ? 'NEGATIVE' : 'NEUTRAL');

const plain = (html: string | null): string | null => {
  if (html === null) return null;
  const text = html
    .replace(/<[^>]*>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, ' ')
    .trim();
  return text === '' ? null : text.slice(0, 2000);
};

/**
 * A feed item as an article of `source`, categorised and tagged by the rules; `score` gives the
 * lexicon's comparative score of a text; `fetchedAt` stands in for a missing or unreadable date.
 */
export const articleOf = (source: string, item: FeedItem, score: (text: string) => number, fetchedAt: string): Article => {
  const summary = plain(item.summary);
  const title = plain(item.title) ?? '(untitled)';
  const text = `${title}. ${summary ?? ''}`;
  const category = categoryOf(text);
  const dated = !!item.publishedAt && !Number.isNaN(Date.parse(item.publishedAt));
  const published = dated ? new Date(item.publishedAt!).toISOString() : fetchedAt;
  const key = item.guid ?? item.link ?? `${title}/${dated ? published : ''}`;
  const comparative = score(text);
  return {
    articleId: uuidv5(`${source}/${key}`, ARTICLE_NAMESPACE),
    source,
    guid: item.guid,
    title,
    link: item.link,
    summary,
    publishedAt: published,
    category,
    currencies: currenciesOf(text),
    impact: impactOf(text, category),
    sentiment: sentimentOf(comparative),
    sentimentScore: Math.round(comparative * 1e4) / 1e4,
    dated,
  };
};
