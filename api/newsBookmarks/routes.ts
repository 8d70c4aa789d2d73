// News bookmarks (spec "Economic calendar, news and alerts", under /projects/{projectId}):
//   GET          .../newsBookmarks              the ids of the project's bookmarked articles
//   POST, DELETE .../newsBookmarks/{articleId}  save (saving again is not an error) / remove
// Bookmarks belong to the project: each is an event on its bookmark stream (app/newsBookmarks.ts).
import { bookmarkNewsArticle, removeNewsBookmark } from '../../app/newsBookmarks.js';
import type { Services } from '../../app/services.js';
import { newsBookmarkIds } from '../../projections/marketNews/queries.js';
import type { Routes } from '../route.js';
import { NEWS_KEY, NEWS_TAG } from '../marketNews/routes.js';
import { ArticleParams, NewsBookmarkIdsDTO, ProjectParams } from '../marketNews/schemas.js';
import { checkProjectScope } from '../shared/projects.js';
import { errorResponses } from '../shared/schemas.js';

const UNKNOWN = 'An id that is no article of GET .../marketNews: 404 [NEWS_ARTICLE_NOT_FOUND], and nothing changes.';

export const newsBookmarkRoutes = (routes: Routes, services: Services): void => {
  const scope = (caller: Parameters<typeof checkProjectScope>[0], projectId: string) => checkProjectScope(caller, projectId, 'news bookmarks');

  routes.add<{ projectId: string }, unknown, unknown>({
    method: 'get',
    path: '/projects/{projectId}/newsBookmarks',
    tag: NEWS_TAG,
    operationId: 'getNewsBookmarks',
    summary: "The ids of the project's bookmarked articles",
    description: `An array of article ids (ours: the spec says "ids of bookmarked articles"), the most recently saved first; the articles themselves: GET .../marketNews?bookmarked=true. Another project's bookmarks are never listed. ${NEWS_KEY}`,
    params: ProjectParams,
    responses: { 200: { description: 'the ids', schema: NewsBookmarkIdsDTO }, ...errorResponses(400, 401, 403, 404) },
    async handler({ params, caller }) {
      scope(caller, params.projectId);
      return { body: await newsBookmarkIds(services.db, params.projectId) };
    },
  });

  routes.add<{ projectId: string; articleId: string }, unknown, unknown>({
    method: 'post',
    path: '/projects/{projectId}/newsBookmarks/{articleId}',
    tag: NEWS_TAG,
    operationId: 'addNewsBookmark',
    summary: 'Bookmark an article',
    description: `No body; answers 204. Saving an article the project saved already is not an error (204 again, nothing changes). ${UNKNOWN} ${NEWS_KEY}`,
    params: ArticleParams,
    responses: { 204: { description: 'saved' }, ...errorResponses(400, 401, 403, 404) },
    async handler({ params, caller, context }) {
      scope(caller, params.projectId);
      await bookmarkNewsArticle(services, context, params.projectId, params.articleId);
      return { status: 204 };
    },
  });

  routes.add<{ projectId: string; articleId: string }, unknown, unknown>({
    method: 'delete',
    path: '/projects/{projectId}/newsBookmarks/{articleId}',
    tag: NEWS_TAG,
    operationId: 'removeNewsBookmark',
    summary: 'Remove a bookmark',
    description: `Answers 204; removing a bookmark the project does not have is no error either (204, nothing changes: the article is not bookmarked, as asked). ${UNKNOWN} ${NEWS_KEY}`,
    params: ArticleParams,
    responses: { 204: { description: 'removed' }, ...errorResponses(400, 401, 403, 404) },
    async handler({ params, caller, context }) {
      scope(caller, params.projectId);
      await removeNewsBookmark(services, context, params.projectId, params.articleId);
      return { status: 204 };
    },
  });
};
