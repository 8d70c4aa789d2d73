// FeatureDelayedExecutionDTO (the spec names it only). Our reading: master opens are copied
// delaySeconds after the master opened, at the market price of that moment, and only if the master
// still holds the position (or pending order) then; the filters run again at that time. Closes and
// modifications are not delayed (a close of a copy still waiting cancels its open).
import { type Static, Type } from '@sinclair/typebox';
import { DateTime } from 'luxon';
import type { CopierFeature } from './rules.js';

const members = Type.Object({
  delaySeconds: Type.Integer({ minimum: 1, maximum: 3600, description: "seconds between the master's open and the copy" }),
});
export type DelayedExecutionSettings = Static<typeof members>;

export const delayedExecution: CopierFeature<DelayedExecutionSettings> = {
  type: 'FeatureDelayedExecutionDTO',
  scopes: ['copier'],
  multiple: false,
  members,
  defaults: {},
  description:
    'Copies master opens (market and pending) delaySeconds after the master opened, at the market of that moment, if the master still holds the position then (filters are applied again at that time). Closes and modifications are not delayed; a master close before the delay ends means nothing is opened.',
  rules: {
    deferOpen: (s, ctx) => {
      if (!ctx.eventTime) return null;
      const due = DateTime.fromISO(ctx.eventTime).plus({ seconds: s.delaySeconds });
      return due.toMillis() > Date.parse(ctx.now) ? due.toUTC().toISO() : null;
    },
  },
};
