// Schemas of market news and news bookmarks (spec "Economic calendar, news and alerts", under
// /projects/{projectId}). The spec gives the parameters and the limits and names MarketNewsArticleDTO and
// MarketNewsPageDTO without members; the reference document has neither operation: the members are ours,
// documented here and in each operation.
import { Type } from '@sinclair/typebox';
import { CATEGORIES, NEWS_IMPACTS, SENTIMENTS } from '../../domain/news/article.js';
import { Nullable, Uuid } from '../shared/schemas.js';

export const MAX_NEWS_PAGE_SIZE = 100;

export const ProjectParams = Type.Object({ projectId: Uuid }, { additionalProperties: false });
export const ArticleParams = Type.Object({ projectId: Uuid, articleId: Uuid }, { additionalProperties: false });

/** A word in any case, as a pattern ([Hh][Ii][Gg][Hh]). */
const anyCase = (word: string): string => [...word].map((c) => (/[a-z]/i.test(c) ? `[${c.toUpperCase()}${c.toLowerCase()}]` : c)).join('');
const List = (description: string, names: readonly string[]) => {
  const one = `(?:${names.map(anyCase).join('|')})`;
  return Type.String({ maxLength: 500, pattern: `^\\s*${one}(\\s*,\\s*${one})*\\s*$`, description });
};

export const MarketNewsQuery = Type.Object(
  {
    category: Type.Optional(List(`comma-separated categories, any case, each of ${CATEGORIES.join(', ')}: the articles of any of them`, CATEGORIES)),
    impact: Type.Optional(List(`comma-separated impacts, any case, each of ${NEWS_IMPACTS.join(', ')}`, NEWS_IMPACTS)),
    sentiment: Type.Optional(List(`comma-separated sentiments, any case, each of ${SENTIMENTS.join(', ')}`, SENTIMENTS)),
    currencies: Type.Optional(
      Type.String({
        maxLength: 500,
        pattern: '^\\s*[A-Za-z]{3}(\\s*,\\s*[A-Za-z]{3})*\\s*$',
        description: 'comma-separated ISO 4217 codes (USD,EUR): the articles tagged with any of them',
      }),
    ),
    search: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'part of the title or summary, without case' })),
    bookmarked: Type.Optional(
      Type.Union([Type.Literal('true'), Type.Literal('false')], {
        description: "true: only the project's bookmarked articles; false: only the others; absent: all",
      }),
    ),
    page: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'the page, from 0 (default 0)' })),
    size: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_NEWS_PAGE_SIZE, description: `articles per page, default 20, at most ${MAX_NEWS_PAGE_SIZE}` })),
  },
  { additionalProperties: false },
);

export const MarketNewsArticleDTO = Type.Object(
  {
    id: Uuid,
    source: Type.String({ description: 'the feed it was read from (its URL as configured in NEWS_FEEDS)' }),
    otherSources: Type.Array(Type.String(), {
      description:
        'ours: the other feeds that brought the same story (the same link without tracking parameters, or the same title at the same minute): one article, the first feed its text',
    }),
    title: Type.String(),
    link: Nullable(Type.String({ description: "the article's address at its publisher" })),
    summary: Nullable(Type.String({ description: 'plain text, at most 2000 characters' })),
    publishedAt: Type.String({ format: 'date-time', description: 'as the feed gives it; when it gives none, when the service first read the article' }),
    category: Type.Union(
      CATEGORIES.map((c) => Type.Literal(c)),
      { description: 'by rules on the words of the title and summary (domain/news/article.ts); GENERAL when none applies' },
    ),
    currencies: Type.Array(Type.String(), { description: 'ISO codes of the currencies, currency names and central banks the text names' }),
    impact: Type.Union(
      NEWS_IMPACTS.map((i) => Type.Literal(i)),
      { description: 'HIGH: rate decisions, payrolls, inflation, GDP, central bank heads; MEDIUM: other economy and central bank news; LOW: the rest' },
    ),
    sentiment: Type.Union(
      SENTIMENTS.map((s) => Type.Literal(s)),
      { description: 'from sentimentScore: POSITIVE above 0.1, NEGATIVE below -0.1, else NEUTRAL' },
    ),
    sentimentScore: Type.Number({ description: "the AFINN-165 lexicon's comparative score of title and summary (sum of word scores per word)" }),
    bookmarked: Type.Boolean({ description: 'bookmarked by this project' }),
    revision: Type.Integer({ description: 'how often the feed changed the article since it was first read (0: never)' }),
    created: Type.String({ format: 'date-time', description: 'when the service first read it' }),
    updated: Type.String({ format: 'date-time', description: 'when it last changed' }),
  },
  { description: 'A market news article (ours: the spec names it without members)' },
);

export const MarketNewsPageDTO = Type.Object(
  {
    content: Type.Array(MarketNewsArticleDTO),
    page: Type.Integer(),
    size: Type.Integer(),
    totalElements: Type.Integer(),
    totalPages: Type.Integer(),
  },
  { description: 'A page of market news articles, newest first (ours, shaped like the calendar page)' },
);

export const NewsBookmarkIdsDTO = Type.Array(Uuid, { description: "the ids of the project's bookmarked articles, the most recently saved first" });
