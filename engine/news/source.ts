// Where market news comes from (issue 18): the NewsSource port, with the RSS/Atom feeds the operator
// configures read by rss-parser, from a file (a recorded feed, offline) or over HTTP. Items become
// articles by the rules of domain/news/article.ts, with the sentiment of the `sentiment` lexicon.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import Parser from 'rss-parser';
import Sentiment from 'sentiment';
import { type Article, articleOf, type FeedItem } from '../../domain/news/article.js';

export interface NewsSource {
  /** Names the source in every article (the feed's URL or `file:NAME`). */
  readonly name: string;
  /** The articles the source holds now. */
  read(now: string): Promise<readonly Article[]>;
}

const lexicon = new Sentiment();
/** The lexicon's comparative score (AFINN-165: the sum of word scores per word). */
export const sentimentScore = (text: string): number => lexicon.analyze(text).comparative;

const parser = new Parser({ timeout: 10_000 });

/** The items of an RSS 2.0 or Atom document. */
export const feedItemsOf = async (xml: string): Promise<FeedItem[]> => {
  const feed = await parser.parseString(xml);
  return feed.items.map((item) => ({
    guid: item.guid ?? (item as { id?: string }).id ?? null,
    title: item.title ?? '',
    link: item.link ?? null,
    summary: item.contentSnippet ?? item.content ?? item.summary ?? null,
    publishedAt: item.isoDate ?? item.pubDate ?? null,
  }));
};

const articlesOf = async (name: string, xml: string, now: string): Promise<Article[]> =>
  (await feedItemsOf(xml)).map((item) => articleOf(name, item, sentimentScore, now));

/** A recorded feed in a file. */
export const feedFileSource = (file: string, name = `file:${path.basename(file)}`): NewsSource => ({
  name,
  read: async (now) => articlesOf(name, await readFile(file, 'utf8'), now),
});

/** A feed over HTTP(S), fetched with a timeout; a status other than 2xx is an error. */
export const feedUrlSource = (url: string, timeoutMs = 10_000): NewsSource => ({
  name: url,
  async read(now) {
    const res = await fetch(url, {
      signal: AbortSignal.timeout(timeoutMs),
      headers: { accept: 'application/rss+xml, application/atom+xml, application/xml;q=0.9, */*;q=0.5' },
    });
    if (!res.ok) throw new Error(`news feed ${url}: HTTP ${res.status}`);
    return articlesOf(url, await res.text(), now);
  },
});
