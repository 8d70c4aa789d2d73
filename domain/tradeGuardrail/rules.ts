// The rule of FeatureTradeGuardrailsDTO (feature.ts): which open positions break a guard now, and why.
// Pure: the guardrail monitor hands it the positions it watches (the account's book, or one copier's
// copies) as the venue shows them, and the time.
import { settingsFor } from '../copy/features/perSymbol.js';
import { type Decimal, exact, show, ZERO } from '../shared/decimal.js';
import type { TradeGuardrailsGeneral, TradeGuardrailsSettings } from './feature.js';

export type GuardrailRule = 'MAX_LOT_SIZE' | 'MAX_OPEN_TIME';

/** An open position as the guardrail sees it. */
export interface WatchedPosition {
  readonly positionId: string;
  readonly symbol: string;
  readonly side: 'Buy' | 'Sell';
  readonly volume: number;
  /** Its open time at the venue, ISO 8601. */
  readonly openTime: string;
  /** Placed outside the service: no client order id of ours (the broker's terminal, another program). */
  readonly outside: boolean;
}

export interface GuardrailClose {
  readonly position: WatchedPosition;
  readonly rule: GuardrailRule;
  /** The reason in words, for the account's log. */
  readonly reason: string;
}

const lots = (volume: Decimal): string => `${show(volume)} ${volume.equals(1) ? 'lot' : 'lots'}`;

/** Newest first: the later open time, then the higher ticket. */
const newestFirst = (a: WatchedPosition, b: WatchedPosition): number =>
  Date.parse(b.openTime) - Date.parse(a.openTime) || b.positionId.localeCompare(a.positionId, undefined, { numeric: true });

/**
 * The positions to close now, each once, with the first guard it breaks: the time guard, then the lot
 * guard (per position, or per symbol with aggregatePerSymbol: the newest positions until the rest is at
 * or below the threshold; positions the time guard closes no longer count).
 */
export const guardrailCloses = (settings: TradeGuardrailsSettings, positions: readonly WatchedPosition[], now: string): GuardrailClose[] => {
  const bySymbol = new Map<string, WatchedPosition[]>();
  for (const position of positions) {
    const key = position.symbol.toUpperCase();
    bySymbol.set(key, [...(bySymbol.get(key) ?? []), position]);
  }
  const at = Date.parse(now);
  const closes: GuardrailClose[] = [];
  for (const group of bySymbol.values()) {
    const s: TradeGuardrailsGeneral = settingsFor(settings, group[0]!.symbol);
    if (!s.enabled) continue;
    const staying: WatchedPosition[] = [];
    for (const position of group) {
      const opened = Date.parse(position.openTime);
      if (s.maxOpenTimeSeconds > 0 && Number.isFinite(opened) && at - opened > s.maxOpenTimeSeconds * 1000) {
        closes.push({
          position,
          rule: 'MAX_OPEN_TIME',
          reason: `open since ${position.openTime}, longer than maxOpenTimeSeconds ${s.maxOpenTimeSeconds}`,
        });
      } else staying.push(position);
    }
    const threshold = s.maxLotSizeThreshold;
    if (!(threshold > 0)) continue;
    if (!s.aggregatePerSymbol) {
      for (const position of staying) {
        if (exact(position.volume).greaterThan(exact(threshold))) {
          closes.push({ position, rule: 'MAX_LOT_SIZE', reason: `${lots(exact(position.volume))}, above maxLotSizeThreshold ${threshold}` });
        }
      }
      continue;
    }
    let total = staying.reduce((sum, p) => sum.plus(exact(p.volume)), ZERO);
    const limit = exact(threshold);
    const together = total;
    if (total.lessThanOrEqualTo(limit)) continue;
    for (const position of [...staying].sort(newestFirst)) {
      if (total.lessThanOrEqualTo(limit)) break;
      closes.push({
        position,
        rule: 'MAX_LOT_SIZE',
        reason: `${lots(together)} open on ${position.symbol} together, above maxLotSizeThreshold ${threshold} (aggregatePerSymbol: the newest positions close first)`,
      });
      total = total.minus(exact(position.volume));
    }
  }
  return closes;
};
