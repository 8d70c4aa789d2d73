import type { CommandMetadata } from '../shared/command.js';
import type { Article } from './article.js';

/** A feed's word on one article: new, changed or the same as before. */
export type MarketNewsCommand = { type: 'ReadMarketNewsArticle'; data: { article: Article }; metadata: CommandMetadata };

export type NewsBookmarkCommand =
  | { type: 'BookmarkNewsArticle'; data: { projectId: string; articleId: string }; metadata: CommandMetadata }
  | { type: 'RemoveNewsBookmark'; data: { projectId: string; articleId: string }; metadata: CommandMetadata };
