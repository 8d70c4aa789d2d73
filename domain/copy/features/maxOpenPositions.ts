// FeatureMaxOpenPositionsDTO (the reference: maxOpenPositions, maxPositionsInTimeWindow, timeWindowSeconds;
// 0 = off for each): a cap and a throttle. A master open is not copied when this copier holds
// maxOpenPositions copies open already, or opened maxPositionsInTimeWindow copies within the last
// timeWindowSeconds.
//   - Open copies: the copier's copies (positions and pending orders) not closed yet.
//   - Counted from the copier's history: every copy (position or pending order, open or closed since)
//     whose open lies in (now - timeWindowSeconds, now]. A copy reopened by a feature counts at the
//     time it was reopened.
//   - Opens are throttled, market and pending alike; closes and changes never are.
//   - The history holds the copier's last 500 copies, hence the bound on maxPositionsInTimeWindow.
//   - symbolsConfiguration (perSymbol.ts) gives a slave symbol its own limits, counted over its copies
//     only; "the total number of open positions across all symbols is subject to the general
//     maxOpenPositions limit" (the reference), so the general limits still count every copy. A member
//     the symbol leaves out takes the general value (counted over the symbol's copies, it never refuses
//     what the general one lets through); 0 there: no limit of its own.
//   - Scope (the reference: copier/account, "works at both copier and account levels"): on a copier it
//     counts that copier's copies; on an account it counts the copies of every copier of which the
//     account is the slave (engine/copy/inputs.ts hands such a feature the account's history), so the
//     cap and the throttle hold for the account as a whole. A copier with its own instance follows it
//     instead of its account's (the most specific scope applies).
import { type Static, Type } from '@sinclair/typebox';
import { DateTime } from 'luxon';
import { checkSymbolsConfiguration, configuredSymbol, sameSymbol, settingsFor, withSymbolsConfiguration } from './perSymbol.js';
import { type CopierFeature, type CopyRecord, skip } from './rules.js';
import type { Skip } from '../types.js';

const general = Type.Object({
  maxOpenPositions: Type.Integer({
    minimum: 0,
    maximum: 500,
    description:
      'copies open at once, at most (positions and pending orders, across all symbols; of this copier, or on an account of all its copiers); default 0 = no limit',
  }),
  maxPositionsInTimeWindow: Type.Integer({
    minimum: 0,
    maximum: 500,
    description: 'copies that may be opened within the window (by this copier, or on an account by all its copiers); default 0 = no throttle',
  }),
  timeWindowSeconds: Type.Integer({
    minimum: 0,
    maximum: 2_592_000,
    description: 'the window, in seconds back from now (up to 30 days); default 0 = no throttle',
  }),
});
type General = Static<typeof general>;
const members = withSymbolsConfiguration(
  general,
  'The limits per symbol: e.g. {"EURUSD": {"maxOpenPositions": 2}} lets this copier hold at most 2 copies open on EURUSD, while the general limits still count the copies on all symbols.',
);
export type MaxOpenPositionsSettings = Static<typeof members>;

/** The limits of `s` over `history` (the copier's copies, or those on one symbol): a skip, or null. */
const limit = (s: General, history: readonly CopyRecord[], now: string, on: string, whose: string): Skip | null => {
  if (s.maxOpenPositions > 0) {
    const open = history.filter((copy) => copy.closedAt === null).length;
    if (open >= s.maxOpenPositions) {
      return skip('MAX_OPEN_POSITIONS_REACHED', `${open} copies of this ${whose} are open${on}, the most allowed is ${s.maxOpenPositions}`);
    }
  }
  if (!(s.maxPositionsInTimeWindow > 0 && s.timeWindowSeconds > 0)) return null;
  const end = Date.parse(now);
  const since = DateTime.fromISO(now).minus({ seconds: s.timeWindowSeconds }).toMillis();
  const opened = history.filter((copy) => {
    const at = Date.parse(copy.openedAt);
    return at > since && at <= end;
  });
  if (opened.length < s.maxPositionsInTimeWindow) return null;
  // The oldest of the last maxPositionsInTimeWindow opens leaves the window first.
  const oldest = opened.map((c) => Date.parse(c.openedAt)).sort((a, b) => b - a)[s.maxPositionsInTimeWindow - 1]!;
  const frees = DateTime.fromMillis(oldest, { zone: 'utc' }).plus({ seconds: s.timeWindowSeconds }).toISO();
  return skip(
    'MAX_OPEN_POSITIONS_REACHED',
    `${opened.length} copies opened${on} in the last ${s.timeWindowSeconds} seconds, the most allowed is ${s.maxPositionsInTimeWindow}; the next may open after ${frees}`,
  );
};

export const maxOpenPositions: CopierFeature<MaxOpenPositionsSettings> = {
  type: 'FeatureMaxOpenPositionsDTO',
  scopes: ['copier', 'account'],
  multiple: false,
  members,
  defaults: { maxOpenPositions: 0, maxPositionsInTimeWindow: 0, timeWindowSeconds: 0, symbolsConfiguration: {} },
  check: (s) =>
    checkSymbolsConfiguration<General>(s, (own) =>
      own.maxPositionsInTimeWindow > 0 !== own.timeWindowSeconds > 0
        ? 'maxPositionsInTimeWindow and timeWindowSeconds go together: both above 0, or both 0'
        : null,
    ),
  description:
    "Does not copy a master open (market or pending) when maxOpenPositions copies are open already (0 = no limit), or when maxPositionsInTimeWindow copies were opened within the last timeWindowSeconds (copies closed since count too; a reopened copy counts when it was reopened). On a copier it counts that copier's copies; on an account, the copies of every copier of which the account is the slave (a copier with its own FeatureMaxOpenPositionsDTO follows its own instead). symbolsConfiguration gives a slave symbol its own limits, counted over its copies only, while the general limits still count the copies on every symbol. Skip reason MAX_OPEN_POSITIONS_REACHED.",
  rules: {
    needs: ['accountHistory'],
    filterOpen: (s, { history, now, slaveSymbol, scope }) => {
      const whose = scope === 'account' ? 'account' : 'copier';
      const all = limit(settingsFor(s, null), history, now, '', whose);
      if (all || configuredSymbol(s, slaveSymbol) === null) return all;
      const onSymbol = history.filter((copy) => sameSymbol(copy.symbol, slaveSymbol));
      return limit(settingsFor(s, slaveSymbol), onSymbol, now, ` on ${slaveSymbol}`, whose);
    },
  },
};
