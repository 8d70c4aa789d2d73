// Market news articles and bookmarks as events (domain/news/decider.ts), and the news configuration.
import { expect } from 'chai';
import { loadMarketNewsConfig } from '../../../app/marketNewsConfig.js';
import { type Article, articleOf } from '../../../domain/news/article.js';
import { marketNewsDecider, newsBookmarksDecider } from '../../../domain/news/decider.js';
import type { MarketNewsEvent, NewsBookmarkEvent } from '../../../domain/news/events.js';
import { systemContext } from '../../../domain/shared/command.js';

const AT = '2026-01-08T12:00:00.000Z';
const metadata = { now: AT, context: systemContext('spec') };
const article = (title: string, publishedAt: string | null, fetchedAt = AT): Article =>
  articleOf('https://wire.example/rss', { guid: 'g-1', title, link: 'https://wire.example/1', summary: null, publishedAt }, () => 0, fetchedAt);
const fold = <S, E>(d: { evolve: (s: S, e: E) => S; initialState: S }, events: readonly E[]): S => events.reduce((s, e) => d.evolve(s, e), d.initialState);

describe('market news as events', () => {
  const read = (history: readonly MarketNewsEvent[], a: Article) =>
    marketNewsDecider.decide({ type: 'ReadMarketNewsArticle', data: { article: a }, metadata }, fold(marketNewsDecider, history));

  it('publishes an article once, revises what changed, and reads the same article again as nothing', () => {
    const first = read([], article('Fed holds rates', '2026-01-07T19:00:00Z'));
    expect(first.map((e) => e.type)).to.deep.equal(['MarketNewsArticlePublished']);
    expect(read(first, article('Fed holds rates', '2026-01-07T19:00:00Z'))).to.deep.equal([]);
    const revised = read(first, article('Fed holds rates steady', '2026-01-07T19:00:00Z'));
    expect(revised).to.have.length(1);
    expect(revised[0]!.type).to.equal('MarketNewsArticleRevised');
    expect((revised[0] as Extract<MarketNewsEvent, { type: 'MarketNewsArticleRevised' }>).data.changes).to.deep.equal([
      { member: 'title', from: 'Fed holds rates', to: 'Fed holds rates steady' },
    ]);
  });

  it('keeps the first date of an item the feed gives none, so reading it later is no revision', () => {
    const first = read([], article('Oil slides', null, '2026-01-08T10:00:00.000Z'));
    const later = article('Oil slides', null, '2026-01-08T11:00:00.000Z');
    expect(later.articleId).to.equal((first[0] as Extract<MarketNewsEvent, { type: 'MarketNewsArticlePublished' }>).data.articleId);
    expect(read(first, later)).to.deep.equal([]);
  });

  it('saves a bookmark once (saving again is no error) and removes it once', () => {
    const d = newsBookmarksDecider;
    const cmd = (type: 'BookmarkNewsArticle' | 'RemoveNewsBookmark') => ({ type, data: { projectId: 'p', articleId: 'a' }, metadata });
    const saved = d.decide(cmd('BookmarkNewsArticle'), d.initialState) as NewsBookmarkEvent[];
    expect(saved.map((e) => e.type)).to.deep.equal(['NewsArticleBookmarked']);
    expect(d.decide(cmd('BookmarkNewsArticle'), fold(d, saved))).to.deep.equal([]);
    const removed = d.decide(cmd('RemoveNewsBookmark'), fold(d, saved)) as NewsBookmarkEvent[];
    expect(removed.map((e) => e.type)).to.deep.equal(['NewsBookmarkRemoved']);
    expect(d.decide(cmd('RemoveNewsBookmark'), fold(d, [...saved, ...removed]))).to.deep.equal([]);
  });

  it('reads NEWS_FEEDS and NEWS_SYNC_MINUTES, refusing what is no feed URL', () => {
    const integer = (_n: string, v: string | undefined, fallback: number) => (v ? Number(v) : fallback);
    const fail = (m: string) => new Error(m);
    expect(loadMarketNewsConfig({}, { integer }, fail)).to.deep.equal({ feeds: [], syncMinutes: 15 });
    expect(
      loadMarketNewsConfig({ NEWS_FEEDS: ' https://a.example/rss , file:///srv/b.xml,https://a.example/rss', NEWS_SYNC_MINUTES: '5' }, { integer }, fail),
    ).to.deep.equal({
      feeds: ['https://a.example/rss', 'file:///srv/b.xml'],
      syncMinutes: 5,
    });
    expect(() => loadMarketNewsConfig({ NEWS_FEEDS: 'ftp://a.example/rss' }, { integer }, fail)).to.throw('NEWS_FEEDS must list');
  });
});
