// One article for a story from two feeds (issue 18; app/marketNews.ts, storyKeysOf, titleKeyOf): the same
// link without tracking parameters, the same URI guid, or the same title published within 30 minutes is
// the article the first feed brought, which lists the other feed in otherSources; reading that feed again
// changes nothing. A feed's own numbering as guid, or the same title an hour later, is another story.
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { importMarketNews } from '../../app/marketNews.js';
import { DEFAULT_PROJECT_ID } from '../../domain/project/decider.js';
import { feedFileSource } from '../../engine/news/source.js';
import { startTestService, type TestService } from '../support/service.js';
import { tempDir } from '../support/tempDirs.js';

const rss = (items: string[]) =>
  `<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>t</title><link>https://x.example/</link><description>d</description>${items.join('')}</channel></rss>`;
const item = (guid: string, title: string, link: string, date: string) =>
  `<item><guid isPermaLink="false">${guid}</guid><title>${title}</title><link>${link}</link><description>Rates and the dollar.</description><pubDate>${date}</pubDate></item>`;

describe('market news: one article for a story from two feeds (issue 18)', function () {
  this.timeout(120_000);
  let t: TestService;

  before(async () => {
    t = await startTestService();
  });
  after(() => t?.stop());

  it('keeps the first feed’s article and lists the second feed, by link or by title within the window', async () => {
    const dir = tempDir('ct-news-dedupe-');
    const first = path.join(dir, 'first.xml');
    const second = path.join(dir, 'second.xml');
    writeFileSync(
      first,
      rss([
        item('a-1', 'Fed holds rates steady', 'https://www.wire.example/story-1?utm_source=rss', 'Wed, 07 Jan 2026 19:00:00 GMT'),
        item('a-2', 'ECB cuts rates by a quarter point', 'https://wire.example/story-2', 'Thu, 08 Jan 2026 12:15:00 GMT'),
      ]),
    );
    writeFileSync(
      second,
      rss([
        item('b-1', 'Fed keeps rates on hold', 'https://wire.example/story-1/', 'Wed, 07 Jan 2026 19:02:00 GMT'),
        item('b-2', 'ECB cuts rates by a quarter-point!', 'https://other.example/ecb', 'Thu, 08 Jan 2026 12:15:30 GMT'),
        item('b-3', 'Gold at a record', 'https://other.example/gold', 'Thu, 08 Jan 2026 13:00:00 GMT'),
      ]),
    );
    const { services } = t.service;
    expect(await importMarketNews(services, feedFileSource(first))).to.include({ published: 2 });
    expect(await importMarketNews(services, feedFileSource(second))).to.include({ published: 1, revised: 0, unchanged: 2 });
    expect(await importMarketNews(services, feedFileSource(second))).to.include({ published: 0, revised: 0, unchanged: 3 });
    const res = await t.call('GET', `/projects/${DEFAULT_PROJECT_ID}/marketNews`);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const articles = (res.body.content ?? res.body) as { title: string; source: string; otherSources: string[] }[];
    expect(articles.map((a) => [a.title, a.source, a.otherSources])).to.deep.equal([
      ['Gold at a record', 'file:second.xml', []],
      ['ECB cuts rates by a quarter point', 'file:first.xml', ['file:second.xml']],
      ['Fed holds rates steady', 'file:first.xml', ['file:second.xml']],
    ]);
  });

  it('compares URI guids across feeds and titles within 30 minutes, not a feed’s own numbering nor a title an hour later', async () => {
    const dir = tempDir('ct-news-dedupe-');
    const third = path.join(dir, 'third.xml');
    const fourth = path.join(dir, 'fourth.xml');
    const guid = `urn:uuid:${crypto.randomUUID()}`;
    writeFileSync(
      third,
      rss([
        item(guid, 'BoJ leaves policy unchanged', 'https://wire.example/boj', 'Mon, 02 Feb 2026 03:00:00 GMT'),
        item('7', 'Copper climbs on supply worries', 'https://wire.example/copper', 'Mon, 02 Feb 2026 08:00:00 GMT'),
        item('8', 'SNB chairman speaks in Zurich', 'https://wire.example/snb', 'Mon, 02 Feb 2026 10:00:00 GMT'),
        item('9', 'Oil steadies after OPEC meeting', 'https://wire.example/oil', 'Mon, 02 Feb 2026 12:00:00 GMT'),
      ]),
    );
    writeFileSync(
      fourth,
      rss([
        // the same URI guid, another link and title
        item(guid, 'Bank of Japan holds', 'https://desk.example/japan-holds', 'Mon, 02 Feb 2026 03:05:00 GMT'),
        // the same guid "7" in another feed's numbering: another story
        item('7', 'Swiss exports rise', 'https://desk.example/exports', 'Mon, 02 Feb 2026 09:00:00 GMT'),
        // the same title 25 minutes later: the same story
        item('d-8', 'SNB Chairman speaks in Zurich.', 'https://desk.example/snb-speech', 'Mon, 02 Feb 2026 10:25:00 GMT'),
        // the same title an hour later: another story
        item('d-9', 'Oil steadies after OPEC meeting', 'https://desk.example/oil-later', 'Mon, 02 Feb 2026 13:00:00 GMT'),
      ]),
    );
    const { services } = t.service;
    expect(await importMarketNews(services, feedFileSource(third))).to.include({ published: 4 });
    expect(await importMarketNews(services, feedFileSource(fourth))).to.include({ published: 2, revised: 0, unchanged: 2 });
    expect(await importMarketNews(services, feedFileSource(fourth))).to.include({ published: 0, revised: 0, unchanged: 4 });
    const res = await t.call('GET', `/projects/${DEFAULT_PROJECT_ID}/marketNews?size=100`);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const articles = (res.body.content as { title: string; source: string; otherSources: string[]; publishedAt: string }[]).filter((a) =>
      a.publishedAt.startsWith('2026-02-02'),
    );
    expect(articles.map((a) => [a.title, a.source, a.otherSources])).to.deep.equal([
      ['Oil steadies after OPEC meeting', 'file:fourth.xml', []],
      ['Oil steadies after OPEC meeting', 'file:third.xml', []],
      ['SNB chairman speaks in Zurich', 'file:third.xml', ['file:fourth.xml']],
      ['Swiss exports rise', 'file:fourth.xml', []],
      ['Copper climbs on supply worries', 'file:third.xml', []],
      ['BoJ leaves policy unchanged', 'file:third.xml', ['file:fourth.xml']],
    ]);
  });
});
