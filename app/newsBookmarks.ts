// A project's news bookmarks (spec "Economic calendar, news and alerts": /newsBookmarks): each is a command
// on the project's bookmark stream (domain/news); saving an article already saved, or removing one that is
// not saved, changes nothing and is no error. Only an article the service has read can be saved.
import { newsBookmarksDecider } from '../domain/news/decider.js';
import { newsBookmarksStream } from '../domain/news/events.js';
import type { RequestContext } from '../domain/shared/command.js';
import { notFound } from '../domain/shared/errors.js';
import { articleExists } from '../projections/marketNews/queries.js';
import { MARKET_NEWS_READ_MODELS } from './marketNews.js';
import { commandMetadata, execute, type Services } from './services.js';

const known = async (services: Services, articleId: string): Promise<void> => {
  if (!(await articleExists(services.db, articleId))) throw notFound('[NEWS_ARTICLE_NOT_FOUND]', `no market news article ${articleId}`);
};

export const bookmarkNewsArticle = async (services: Services, context: RequestContext, projectId: string, articleId: string): Promise<void> => {
  await known(services, articleId);
  await execute(
    services,
    newsBookmarksStream(projectId),
    newsBookmarksDecider,
    { type: 'BookmarkNewsArticle', data: { projectId, articleId }, metadata: commandMetadata(services, context) },
    MARKET_NEWS_READ_MODELS,
  );
};

export const removeNewsBookmark = async (services: Services, context: RequestContext, projectId: string, articleId: string): Promise<void> => {
  await known(services, articleId);
  await execute(
    services,
    newsBookmarksStream(projectId),
    newsBookmarksDecider,
    { type: 'RemoveNewsBookmark', data: { projectId, articleId }, metadata: commandMetadata(services, context) },
    MARKET_NEWS_READ_MODELS,
  );
};
