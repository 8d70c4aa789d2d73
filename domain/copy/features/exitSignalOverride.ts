// FeatureExitSignalOverrideDTO (the reference, 1.2.5; the spec names it only). The master's exit signal
// (its close, and its partial close) is held back from the slave's copy, so the copy can run on to its
// own take profit:
//   - ignoreForSeconds (default 5): the close is copied that many seconds after the master closed, if
//     the slave still holds the copy then (its stop loss or take profit may close it first); 0 = the
//     exit signal is ignored for good (skip reason EXIT_SIGNAL_OVERRIDDEN): the copy leaves only by its
//     own stops, a management feature (break-even, trailing stop, scheduled close) or by hand.
//   - onlyIfTpSlAreSet (default true): held back only when the slave's copy has both a take profit and a
//     stop loss at its venue; a copy without either is closed with the master at once.
//   - Our reading where the reference is silent: a partial close is an exit signal too and is held
//     back alike; a slave pending order whose master order is gone is cancelled as always, and the
//     master's stop changes are copied as always.
import { type Static, Type } from '@sinclair/typebox';
import { DateTime } from 'luxon';
import { type CopierFeature, skip } from './rules.js';

const members = Type.Object({
  ignoreForSeconds: Type.Integer({
    minimum: 0,
    maximum: 2_147_483_647,
    description:
      'Specifies the number of seconds to wait before closing the trade. This is useful if you want the slave account to hold the position until the Take Profit (TP) level is reached. A value of 0 indicates that the exit signal will be ignored indefinitely. Default 5. The close is copied then if the slave still holds the copy.',
  }),
  onlyIfTpSlAreSet: Type.Boolean({
    description:
      "Indicates whether the exit signal should only be ignored if both Take Profit (TP) and Stop Loss (SL) levels are set on the trade (the slave's copy at its venue). Default true; a copy without them is closed with the master at once.",
  }),
});
export type ExitSignalOverrideSettings = Static<typeof members>;

const words = (partial: boolean): string => (partial ? "the master's partial close" : "the master's close");

export const exitSignalOverride: CopierFeature<ExitSignalOverrideSettings> = {
  type: 'FeatureExitSignalOverrideDTO',
  scopes: ['copier'],
  multiple: false,
  members,
  defaults: { ignoreForSeconds: 5, onlyIfTpSlAreSet: true },
  description:
    "Holds the master's exit signals back from the slave's copy: the master's close, or partial close (our reading: an exit signal too), is copied ignoreForSeconds (default 5) after the master made it, if the slave still holds the copy then, so the copy may reach its own take profit first; ignoreForSeconds 0 ignores the exit signal for good (skip reason EXIT_SIGNAL_OVERRIDDEN): the copy then leaves only by its own stops, a management feature or by hand. With onlyIfTpSlAreSet (default true) only copies that have both a stop loss and a take profit at the slave's venue are held back; others close with the master at once. Stop changes are copied as always; a slave pending order whose master order is gone is cancelled as always.",
  rules: {
    needs: ['closeStops'],
    onClose: (s, { event, copy, slavePositions, eventTime, now }) => {
      if (s.onlyIfTpSlAreSet) {
        const held = slavePositions?.find((p) => p.positionId === copy?.slavePositionId);
        // Not read, or gone: nothing says both stops are set.
        if (!held || !held.stopLoss || !held.takeProfit) return null;
      }
      const partial = event.type === 'MasterPositionPartiallyClosed';
      if (s.ignoreForSeconds === 0) return skip('EXIT_SIGNAL_OVERRIDDEN', `${words(partial)} is ignored (exit signal override); the copy stays open`);
      if (!eventTime) return null;
      const due = DateTime.fromISO(eventTime).plus({ seconds: s.ignoreForSeconds });
      return due.toMillis() > Date.parse(now) ? { until: due.toUTC().toISO()! } : null;
    },
  },
};
