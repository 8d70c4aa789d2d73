// FeatureSpreadFilterDTO (spec: threshold, unit, source, onMissingPrice, retryOnBlock): a new open is
// not copied while the spread is wider than the threshold.
//   - unit POINTS: ask - bid in points of the symbol; PERCENTAGE_OF_PRICE: (ask - bid) / mid x 100.
//   - source MASTER: the master's quote of its symbol; SLAVE: the slave's of the mapped symbol.
//   - onMissingPrice: without a quote, ALLOW copies, BLOCK does not (PRICE_MISSING).
//   - retryOnBlock: a blocked open is looked at again every 30 seconds while the copier's open-retry
//     window (openRetry true: openRetryTimeoutInMinutes from the master's open, 0 = endless) lasts,
//     and copied as soon as the spread allows; after the window, or without openRetry, it is skipped
//     (SPREAD_TOO_WIDE).
// Closes and modifications are never filtered.
import { type Static, Type } from '@sinclair/typebox';
import { DateTime } from 'luxon';
import { type CopierFeature, type OpenContext, skip } from './rules.js';

export const SPREAD_RETRY_SECONDS = 30;

const members = Type.Object({
  threshold: Type.Number({ exclusiveMinimum: 0, maximum: 1e6, description: 'the widest spread copied, in `unit`' }),
  unit: Type.Union([Type.Literal('POINTS'), Type.Literal('PERCENTAGE_OF_PRICE')], {
    description: 'POINTS (default): ask - bid in points; PERCENTAGE_OF_PRICE: (ask - bid) / mid x 100',
  }),
  source: Type.Union([Type.Literal('MASTER'), Type.Literal('SLAVE')], {
    description: "whose quote: SLAVE (default), the slave's of the mapped symbol; MASTER, the master's",
  }),
  onMissingPrice: Type.Union([Type.Literal('ALLOW'), Type.Literal('BLOCK')], {
    description: 'without a quote: ALLOW (default) copies, BLOCK skips (PRICE_MISSING)',
  }),
  retryOnBlock: Type.Boolean({ description: "true: a blocked open is tried again every 30 s within the copier's openRetry window; default false" }),
});
export type SpreadFilterSettings = Static<typeof members>;

type Verdict = { readonly kind: 'ok' } | { readonly kind: 'missing' } | { readonly kind: 'wide'; readonly spread: number };

const round = (x: number): number => Math.round(x * 1e6) / 1e6;

const verdictOf = (s: SpreadFilterSettings, ctx: OpenContext): Verdict => {
  const quote = s.source === 'MASTER' ? ctx.quotes.master : ctx.quotes.slave;
  if (!quote) return { kind: 'missing' };
  const point = s.source === 'MASTER' ? ctx.masterSpec.point : ctx.slaveSpec.point;
  const spread = s.unit === 'POINTS' ? (quote.ask - quote.bid) / point : ((quote.ask - quote.bid) / ((quote.ask + quote.bid) / 2)) * 100;
  // Points are whole: read 20.0000000001 as 20.
  const measured = s.unit === 'POINTS' ? Math.round(spread * 1e6) / 1e6 : spread;
  return measured > s.threshold ? { kind: 'wide', spread: round(measured) } : { kind: 'ok' };
};

/** The copier's open-retry window from the master's event: none without openRetry, endless with a timeout of 0. */
const windowEnd = (ctx: OpenContext): number | null => {
  if (!ctx.copier.openRetry || !ctx.eventTime) return null;
  const minutes = ctx.copier.openRetryTimeoutInMinutes;
  return minutes === 0 ? Number.POSITIVE_INFINITY : DateTime.fromISO(ctx.eventTime).plus({ minutes }).toMillis();
};

const retrying = (s: SpreadFilterSettings, ctx: OpenContext): boolean => {
  const end = windowEnd(ctx);
  return s.retryOnBlock && end !== null && Date.parse(ctx.now) + SPREAD_RETRY_SECONDS * 1000 <= end;
};

export const spreadFilter: CopierFeature<SpreadFilterSettings> = {
  type: 'FeatureSpreadFilterDTO',
  scopes: ['copier'],
  multiple: false,
  members,
  defaults: { unit: 'POINTS', source: 'SLAVE', onMissingPrice: 'ALLOW', retryOnBlock: false },
  description:
    "Does not copy a new open while the spread is wider than threshold: POINTS = (ask - bid) in points; PERCENTAGE_OF_PRICE = (ask - bid) / mid x 100; source SLAVE (the slave's quote of the mapped symbol) or MASTER. Without a quote: onMissingPrice ALLOW copies, BLOCK skips (PRICE_MISSING). retryOnBlock: a blocked open is looked at again every 30 seconds while the copier's open-retry window lasts (openRetry true: openRetryTimeoutInMinutes from the master's open, 0 = endless), and copied once the spread allows; otherwise SPREAD_TOO_WIDE. Closes and modifications are never filtered.",
  rules: {
    needs: ['quotes'],
    filterOpen: (s, ctx) => {
      const verdict = verdictOf(s, ctx);
      if (verdict.kind === 'missing')
        return s.onMissingPrice === 'BLOCK' ? skip('PRICE_MISSING', `no ${s.source.toLowerCase()} quote to measure the spread`) : null;
      if (verdict.kind === 'ok' || retrying(s, ctx)) return null;
      const unit = s.unit === 'POINTS' ? 'points' : '% of the price';
      return skip(
        'SPREAD_TOO_WIDE',
        `the ${s.source.toLowerCase()} spread is ${verdict.spread} ${unit}, above ${s.threshold}${s.retryOnBlock ? '; the open-retry window is over' : ''}`,
      );
    },
    deferOpen: (s, ctx) =>
      verdictOf(s, ctx).kind === 'wide' && retrying(s, ctx) ? DateTime.fromISO(ctx.now).plus({ seconds: SPREAD_RETRY_SECONDS }).toUTC().toISO() : null,
  },
};
