// FeatureDelayedExecutionDTO (the reference: minDelayOpen, maxDelayOpen, minDelayClose, maxDelayClose,
// seconds with millisecond resolution, 0 to 3600, 0 = no delay). Our reading:
//   - A master open (market or pending) is copied a delay after the master opened, drawn between
//     minDelayOpen and maxDelayOpen, at the market price of that moment, and only if the master still
//     holds the position (or pending order) then; the filters run again at that time. A master close
//     before the delay ends means nothing is opened.
//   - A master close or partial close of a copy is copied a delay after the master closed, drawn between
//     minDelayClose and maxDelayClose, if the slave still holds the copy then.
//   - "Drawn" without a random source: the point between min and max follows from a hash of the master
//     position and the kind (open or close), so the same master event is always delayed alike (a
//     decision taken again, a replay, a restart) while different trades spread over the range.
//   - Stop loss and take profit changes are not delayed.
//   - symbolsConfiguration (perSymbol.ts): a slave symbol's own delays; an open by the symbol of its
//     copy, a close by its copy's.
import { type Static, Type } from '@sinclair/typebox';
import { DateTime } from 'luxon';
import { checkSymbolsConfiguration, perSymbolRules, withSymbolsConfiguration } from './perSymbol.js';
import type { CopierFeature } from './rules.js';

const Delay = (description: string) =>
  Type.Number({ minimum: 0, maximum: 3600, description: `${description}; seconds (millisecond resolution), default 0, at most 3600` });

const general = Type.Object({
  minDelayOpen: Delay("the least time between the master's open and the copy"),
  maxDelayOpen: Delay("the most time between the master's open and the copy"),
  minDelayClose: Delay("the least time between the master's close and the copy's close"),
  maxDelayClose: Delay("the most time between the master's close and the copy's close"),
});
type General = Static<typeof general>;
const members = withSymbolsConfiguration(general, 'The delays per symbol: e.g. {"EURUSD": {"minDelayOpen": 10, "maxDelayOpen": 40}}.');
export type DelayedExecutionSettings = Static<typeof members>;

/** A fraction in [0, 1) from a text (FNV-1a): the same text, the same fraction. */
const fraction = (text: string): number => {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash / 2 ** 32;
};

/** The delay in milliseconds for one master position and kind, between min and max (seconds). */
export const delayMillis = (min: number, max: number, masterPositionId: string, kind: 'open' | 'close'): number =>
  Math.round((min + (Math.max(max, min) - min) * fraction(`${masterPositionId}/${kind}`)) * 1000);

/** The time the event is due, or null when it is due already (or nothing delays it). */
const due = (eventTime: string | null, now: string, millis: number): string | null => {
  if (!eventTime || millis <= 0) return null;
  const at = DateTime.fromISO(eventTime).plus({ milliseconds: millis });
  return at.toMillis() > Date.parse(now) ? at.toUTC().toISO()! : null;
};

/** The rules between members, for the general setting and each symbol's effective one. */
const relations = (s: General): string | null =>
  s.maxDelayOpen < s.minDelayOpen
    ? `maxDelayOpen ${s.maxDelayOpen} is below minDelayOpen ${s.minDelayOpen}`
    : s.maxDelayClose < s.minDelayClose
      ? `maxDelayClose ${s.maxDelayClose} is below minDelayClose ${s.minDelayClose}`
      : null;

export const delayedExecution: CopierFeature<DelayedExecutionSettings> = {
  type: 'FeatureDelayedExecutionDTO',
  scopes: ['copier'],
  multiple: false,
  members,
  defaults: { minDelayOpen: 0, maxDelayOpen: 0, minDelayClose: 0, maxDelayClose: 0, symbolsConfiguration: {} },
  description:
    "Copies master opens (market and pending) a delay after the master opened, between minDelayOpen and maxDelayOpen seconds, at the market of that moment, if the master still holds the position then (filters are applied again at that time); a master close before the delay ends means nothing is opened. Copies the master's closes and partial closes a delay after the master closed, between minDelayClose and maxDelayClose seconds, if the slave still holds the copy then. Seconds with millisecond resolution, 0 to 3600, default 0 = no delay. Where in the range a trade falls follows from its master position (the same trade is always delayed alike). Stop changes are not delayed. symbolsConfiguration gives a slave symbol its own delays.",
  check: (s) => checkSymbolsConfiguration(s, relations),
  rules: perSymbolRules<General>({
    deferOpen: (s, ctx) => due(ctx.eventTime, ctx.now, delayMillis(s.minDelayOpen, s.maxDelayOpen, ctx.trade.masterPositionId, 'open')),
    onClose: (s, { event, eventTime, now }) => {
      const until = due(eventTime, now, delayMillis(s.minDelayClose, s.maxDelayClose, event.data.masterPositionId, 'close'));
      return until === null ? null : { until };
    },
  }),
};
