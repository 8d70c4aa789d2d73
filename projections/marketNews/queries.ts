// Queries of the market news read model: a project's filtered page of articles (newest first), one
// article, and the project's bookmarks.
import { type Kysely, sql } from 'kysely';
import type { NewsCategory, NewsImpact, NewsSentiment } from '../../domain/news/article.js';
import type { ReadModels } from '../schema.js';

export interface MarketNewsRow {
  readonly articleId: string;
  readonly source: string;
  /** The other feeds that brought the same story. */
  readonly otherSources: readonly string[];
  readonly title: string;
  readonly link: string | null;
  readonly summary: string | null;
  readonly publishedAt: string;
  readonly category: NewsCategory;
  readonly currencies: readonly string[];
  readonly impact: NewsImpact;
  readonly sentiment: NewsSentiment;
  readonly sentimentScore: number;
  readonly revision: number;
  readonly created: string;
  readonly updated: string;
  /** Bookmarked by the project the row was read for. */
  readonly bookmarked: boolean;
}

export interface MarketNewsFilter {
  readonly categories?: readonly string[];
  readonly impacts?: readonly string[];
  readonly sentiments?: readonly string[];
  /** Articles tagged with any of these. */
  readonly currencies?: readonly string[];
  /** Part of the title or summary, without case. */
  readonly search?: string;
  /** true: the project's bookmarks only; false: all but them. */
  readonly bookmarked?: boolean;
}

const iso = (d: Date | string): string => new Date(d).toISOString();

/** Whether the project bookmarked the article of the row `a` (the read models' public views). */
const saved = (projectId: string) =>
  sql<boolean>`EXISTS (SELECT 1 FROM market_news_bookmarks b WHERE b.article_id = a.article_id AND b.project_id = ${projectId})`;

const filtered = (db: Kysely<ReadModels>, projectId: string, f: MarketNewsFilter) => {
  let q = db.selectFrom('market_news_articles as a');
  if (f.categories?.length) q = q.where('a.category', 'in', [...f.categories]);
  if (f.impacts?.length) q = q.where('a.impact', 'in', [...f.impacts]);
  if (f.sentiments?.length) q = q.where('a.sentiment', 'in', [...f.sentiments]);
  if (f.currencies?.length) q = q.where(sql<boolean>`a.currencies && ${[...f.currencies]}::text[]`);
  if (f.search) {
    const s = f.search;
    q = q.where(sql<boolean>`(position(lower(${s}) in lower(a.title)) > 0 OR position(lower(${s}) in lower(coalesce(a.summary, ''))) > 0)`);
  }
  if (f.bookmarked === true) q = q.where(saved(projectId));
  if (f.bookmarked === false) q = q.where(sql<boolean>`NOT ${saved(projectId)}`);
  return q;
};

/** A page of the articles of `filter`, newest first (then by id), each with whether `projectId` bookmarked it; and how many in all. */
export const marketNewsPage = async (
  db: Kysely<ReadModels>,
  projectId: string,
  filter: MarketNewsFilter,
  page: number,
  size: number,
): Promise<{ rows: MarketNewsRow[]; total: number }> => {
  const [rows, count] = await Promise.all([
    filtered(db, projectId, filter)
      .selectAll('a')
      .select(saved(projectId).as('bookmarked'))
      .orderBy('a.published_at', 'desc')
      .orderBy('a.article_id')
      .limit(size)
      .offset(page * size)
      .execute(),
    filtered(db, projectId, filter)
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  return {
    rows: rows.map((r) => ({
      articleId: r.article_id,
      source: r.source,
      otherSources: [...r.other_sources],
      title: r.title,
      link: r.link,
      summary: r.summary,
      publishedAt: iso(r.published_at),
      category: r.category as NewsCategory,
      currencies: r.currencies,
      impact: r.impact as NewsImpact,
      sentiment: r.sentiment as NewsSentiment,
      sentimentScore: Number(r.sentiment_score),
      revision: r.revision,
      created: iso(r.created),
      updated: iso(r.updated),
      bookmarked: Boolean(r.bookmarked),
    })),
    total: Number(count.n),
  };
};

export const articleExists = async (db: Kysely<ReadModels>, articleId: string): Promise<boolean> =>
  !!(await db.selectFrom('market_news_articles').select('article_id').where('article_id', '=', articleId).executeTakeFirst());

/** The ids of the project's bookmarked articles, the most recently saved first. */
export const newsBookmarkIds = async (db: Kysely<ReadModels>, projectId: string): Promise<string[]> =>
  (
    await db
      .selectFrom('market_news_bookmarks')
      .select('article_id')
      .where('project_id', '=', projectId)
      .orderBy('created', 'desc')
      .orderBy('article_id')
      .execute()
  ).map((r) => r.article_id);
