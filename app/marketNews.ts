// Market news (spec "Economic calendar, news and alerts": GET /projects/{projectId}/marketNews): importing
// what a NewsSource reads (engine/news/source.ts) as events on each article (domain/news: an article read
// again is the same article; a changed one is a revision), and the project's filtered page of articles.
// The same story from a second feed (storyKeysOf: its link or its URI guid; titleKeyOf: its title, published
// within TITLE_MATCH_MINUTES) is no second article: the reading goes to the article that has it, which
// remembers that feed among its sources.
import { sql } from 'kysely';
import { type Article, storyKeysOf, TITLE_MATCH_MINUTES, titleKeyOf } from '../domain/news/article.js';
import { marketNewsDecider } from '../domain/news/decider.js';
import { marketNewsStream } from '../domain/news/events.js';
import { systemContext } from '../domain/shared/command.js';
import type { NewsSource } from '../engine/news/source.js';
import { type MarketNewsFilter, marketNewsPage } from '../projections/marketNews/queries.js';
import { handleCommand } from '../store/commandHandler.js';
import { type CommandServices, type Services, settle } from './services.js';

export const MARKET_NEWS_READ_MODELS = ['marketNews'];

export interface MarketNewsImport {
  readonly source: string;
  /** Articles the source held. */
  readonly read: number;
  readonly published: number;
  readonly revised: number;
  readonly unchanged: number;
}

const TITLE_WINDOW_MS = TITLE_MATCH_MINUTES * 60_000;

/** The stories published by one import (the read model has them only after it). */
interface ImportedStories {
  readonly keys: Map<string, string>;
  readonly titles: { readonly title: string; readonly at: number; readonly articleId: string }[];
}

/**
 * The article as it is recorded: under its own id when that article exists or no other has its story,
 * else under the id of the article that has the story (published earlier, or by this import).
 */
const sameStory = async (services: CommandServices, article: Article, stories: ImportedStories): Promise<Article> => {
  const keys = storyKeysOf(article);
  const title = titleKeyOf(article);
  if (keys.length === 0 && title === null) return article;
  const own = await services.db.selectFrom('market_news_articles').select('article_id').where('article_id', '=', article.articleId).executeTakeFirst();
  if (own) return article;
  const at = Date.parse(article.publishedAt);
  const here =
    keys.map((k) => stories.keys.get(k)).find((id) => id !== undefined && id !== article.articleId) ??
    stories.titles.find((s) => s.title === title && Math.abs(s.at - at) <= TITLE_WINDOW_MS && s.articleId !== article.articleId)?.articleId;
  if (here) return { ...article, articleId: here };
  const byKeys = keys.length > 0 ? sql<boolean>`story_keys && ${keys}::text[]` : sql<boolean>`false`;
  const byTitle =
    title === null
      ? sql<boolean>`false`
      : sql<boolean>`(title_key = ${title} AND published_at BETWEEN ${new Date(at - TITLE_WINDOW_MS)} AND ${new Date(at + TITLE_WINDOW_MS)})`;
  const other = await services.db
    .selectFrom('market_news_articles')
    .select('article_id')
    .where(sql<boolean>`(${byKeys} OR ${byTitle})`)
    .orderBy('created')
    .orderBy('article_id')
    .limit(1)
    .executeTakeFirst();
  return other ? { ...article, articleId: other.article_id } : article;
};

/** Reads `source` and records what changed; waits for the read model when anything did. */
export const importMarketNews = async (
  services: CommandServices,
  source: NewsSource,
  correlationId = `market-news-${crypto.randomUUID()}`,
): Promise<MarketNewsImport> => {
  const now = services.clock().toISOString();
  const articles = await source.read(now);
  const counts = { published: 0, revised: 0, unchanged: 0 };
  const seen = new Set<string>();
  const stories: ImportedStories = { keys: new Map(), titles: [] };
  for (const read of articles) {
    // The same item twice in one feed: the first kept.
    if (seen.has(read.articleId)) continue;
    seen.add(read.articleId);
    const article = await sameStory(services, read, stories);
    const { events } = await handleCommand(services.store, marketNewsStream(article.articleId), marketNewsDecider, {
      type: 'ReadMarketNewsArticle',
      data: { article },
      metadata: { now, context: systemContext(correlationId) },
    });
    const kind = events[0]?.type;
    if (kind === 'MarketNewsArticlePublished') {
      for (const key of storyKeysOf(article)) stories.keys.set(key, article.articleId);
      const title = titleKeyOf(article);
      if (title !== null) stories.titles.push({ title, at: Date.parse(article.publishedAt), articleId: article.articleId });
      counts.published++;
    } else if (kind === 'MarketNewsArticleRevised') counts.revised++;
    else counts.unchanged++;
  }
  if (counts.published + counts.revised > 0) await settle(services, MARKET_NEWS_READ_MODELS);
  return { source: source.name, read: articles.length, ...counts };
};

export interface MarketNewsRequest {
  readonly category?: string;
  readonly impact?: string;
  readonly sentiment?: string;
  readonly currencies?: string;
  readonly search?: string;
  readonly bookmarked?: 'true' | 'false';
  readonly page?: number;
  readonly size?: number;
}

const listOf = (text: string | undefined): string[] | undefined =>
  text
    ?.split(',')
    .map((s) => s.trim().toUpperCase())
    .filter(Boolean);

/** GET .../marketNews: the page of articles of the filters, newest first, with the project's bookmarks marked. */
export const listMarketNews = async (services: Pick<Services, 'db'>, projectId: string, request: MarketNewsRequest) => {
  const page = request.page ?? 0;
  const size = request.size ?? 20;
  const filter: MarketNewsFilter = {
    categories: listOf(request.category),
    impacts: listOf(request.impact),
    sentiments: listOf(request.sentiment),
    currencies: listOf(request.currencies),
    ...(request.search ? { search: request.search } : {}),
    ...(request.bookmarked ? { bookmarked: request.bookmarked === 'true' } : {}),
  };
  const { rows, total } = await marketNewsPage(services.db, projectId, filter, page, size);
  return { rows, total, page, size };
};
