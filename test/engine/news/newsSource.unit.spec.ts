// Market news sources (issue 18): recorded RSS and Atom feeds become categorised, currency-tagged
// articles with a lexicon sentiment; the online source reads the same from a local HTTP server.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { feedFileSource, feedUrlSource } from '../../../engine/news/source.js';

const feeds = path.join(path.dirname(fileURLToPath(import.meta.url)), 'feeds');
const NOW = '2026-01-08T12:00:00.000Z';

describe('market news sources (RSS/Atom, rules, sentiment)', () => {
  it('reads a recorded RSS feed into categorised, tagged articles with their sentiment', async () => {
    const [fed, gold] = await feedFileSource(path.join(feeds, 'rss.xml')).read(NOW);
    expect(fed).to.deep.include({
      source: 'file:rss.xml',
      category: 'CENTRAL_BANKS',
      impact: 'HIGH',
      publishedAt: '2026-01-07T19:00:00.000Z',
      link: 'https://news.example/1',
    });
    expect(fed!.currencies).to.deep.equal(['USD']);
    expect(fed!.summary).to.equal('The Federal Reserve kept interest rates unchanged; the dollar fell.');
    expect(gold).to.deep.include({ category: 'COMMODITIES', impact: 'LOW', sentiment: 'POSITIVE' });
    expect(gold!.currencies).to.deep.equal(['USD']);
    const again = await feedFileSource(path.join(feeds, 'rss.xml')).read(NOW);
    expect(again.map((a) => a.articleId)).to.deep.equal([fed!.articleId, gold!.articleId]);
  });

  it('reads a recorded Atom feed', async () => {
    const [gbp] = await feedFileSource(path.join(feeds, 'atom.xml')).read(NOW);
    expect(gbp).to.deep.include({ category: 'ECONOMY', sentiment: 'NEGATIVE', impact: 'MEDIUM', publishedAt: '2026-01-08T10:00:00.000Z' });
    expect(gbp!.currencies).to.deep.equal(['USD', 'GBP']);
  });

  it('fetches a feed over HTTP from a local server, and says so when it answers an error', async () => {
    const server = http.createServer((req, res) => {
      if (req.url === '/feed') {
        res.writeHead(200, { 'content-type': 'application/rss+xml' });
        res.end(readFileSync(path.join(feeds, 'rss.xml')));
      } else {
        res.writeHead(503);
        res.end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const articles = await feedUrlSource(`${base}/feed`).read(NOW);
      expect(articles.map((a) => a.category)).to.deep.equal(['CENTRAL_BANKS', 'COMMODITIES']);
      expect(articles[0]!.source).to.equal(`${base}/feed`);
      let error: unknown;
      await feedUrlSource(`${base}/down`)
        .read(NOW)
        .catch((e: unknown) => (error = e));
      expect(String(error)).to.contain('HTTP 503');
    } finally {
      server.close();
    }
  });
});
