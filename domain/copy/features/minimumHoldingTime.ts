// FeatureMinimumHoldingTimeDTO (the reference: minimumHoldSeconds, default 5, 0 = deactivated). The slave
// holds each copy at least minimumHoldSeconds. A master close or partial close that comes sooner is deferred (not skipped)
// until minimumSeconds after the slave's copy opened, and copied then, if the slave still holds it.
//   - The time is the slave copy's open (a copy reopened by a feature: its reopening).
//   - Stops of the slave's own and closes by other features are not held back; neither are stop loss
//     and take profit changes.
//   - symbolsConfiguration (perSymbol.ts): a slave symbol's own minimumHoldSeconds, by the copy's symbol.
import { type Static, Type } from '@sinclair/typebox';
import { DateTime } from 'luxon';
import { checkSymbolsConfiguration, perSymbolRules, withSymbolsConfiguration } from './perSymbol.js';
import type { CopierFeature } from './rules.js';

const general = Type.Object({
  minimumHoldSeconds: Type.Integer({
    minimum: 0,
    maximum: 604_800,
    description: "seconds the slave holds a copy at least before the master's close is copied (up to a week); default 5, 0 = deactivated",
  }),
});
type General = Static<typeof general>;
const members = withSymbolsConfiguration(general, 'The minimum holding time per symbol: e.g. {"EURUSD": {"minimumHoldSeconds": 5}}.');
export type MinimumHoldingTimeSettings = Static<typeof members>;

export const minimumHoldingTime: CopierFeature<MinimumHoldingTimeSettings> = {
  type: 'FeatureMinimumHoldingTimeDTO',
  scopes: ['copier'],
  multiple: false,
  members,
  defaults: { minimumHoldSeconds: 5, symbolsConfiguration: {} },
  description:
    "The slave holds each copy at least minimumHoldSeconds (default 5, 0 = deactivated): a master close or partial close that comes sooner is deferred until minimumHoldSeconds after the slave's copy opened, and copied then if the slave still holds the copy. The copy's own stops, closes by hand or by other features, and stop changes are not held back. symbolsConfiguration gives a slave symbol its own minimumHoldSeconds.",
  check: (s) => checkSymbolsConfiguration(s),
  rules: perSymbolRules<General>({
    onClose: (s, { record, now }) => {
      if (!record || record.closedAt !== null || !(s.minimumHoldSeconds > 0)) return null;
      const due = DateTime.fromISO(record.openedAt).plus({ seconds: s.minimumHoldSeconds });
      return due.toMillis() > Date.parse(now) ? { until: due.toUTC().toISO()! } : null;
    },
  }),
};
