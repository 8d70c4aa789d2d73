// FeatureTradeGuardrailsDTO (spec: enabled, maxLotSizeThreshold, aggregatePerSymbol, maxOpenTimeSeconds,
// symbolsConfiguration). Two guards on the slave's copies, off while enabled is false:
//   - an open whose slave lot is above maxLotSizeThreshold is not copied (GUARDRAIL); with
//     aggregatePerSymbol the lots this copier already holds open on the symbol (positions and pending
//     orders) count too. The lot measured is the sized one, after money management and the margin cap.
//   - a copy held longer than maxOpenTimeSeconds (from its open at the slave's venue) is closed, checked
//     every second; closedBy names this feature.
//   - 0 turns a guard off; symbolsConfiguration (the reference's map, perSymbol.ts) gives a slave symbol
//     its own members: EURUSD {maxLotSizeThreshold: 2, maxOpenTimeSeconds: 0} (0 = off for that symbol).
import { type Static, Type } from '@sinclair/typebox';
import { DateTime } from 'luxon';
import { exact, show, ZERO } from '../../shared/decimal.js';
import { checkSymbolsConfiguration, perSymbolRules, sameSymbol, withSymbolsConfiguration } from './perSymbol.js';
import { type CopierFeature, type ManagedAction, skip } from './rules.js';

const general = Type.Object({
  enabled: Type.Boolean({ description: 'false: both guards are off (default true)' }),
  maxLotSizeThreshold: Type.Number({ minimum: 0, maximum: 1e6, description: 'lots: an open above it is not copied; default 0 = no lot guard' }),
  aggregatePerSymbol: Type.Boolean({ description: "true: the copier's open lots on the symbol count with the new lot; default false" }),
  maxOpenTimeSeconds: Type.Integer({
    minimum: 0,
    maximum: 31_536_000,
    description: 'seconds a copy may stay open before it is closed; default 0 = no time guard (at most a year)',
  }),
});
type General = Static<typeof general>;
const members = withSymbolsConfiguration(
  general,
  'Per slave symbol, its own members: e.g. {"EURUSD": {"maxLotSizeThreshold": 1, "maxOpenTimeSeconds": 7200}}; 0 there turns that guard off for the symbol.',
);
export type TradeGuardrailsSettings = Static<typeof members>;

export const tradeGuardrails: CopierFeature<TradeGuardrailsSettings> = {
  type: 'FeatureTradeGuardrailsDTO',
  scopes: ['copier'],
  multiple: false,
  members,
  defaults: { enabled: true, maxLotSizeThreshold: 0, aggregatePerSymbol: false, maxOpenTimeSeconds: 0, symbolsConfiguration: {} },
  description:
    "Guards on the slave's copies. An open whose slave lot (after sizing and the lot caps) is above maxLotSizeThreshold is not copied (GUARDRAIL); with aggregatePerSymbol the lots this copier already holds on the symbol count too. A copy open longer than maxOpenTimeSeconds (from its open at the slave's venue) is closed, checked every second. 0 (the default) turns a guard off; symbolsConfiguration gives a slave symbol its own members (0 there: that guard off for the symbol). enabled false turns both off.",
  check: (s) => checkSymbolsConfiguration(s),
  rules: perSymbolRules<General>({
    adjustVolume: (s, volume, { slaveSymbol, copies }) => {
      const threshold = s.maxLotSizeThreshold;
      if (!s.enabled || !(threshold > 0)) return { volume };
      const held = s.aggregatePerSymbol ? copies.filter((c) => sameSymbol(c.symbol, slaveSymbol)).reduce((sum, c) => sum.plus(exact(c.volume)), ZERO) : ZERO;
      const total = held.plus(exact(volume));
      if (total.lessThanOrEqualTo(exact(threshold))) return { volume };
      return skip(
        'GUARDRAIL',
        s.aggregatePerSymbol
          ? `${show(volume)} lots with the ${show(held)} lots open on ${slaveSymbol} make ${show(total)}, above the guardrail of ${threshold} lots`
          : `the slave lot ${show(volume)} is above the guardrail of ${threshold} lots`,
      );
    },
    manage: (s, { copies, now }) => {
      if (!s.enabled) return [];
      const at = DateTime.fromISO(now);
      const actions: ManagedAction[] = [];
      for (const copy of copies) {
        const seconds = s.maxOpenTimeSeconds;
        if (!(seconds > 0)) continue;
        const due = DateTime.fromISO(copy.openTime).plus({ seconds });
        if (!due.isValid || due > at) continue;
        actions.push({
          kind: 'close',
          slavePositionId: copy.slavePositionId,
          masterPositionId: copy.masterPositionId,
          symbol: copy.symbol,
          volume: copy.volume,
          message: `guardrail: #${copy.slavePositionId} (${copy.volume} ${copy.symbol}) open since ${copy.openTime}, longer than ${seconds} seconds: closed`,
        });
      }
      return actions;
    },
  }),
};
