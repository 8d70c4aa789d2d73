// The market news read model: one row per article as its last revision has it (global, like the
// articles' streams), and one row per project and bookmarked article. GET /projects/{projectId}/marketNews
// and /newsBookmarks read it (queries.ts). Rebuildable from the events like every read model.
import { sql } from 'kysely';
import { type Article, storyKeysOf, titleKeyOf } from '../../domain/news/article.js';
import { type MarketNewsEvent, marketNewsEventTypes, type NewsBookmarkEvent, newsBookmarkEventTypes } from '../../domain/news/events.js';
import type { Projection } from '../projection.js';

const columnsOf = (article: Article) => ({
  source: article.source,
  title: article.title,
  link: article.link,
  summary: article.summary,
  published_at: article.publishedAt,
  category: article.category,
  currencies: [...article.currencies],
  impact: article.impact,
  sentiment: article.sentiment,
  sentiment_score: article.sentimentScore,
  story_keys: storyKeysOf(article),
  title_key: titleKeyOf(article),
});

export const marketNewsProjection: Projection = {
  name: 'marketNews',
  // v2: other_sources and story_keys (one article for a story from two feeds).
  // v3: story_keys with URI guids and without the title, title_key (a title matches within minutes).
  version: 3,
  handles: [...marketNewsEventTypes, ...newsBookmarkEventTypes],
  tables: ['market_news_articles', 'market_news_bookmarks'],
  async createTables(db, schema) {
    await sql`CREATE TABLE ${sql.id(schema, 'market_news_articles')} (
      article_id uuid PRIMARY KEY,
      source text NOT NULL,
      title text NOT NULL,
      link text,
      summary text,
      published_at timestamptz NOT NULL,
      category text NOT NULL,
      currencies text[] NOT NULL,
      impact text NOT NULL,
      sentiment text NOT NULL,
      sentiment_score double precision NOT NULL,
      other_sources text[] NOT NULL DEFAULT '{}',
      story_keys text[] NOT NULL DEFAULT '{}',
      title_key text,
      revision integer NOT NULL,
      created timestamptz NOT NULL,
      updated timestamptz NOT NULL)`.execute(db);
    await sql`CREATE TABLE ${sql.id(schema, 'market_news_bookmarks')} (
      project_id uuid NOT NULL,
      article_id uuid NOT NULL,
      created timestamptz NOT NULL,
      PRIMARY KEY (project_id, article_id))`.execute(db);
  },
  async createIndexes(db, schema) {
    await sql`CREATE INDEX ON ${sql.id(schema, 'market_news_articles')} (published_at DESC, article_id)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'market_news_articles')} USING gin (story_keys)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'market_news_articles')} (title_key, published_at)`.execute(db);
  },
  async apply(db, recorded) {
    const event = recorded as unknown as MarketNewsEvent | NewsBookmarkEvent;
    switch (event.type) {
      case 'MarketNewsArticlePublished': {
        const { articleId, article, at } = event.data;
        await db
          .insertInto('market_news_articles')
          .values({ article_id: articleId, ...columnsOf(article), other_sources: [], revision: 0, created: at, updated: at })
          .onConflict((oc) => oc.column('article_id').doNothing())
          .execute();
        return;
      }
      case 'MarketNewsArticleRevised': {
        const { articleId, article, at } = event.data;
        await db
          .updateTable('market_news_articles')
          .set((eb) => ({ ...columnsOf(article), revision: eb('revision', '+', 1), updated: at }))
          .where('article_id', '=', articleId)
          .execute();
        return;
      }
      case 'MarketNewsArticleSourceAdded': {
        const { articleId, source } = event.data;
        await db
          .updateTable('market_news_articles')
          .set({ other_sources: sql<string[]>`array_append(other_sources, ${source})` })
          .where('article_id', '=', articleId)
          .execute();
        return;
      }
      case 'NewsArticleBookmarked': {
        const { projectId, articleId, at } = event.data;
        await db
          .insertInto('market_news_bookmarks')
          .values({ project_id: projectId, article_id: articleId, created: at })
          .onConflict((oc) => oc.columns(['project_id', 'article_id']).doNothing())
          .execute();
        return;
      }
      case 'NewsBookmarkRemoved':
        await db.deleteFrom('market_news_bookmarks').where('project_id', '=', event.data.projectId).where('article_id', '=', event.data.articleId).execute();
        return;
    }
  },
};
