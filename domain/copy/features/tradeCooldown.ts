// FeatureTradeCooldownDTO (spec): skips a new market open on a symbol when a previous copied trade on
// the same or a correlated symbol was opened or closed less than cooldownMinutes ago; cooldownAnchor
// (CLOSE or OPEN), direction tracking, per-symbol overrides, custom correlation groups.
//   - Symbols are the slave's (what was copied); comparisons ignore case.
//   - CLOSE anchor: the time a copy closed (copies still open do not count); OPEN: the time it opened.
//   - trackDirection: only earlier trades of the same direction count.
//   - symbolOverrides: minutes for one symbol instead of cooldownMinutes (0 = no cooldown there).
//   - correlationGroups: each group of symbols is one for the cooldown (EURUSD, GBPUSD: a trade in
//     either starts it for both).
// Pending orders are not market opens and pass; so does the fill of a copied pending order.
import { type Static, Type } from '@sinclair/typebox';
import { DateTime } from 'luxon';
import { type CopierFeature, skip } from './rules.js';

const Symbol = Type.String({ minLength: 1, maxLength: 64 });

const members = Type.Object({
  cooldownMinutes: Type.Integer({
    minimum: 1,
    maximum: 10_080,
    description: 'minutes after the anchor during which a new open on the symbol is skipped (up to a week)',
  }),
  cooldownAnchor: Type.Union([Type.Literal('CLOSE'), Type.Literal('OPEN')], {
    description: 'CLOSE (default): from when the previous copy closed; OPEN: from when it opened',
  }),
  trackDirection: Type.Boolean({ description: 'true: only a previous trade in the same direction starts a cooldown; default false' }),
  symbolOverrides: Type.Array(
    Type.Object({ symbol: Symbol, cooldownMinutes: Type.Integer({ minimum: 0, maximum: 10_080 }) }, { additionalProperties: false }),
    {
      maxItems: 200,
      description: 'minutes for one symbol instead of cooldownMinutes; 0 = no cooldown for that symbol',
    },
  ),
  correlationGroups: Type.Array(Type.Array(Symbol, { minItems: 2, maxItems: 50 }), {
    maxItems: 50,
    description: 'groups of symbols that share one cooldown: a trade on any starts it for all',
  }),
});
export type TradeCooldownSettings = Static<typeof members>;

const same = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

export const tradeCooldown: CopierFeature<TradeCooldownSettings> = {
  type: 'FeatureTradeCooldownDTO',
  scopes: ['copier'],
  multiple: false,
  members,
  defaults: { cooldownAnchor: 'CLOSE', trackDirection: false, symbolOverrides: [], correlationGroups: [] },
  description:
    "Skips a new market open on a symbol while a previous copied trade on the same symbol, or on a symbol of the same correlation group, opened (anchor OPEN) or closed (anchor CLOSE) less than cooldownMinutes ago. trackDirection counts only trades of the same direction; symbolOverrides set other minutes per symbol (0 = none). Symbols are the slave's, compared without case. Pending orders pass. Skip reason COOLDOWN.",
  check: (s) => {
    const seen = new Set<string>();
    for (const o of s.symbolOverrides) {
      if (seen.has(o.symbol.toLowerCase())) return `symbol ${o.symbol} has two overrides`;
      seen.add(o.symbol.toLowerCase());
    }
    return null;
  },
  rules: {
    filterOpen: (s, { trade, slaveSymbol, history, now }) => {
      if (trade.orderType !== 'Buy' && trade.orderType !== 'Sell') return null;
      const override = s.symbolOverrides.find((o) => same(o.symbol, slaveSymbol));
      const minutes = override ? override.cooldownMinutes : s.cooldownMinutes;
      if (minutes === 0) return null;
      const group = s.correlationGroups.find((g) => g.some((symbol) => same(symbol, slaveSymbol)));
      const related = (symbol: string) => same(symbol, slaveSymbol) || (group?.some((g) => same(g, symbol)) ?? false);
      const since = DateTime.fromISO(now).minus({ minutes }).toMillis();
      const blocking = history.find((copy) => {
        if (!related(copy.symbol)) return false;
        if (s.trackDirection && copy.side !== trade.orderType) return false;
        const anchor = s.cooldownAnchor === 'OPEN' ? copy.openedAt : copy.closedAt;
        return anchor !== null && Date.parse(anchor) > since && Date.parse(anchor) <= Date.parse(now);
      });
      if (!blocking) return null;
      const anchorTime = s.cooldownAnchor === 'OPEN' ? blocking.openedAt : blocking.closedAt!;
      const ends = DateTime.fromISO(anchorTime).plus({ minutes }).toUTC().toISO();
      return skip(
        'COOLDOWN',
        `a ${blocking.side} on ${blocking.symbol} ${s.cooldownAnchor === 'OPEN' ? 'opened' : 'closed'} at ${anchorTime}: cooldown of ${minutes} minutes until ${ends}`,
      );
    },
  },
};
