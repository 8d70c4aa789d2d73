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
import { type Static, Type } from '@sinclair/typebox';
import { DateTime } from 'luxon';
import { type CopierFeature, skip } from './rules.js';

const members = Type.Object({
  maxOpenPositions: Type.Integer({
    minimum: 0,
    maximum: 500,
    description: 'copies of this copier open at once, at most (positions and pending orders, across all symbols); default 0 = no limit',
  }),
  maxPositionsInTimeWindow: Type.Integer({ minimum: 0, maximum: 500, description: 'copies this copier may open within the window; default 0 = no throttle' }),
  timeWindowSeconds: Type.Integer({
    minimum: 0,
    maximum: 2_592_000,
    description: 'the window, in seconds back from now (up to 30 days); default 0 = no throttle',
  }),
});
export type MaxOpenPositionsSettings = Static<typeof members>;

export const maxOpenPositions: CopierFeature<MaxOpenPositionsSettings> = {
  type: 'FeatureMaxOpenPositionsDTO',
  scopes: ['copier'],
  multiple: false,
  members,
  defaults: { maxOpenPositions: 0, maxPositionsInTimeWindow: 0, timeWindowSeconds: 0 },
  check: (s) =>
    s.maxPositionsInTimeWindow > 0 !== s.timeWindowSeconds > 0 ? 'maxPositionsInTimeWindow and timeWindowSeconds go together: both above 0, or both 0' : null,
  description:
    'Does not copy a master open (market or pending) when this copier holds maxOpenPositions copies open already (0 = no limit), or when it already opened maxPositionsInTimeWindow copies within the last timeWindowSeconds (copies closed since count too; a reopened copy counts when it was reopened). Skip reason MAX_OPEN_POSITIONS_REACHED.',
  rules: {
    filterOpen: (s, { history, now }) => {
      if (s.maxOpenPositions > 0) {
        const open = history.filter((copy) => copy.closedAt === null).length;
        if (open >= s.maxOpenPositions) {
          return skip('MAX_OPEN_POSITIONS_REACHED', `${open} copies of this copier are open, the most allowed is ${s.maxOpenPositions}`);
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
        `${opened.length} copies opened in the last ${s.timeWindowSeconds} seconds, the most allowed is ${s.maxPositionsInTimeWindow}; the next may open after ${frees}`,
      );
    },
  },
};
