// FeatureTradeGuardrailsDTO (spec: enabled, maxLotSizeThreshold, aggregatePerSymbol, maxOpenTimeSeconds,
// symbolsConfiguration). Two guards on the slave's copies, off while enabled is false:
//   - an open whose slave lot is above maxLotSizeThreshold is not copied (GUARDRAIL); with
//     aggregatePerSymbol the lots this copier already holds open on the symbol (positions and pending
//     orders) count too. The lot measured is the sized one, after money management and the margin cap.
//   - a copy held longer than maxOpenTimeSeconds (from its open at the slave's venue) is closed, checked
//     every second; closedBy names this feature.
//   - 0 (or null) turns a guard off; symbolsConfiguration gives a slave symbol its own threshold or time
//     (null there = the general value, 0 = off for that symbol).
import { type Static, Type } from '@sinclair/typebox';
import { DateTime } from 'luxon';
import { exact, show, ZERO } from '../../shared/decimal.js';
import { sameSymbol, symbolConfiguredTwice } from './perSymbol.js';
import { type CopierFeature, type ManagedAction, skip } from './rules.js';

const Threshold = Type.Union([Type.Number({ minimum: 0, maximum: 1e6 }), Type.Null()], {
  description: 'lots: an open above it is not copied; null or 0 = no lot guard',
});
const Seconds = Type.Union([Type.Integer({ minimum: 0, maximum: 31_536_000 }), Type.Null()], {
  description: 'seconds a copy may stay open before it is closed; null or 0 = no time guard (at most a year)',
});

const members = Type.Object({
  enabled: Type.Boolean({ description: 'false: both guards are off (default true)' }),
  maxLotSizeThreshold: Threshold,
  aggregatePerSymbol: Type.Boolean({ description: "true: the copier's open lots on the symbol count with the new lot; default false" }),
  maxOpenTimeSeconds: Seconds,
  symbolsConfiguration: Type.Array(
    Type.Object(
      {
        symbol: Type.String({ minLength: 1, maxLength: 64, description: 'a slave symbol' }),
        maxLotSizeThreshold: Type.Union([Type.Number({ minimum: 0, maximum: 1e6 }), Type.Null()], {
          description: "this symbol's threshold; null = the general one, 0 = none",
        }),
        maxOpenTimeSeconds: Type.Union([Type.Integer({ minimum: 0, maximum: 31_536_000 }), Type.Null()], {
          description: "this symbol's time; null = the general one, 0 = none",
        }),
      },
      { additionalProperties: false },
    ),
    { maxItems: 200, description: 'per slave symbol: its own threshold and time' },
  ),
});
export type TradeGuardrailsSettings = Static<typeof members>;

const limitFor = (s: TradeGuardrailsSettings, symbol: string, member: 'maxLotSizeThreshold' | 'maxOpenTimeSeconds'): number | null => {
  const own = s.symbolsConfiguration.find((c) => sameSymbol(c.symbol, symbol))?.[member];
  const value = own === null || own === undefined ? s[member] : own;
  return value === null || value <= 0 ? null : value;
};

export const tradeGuardrails: CopierFeature<TradeGuardrailsSettings> = {
  type: 'FeatureTradeGuardrailsDTO',
  scopes: ['copier'],
  multiple: false,
  members,
  defaults: { enabled: true, maxLotSizeThreshold: null, aggregatePerSymbol: false, maxOpenTimeSeconds: null, symbolsConfiguration: [] },
  description:
    "Guards on the slave's copies. An open whose slave lot (after sizing and the lot caps) is above maxLotSizeThreshold is not copied (GUARDRAIL); with aggregatePerSymbol the lots this copier already holds on the symbol count too. A copy open longer than maxOpenTimeSeconds (from its open at the slave's venue) is closed, checked every second. null or 0 turns a guard off; symbolsConfiguration sets a slave symbol's own threshold and time (null = the general value, 0 = off). enabled false turns both off.",
  check: (s) => symbolConfiguredTwice(s.symbolsConfiguration),
  rules: {
    adjustVolume: (s, volume, { slaveSymbol, copies }) => {
      const threshold = s.enabled ? limitFor(s, slaveSymbol, 'maxLotSizeThreshold') : null;
      if (threshold === null) return { volume };
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
        const seconds = limitFor(s, copy.symbol, 'maxOpenTimeSeconds');
        if (seconds === null) continue;
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
  },
};
