// FeatureMaxOpenPositionsDTO (spec: maxPositionsInTimeWindow, timeWindowSeconds): a throttle. A master
// open is not copied when this copier already opened maxPositionsInTimeWindow copies within the last
// timeWindowSeconds.
//   - Counted from the copier's history: every copy (position or pending order, open or closed since)
//     whose open lies in (now - timeWindowSeconds, now]. A copy reopened by a feature counts at the
//     time it was reopened.
//   - Opens are throttled, market and pending alike; closes and changes never are.
//   - The history holds the copier's last 500 copies, hence the bound on maxPositionsInTimeWindow.
import { type Static, Type } from '@sinclair/typebox';
import { DateTime } from 'luxon';
import { type CopierFeature, skip } from './rules.js';

const members = Type.Object({
  maxPositionsInTimeWindow: Type.Integer({ minimum: 1, maximum: 500, description: 'copies this copier may open within the window' }),
  timeWindowSeconds: Type.Integer({ minimum: 1, maximum: 2_592_000, description: 'the window, in seconds back from now (up to 30 days)' }),
});
export type MaxOpenPositionsSettings = Static<typeof members>;

export const maxOpenPositions: CopierFeature<MaxOpenPositionsSettings> = {
  type: 'FeatureMaxOpenPositionsDTO',
  scopes: ['copier'],
  multiple: false,
  members,
  defaults: {},
  description:
    'Does not copy a master open (market or pending) when this copier already opened maxPositionsInTimeWindow copies within the last timeWindowSeconds (copies closed since count too; a reopened copy counts when it was reopened). Skip reason MAX_OPEN_POSITIONS_REACHED.',
  rules: {
    filterOpen: (s, { history, now }) => {
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
