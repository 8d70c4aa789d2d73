// Market news (spec "Economic calendar, news and alerts": GET /projects/{projectId}/marketNews): importing
// what a NewsSource reads (engine/news/source.ts) as events on each article (domain/news: an article read
// again is the same article; a changed one is a revision), and the project's filtered page of articles.
// The same story from a second feed (storyKeysOf: its link or its title and minute) is no second article:
// the reading goes to the article that has it, which remembers that feed among its sources.
import { sql } from 'kysely';
import { type Article, storyKeysOf } from '../domain/news/article.js';
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

/**
 * The article as it is recorded: under its own id when that article exists or no other has its story,
 * else under the id of the article that has the story (published earlier, or by this import).
 */
const sameStory = async (services: CommandServices, article: Article, stories: ReadonlyMap<string, string>): Promise<Article> => {
  const keys = storyKeysOf(article);
  if (keys.length === 0) return article;
  const own = await services.db.selectFrom('market_news_articles').select('article_id').where('article_id', '=', article.articleId).executeTakeFirst();
  if (own) return article;
  const here = keys.map((k) => stories.get(k)).find((id) => id !== undefined && id !== article.articleId);
  if (here) return { ...article, articleId: here };
  const other = await services.db
    .selectFrom('market_news_articles')
    .select('article_id')
    .where(sql<boolean>`story_keys && ${keys}::text[]`)
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
  /** Story keys of the articles published by this import (the read model has them only after it). */
  const stories = new Map<string, string>();
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
    if (kind === 'MarketNewsArticlePublished') for (const key of storyKeysOf(article)) stories.set(key, article.articleId);
    if (kind === 'MarketNewsArticlePublished') counts.published++;
    else if (kind === 'MarketNewsArticleRevised') counts.revised++;
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
