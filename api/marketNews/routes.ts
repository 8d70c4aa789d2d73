// Market news (spec "Economic calendar, news and alerts", under /projects/{projectId}):
//   GET .../marketNews   the articles of the operator's feeds, filtered and paged, newest first
// The news is the service's market data, shared by every project (read from NEWS_FEEDS on a schedule,
// app/marketNewsSync.ts); bookmarks are the project's own (api/newsBookmarks/routes.ts).
import type { Static } from '@sinclair/typebox';
import { listMarketNews } from '../../app/marketNews.js';
import type { Services } from '../../app/services.js';
import type { Routes } from '../route.js';
import { checkProjectScope } from '../shared/projects.js';
import { errorResponses } from '../shared/schemas.js';
import { toMarketNewsArticleDTO } from './dto.js';
import { MarketNewsPageDTO, MarketNewsQuery, ProjectParams } from './schemas.js';

export const NEWS_TAG = 'Market news';
export const NEWS_KEY =
  'Needs a project-level key of this project (another project: 404 [PROJECT_NOT_FOUND]; an account-level key: 403 [PROJECT_LEVEL_API_KEY_REQUIRED]).';
export const NEWS_ABOUT =
  "The articles are the service's market data, the same for every project: the RSS and Atom feeds the operator lists in NEWS_FEEDS, read every NEWS_SYNC_MINUTES (default 15) by one instance at a time. An item read again is the same article (its id derives from the feed and the item's guid, else its link, else its title and date); an item the feed changed is a revision of it (revision counts them). Without NEWS_FEEDS there is no article and the list is empty.";

export const marketNewsRoutes = (routes: Routes, services: Services): void => {
  routes.add<{ projectId: string }, Static<typeof MarketNewsQuery>, unknown>({
    method: 'get',
    path: '/projects/{projectId}/marketNews',
    tag: NEWS_TAG,
    operationId: 'getMarketNews',
    summary: 'Market news articles',
    description: `MarketNewsPageDTO of MarketNewsArticleDTO (ours: the spec names them without members, the reference document has no such operation), newest first (by publishedAt, then id). Filters, each optional and combined with AND: category, impact and sentiment are comma-separated lists in any case (an article of any listed value); currencies a comma-separated list of ISO codes (an article tagged with any of them); search a part of the title or summary, without case; bookmarked true (the project's bookmarks only) or false (all but them). page from 0 (default 0), size default 20, at most 100; a value outside these, an unknown name or parameter: 400 [VALIDATION_FAILED]. bookmarked in each article tells whether this project saved it. ${NEWS_ABOUT} ${NEWS_KEY}`,
    params: ProjectParams,
    query: MarketNewsQuery,
    responses: { 200: { description: 'a page of articles', schema: MarketNewsPageDTO }, ...errorResponses(400, 401, 403, 404) },
    async handler({ params, query, caller }) {
      checkProjectScope(caller, params.projectId, 'market news');
      const { rows, total, page, size } = await listMarketNews(services, params.projectId, query);
      return { body: { content: rows.map(toMarketNewsArticleDTO), page, size, totalElements: total, totalPages: Math.ceil(total / size) } };
    },
  });
};
