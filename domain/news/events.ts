// Events of market news (spec "Economic calendar, news and alerts": /marketNews, /newsBookmarks).
//   - One stream per article (`marketNewsArticle-<articleId>`): the news is market data, the same for every
//     project (the operator configures the feeds once), so these streams belong to no project. The first
//     reading publishes the article; a later reading that differs revises it (what changed, from what to what).
//   - One stream per project for its bookmarks (`newsBookmarks-<projectId>`): bookmarks belong to the project.
import type { Article, RevisableMember } from './article.js';

/** A member's value before and after a revision. */
export type ArticleChange = { readonly member: RevisableMember; readonly from: unknown; readonly to: unknown };

export type MarketNewsEvent =
  | { type: 'MarketNewsArticlePublished'; data: { articleId: string; article: Article; at: string } }
  | { type: 'MarketNewsArticleRevised'; data: { articleId: string; article: Article; changes: readonly ArticleChange[]; at: string } }
  /** The same story read from another feed (domain/news/article.ts storyKeysOf): the article remembers that feed too. */
  | { type: 'MarketNewsArticleSourceAdded'; data: { articleId: string; source: string; link: string | null; at: string } };

export type NewsBookmarkEvent =
  | { type: 'NewsArticleBookmarked'; data: { projectId: string; articleId: string; at: string } }
  | { type: 'NewsBookmarkRemoved'; data: { projectId: string; articleId: string; at: string } };

export const marketNewsEventTypes: readonly MarketNewsEvent['type'][] = [
  'MarketNewsArticlePublished',
  'MarketNewsArticleRevised',
  'MarketNewsArticleSourceAdded',
];
export const newsBookmarkEventTypes: readonly NewsBookmarkEvent['type'][] = ['NewsArticleBookmarked', 'NewsBookmarkRemoved'];

export const MARKET_NEWS_STREAM_PREFIX = 'marketNewsArticle-';
export const marketNewsStream = (articleId: string): string => `${MARKET_NEWS_STREAM_PREFIX}${articleId}`;
export const NEWS_BOOKMARKS_STREAM_PREFIX = 'newsBookmarks-';
export const newsBookmarksStream = (projectId: string): string => `${NEWS_BOOKMARKS_STREAM_PREFIX}${projectId}`;
