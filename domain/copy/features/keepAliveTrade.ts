// FeatureKeepAliveTradeDTO (spec: closeAfterInSeconds). Our reading: a slave copy lives at most
// closeAfterInSeconds: that long after it opened at the slave's broker it is closed, whatever the
// master does. Checked every second; a copy reopened by a feature counts from its reopening.
import { type Static, Type } from '@sinclair/typebox';
import { DateTime } from 'luxon';
import { closeOf, type CopierFeature } from './rules.js';

const members = Type.Object({
  closeAfterInSeconds: Type.Integer({ minimum: 1, maximum: 31_536_000, description: 'seconds after its open at which a slave copy is closed (up to a year)' }),
});
export type KeepAliveTradeSettings = Static<typeof members>;

export const keepAliveTrade: CopierFeature<KeepAliveTradeSettings> = {
  type: 'FeatureKeepAliveTradeDTO',
  scopes: ['copier'],
  multiple: false,
  members,
  defaults: {},
  description:
    "Closes each slave copy closeAfterInSeconds after it opened at the slave's broker, whatever the master does (checked every second). The history records the close as made by FeatureKeepAliveTradeDTO.",
  rules: {
    manage: (s, ctx) =>
      ctx.copies
        .filter((copy) => DateTime.fromISO(copy.openTime).plus({ seconds: s.closeAfterInSeconds }).toMillis() <= Date.parse(ctx.now))
        .map((copy) => closeOf(copy, `keep-alive: #${copy.slavePositionId} opened at ${copy.openTime} is closed after ${s.closeAfterInSeconds} seconds`)),
  },
};
