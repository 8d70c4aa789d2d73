// The tables of the market news read model (projector.ts), joined into ReadModels (schema.ts).
import type { ColumnType } from 'kysely';

type Timestamp = ColumnType<Date, Date | string, Date | string>;

export interface MarketNewsArticlesTable {
  article_id: string;
  /** The feed's URL, or file:NAME for a recorded feed. */
  source: string;
  title: string;
  link: string | null;
  summary: string | null;
  published_at: Timestamp;
  category: string;
  currencies: ColumnType<string[], string[], string[]>;
  impact: string;
  sentiment: string;
  sentiment_score: number;
  /** The other feeds that brought the same story, in the order they did. */
  other_sources: ColumnType<string[], string[], string[]>;
  /** domain/news/article.ts storyKeysOf of the article: how a story from another feed finds it. */
  story_keys: ColumnType<string[], string[], string[]>;
  /** domain/news/article.ts titleKeyOf: the same title within TITLE_MATCH_MINUTES is the same story. */
  title_key: string | null;
  /** 0 when published, one more for each revision. */
  revision: number;
  created: Timestamp;
  updated: Timestamp;
}

export interface MarketNewsBookmarksTable {
  project_id: string;
  article_id: string;
  created: Timestamp;
}

export interface MarketNewsTables {
  market_news_articles: MarketNewsArticlesTable;
  market_news_bookmarks: MarketNewsBookmarksTable;
}
