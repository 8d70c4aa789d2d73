// MarketNewsArticleDTO from the market news read model.
import type { MarketNewsRow } from '../../projections/marketNews/queries.js';

export const toMarketNewsArticleDTO = (row: MarketNewsRow) => ({
  id: row.articleId,
  source: row.source,
  otherSources: [...row.otherSources],
  title: row.title,
  link: row.link,
  summary: row.summary,
  publishedAt: row.publishedAt,
  category: row.category,
  currencies: [...row.currencies],
  impact: row.impact,
  sentiment: row.sentiment,
  sentimentScore: row.sentimentScore,
  bookmarked: row.bookmarked,
  revision: row.revision,
  created: row.created,
  updated: row.updated,
});
