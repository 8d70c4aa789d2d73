// FeatureLiveDelayDTO (spec: resetOnPositionClose, trackByDirection). Our reading: spacing of opens on
// a symbol. Each copy this copier opens on a slave symbol holds later master opens on that symbol back
// until delaySeconds after it opened; they are deferred, not skipped, and copied when the wait ends
// (the engine decides them again then, at the market of that moment, if the master still holds them).
//   - trackByDirection: only a copy of the same side (the slave's) holds an open back; a buy does
//     not delay a sell.
//   - resetOnPositionClose: a copy that has closed holds nothing back any more. The wait is then
//     taken in steps of at most 30 seconds, each decided again, so it ends within 30 seconds of the
//     close (a deferral is only looked at when it falls due).
//   - Symbols are the slave's, compared without case. Market opens and pending orders alike; closes
//     and changes are never delayed.
// Two opens that wait for the same copy are both decided again when it ends: the first is copied,
// and its copy holds the second back in turn.
import { type Static, Type } from '@sinclair/typebox';
import { DateTime } from 'luxon';
import { slaveOrderType } from '../reverse.js';
import type { CopierFeature } from './rules.js';

const members = Type.Object({
  delaySeconds: Type.Integer({ minimum: 1, maximum: 86_400, description: 'seconds after a copy opened during which later opens on its symbol wait' }),
  resetOnPositionClose: Type.Boolean({ description: 'true: the wait ends as soon as the copy that started it has closed; default false' }),
  trackByDirection: Type.Boolean({ description: 'true: only a copy of the same side holds an open back; default false' }),
});
export type LiveDelaySettings = Static<typeof members>;

/** With resetOnPositionClose, how long one step of the wait is at most. */
export const LIVE_DELAY_RECHECK_SECONDS = 30;

export const liveDelay: CopierFeature<LiveDelaySettings> = {
  type: 'FeatureLiveDelayDTO',
  scopes: ['copier'],
  multiple: false,
  members,
  defaults: { resetOnPositionClose: false, trackByDirection: false },
  description:
    "Spaces opens on a symbol: after this copier opened a copy on a slave symbol, later master opens (market or pending) on that symbol wait until delaySeconds after that copy opened. They are deferred, not skipped: copied when the wait ends if the master still holds them. trackByDirection: only a copy of the same side (the slave's) holds an open back. resetOnPositionClose: a copy that has closed holds nothing back, so the wait ends when it closes (looked at every 30 seconds). Symbols compared without case; closes and changes are never delayed.",
  rules: {
    deferOpen: (s, { trade, slaveSymbol, history, now, copier }) => {
      const side = slaveOrderType(trade.orderType, copier.reverse).startsWith('Buy') ? 'Buy' : 'Sell';
      const at = Date.parse(now);
      let until = at;
      for (const copy of history) {
        if (copy.masterPositionId === trade.masterPositionId) continue;
        if (copy.symbol.toLowerCase() !== slaveSymbol.toLowerCase()) continue;
        if (s.trackByDirection && copy.side !== side) continue;
        if (s.resetOnPositionClose && copy.closedAt !== null && Date.parse(copy.closedAt) <= at) continue;
        const opened = Date.parse(copy.openedAt);
        if (opened > at) continue;
        until = Math.max(until, DateTime.fromMillis(opened).plus({ seconds: s.delaySeconds }).toMillis());
      }
      if (until <= at) return null;
      const step = s.resetOnPositionClose ? Math.min(until, at + LIVE_DELAY_RECHECK_SECONDS * 1000) : until;
      return DateTime.fromMillis(step, { zone: 'utc' }).toISO();
    },
  },
};
