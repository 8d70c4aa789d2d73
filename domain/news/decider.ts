// Market news articles and a project's bookmarks.
//   - An article: the first reading publishes it; a later reading that differs in a revisable member
//     (domain/news/article.ts) revises it, listing the changes; the same reading again changes nothing. A
//     reading without a date (the feed gave none, `dated` false) keeps the date the article had. A reading
//     from another feed (the same story, app/marketNews.ts) adds that feed to the article's sources once
//     and changes nothing else: the first feed's text stands, two feeds never revise it in turn.
//   - Bookmarks: saving an article already saved is not an error and changes nothing (spec); removing one
//     that is not saved changes nothing either.
import type { Decider } from '../shared/command.js';
import { type Article, REVISABLE_MEMBERS } from './article.js';
import type { MarketNewsCommand, NewsBookmarkCommand } from './commands.js';
import type { ArticleChange, MarketNewsEvent, NewsBookmarkEvent } from './events.js';

export interface ArticleState {
  readonly article: Article | null;
  readonly revisions: number;
  /** The other feeds that brought the same story. */
  readonly sources: readonly string[];
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

export const changesBetween = (before: Article, after: Article): ArticleChange[] =>
  REVISABLE_MEMBERS.filter((m) => !same(before[m], after[m])).map((member) => ({ member, from: before[member], to: after[member] }));

export const marketNewsDecider: Decider<MarketNewsCommand, MarketNewsEvent, ArticleState> = {
  initialState: { article: null, revisions: 0, sources: [] },
  decide(command, state) {
    const at = command.metadata.now;
    const incoming = command.data.article;
    const articleId = incoming.articleId;
    if (!state.article) return [{ type: 'MarketNewsArticlePublished', data: { articleId, article: incoming, at } }];
    if (incoming.source !== state.article.source) {
      return state.sources.includes(incoming.source)
        ? []
        : [{ type: 'MarketNewsArticleSourceAdded', data: { articleId, source: incoming.source, link: incoming.link, at } }];
    }
    const article: Article = incoming.dated ? incoming : { ...incoming, publishedAt: state.article.publishedAt, dated: state.article.dated };
    const changes = changesBetween(state.article, article);
    return changes.length === 0 ? [] : [{ type: 'MarketNewsArticleRevised', data: { articleId, article, changes, at } }];
  },
  evolve(state, event) {
    switch (event.type) {
      case 'MarketNewsArticlePublished':
        return { article: event.data.article, revisions: 0, sources: [] };
      case 'MarketNewsArticleRevised':
        return { ...state, article: event.data.article, revisions: state.revisions + 1 };
      case 'MarketNewsArticleSourceAdded':
        return { ...state, sources: [...state.sources, event.data.source] };
      default:
        return state;
    }
  },
};

export interface BookmarksState {
  readonly saved: ReadonlySet<string>;
}

export const newsBookmarksDecider: Decider<NewsBookmarkCommand, NewsBookmarkEvent, BookmarksState> = {
  initialState: { saved: new Set() },
  decide(command, state) {
    const { projectId, articleId } = command.data;
    const at = command.metadata.now;
    switch (command.type) {
      case 'BookmarkNewsArticle':
        return state.saved.has(articleId) ? [] : [{ type: 'NewsArticleBookmarked', data: { projectId, articleId, at } }];
      case 'RemoveNewsBookmark':
        return state.saved.has(articleId) ? [{ type: 'NewsBookmarkRemoved', data: { projectId, articleId, at } }] : [];
    }
  },
  evolve(state, event) {
    const saved = new Set(state.saved);
    if (event.type === 'NewsArticleBookmarked') saved.add(event.data.articleId);
    else saved.delete(event.data.articleId);
    return { saved };
  },
};
