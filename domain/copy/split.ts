// CopierDTO forcePositionLotSize (the reference: "Place more trades if max lot size for a specific
// symbol is reached"): a slave lot above the broker's maximum for the symbol is placed as several
// orders, each at most that maximum and on whole lot steps, all copying the one master position.
// Each order is a part with its index (0, 1, ...): its client order id derives from the part
// (orderIds.ts), so a replayed master event places no part twice; closes, partial closes, stop loss
// and take profit changes and cancellations apply to every part (decision.ts).
import { type Decimal, exact, toNumber } from '../shared/decimal.js';
import { slaveOrderId } from './orderIds.js';
import { floorToStep } from './rounding.js';
import type { Lots, OpenAction, SlaveCopy, SymbolSpec } from './types.js';

/** The most orders one master position is split into; a larger lot is capped at this many maximum lots. */
export const MAX_SPLIT_PARTS = 50;

/** The largest lot of one order: the broker's maximum on whole lot steps. */
export const largestOrder = (spec: SymbolSpec): Decimal => floorToStep(exact(spec.maxLot), exact(spec.lotStep));

/** The most a split may place in all: MAX_SPLIT_PARTS orders of the largest lot. */
export const largestSplit = (spec: SymbolSpec): Decimal => largestOrder(spec).times(MAX_SPLIT_PARTS);

/**
 * The lots of each order for `volume` (a whole number of steps, at least the minimum): full orders of
 * the largest lot and the rest. A rest below the broker's minimum takes what it lacks from the order
 * before it, so every order is within the minimum and the maximum and the sum is the volume.
 */
export const splitVolume = (volume: Lots, spec: SymbolSpec): Lots[] => {
  const largest = largestOrder(spec);
  const min = exact(spec.minLot);
  let rest = exact(volume);
  if (!largest.greaterThan(0) || !rest.greaterThan(largest)) return [volume];
  const parts: Decimal[] = [];
  while (rest.greaterThan(largest) && parts.length < MAX_SPLIT_PARTS - 1) {
    parts.push(largest);
    rest = rest.minus(largest);
  }
  if (rest.greaterThan(largest)) rest = largest;
  if (rest.greaterThan(0)) {
    if (rest.lessThan(min)) {
      const lacking = min.minus(rest);
      parts[parts.length - 1] = parts[parts.length - 1]!.minus(lacking);
      rest = min;
    }
    parts.push(rest);
  }
  return parts.map(toNumber);
};

/** The open as one order per part; unchanged when the lot is within the broker's maximum. */
export const splitOpen = (action: OpenAction, spec: SymbolSpec, masterEventId: string, copierId: string): OpenAction[] => {
  const volumes = splitVolume(action.volume, spec);
  if (volumes.length === 1) return [action];
  // Part 0 is the order an unsplit copy would have placed: same id, no part member.
  return volumes.map((volume, part) => ({
    ...action,
    volume,
    clientOrderId: slaveOrderId(masterEventId, copierId, 'open', part),
    ...(part === 0 ? {} : { part }),
  }));
};

/** The part of a copy: 0 for the only order of an unsplit one. */
export const partOf = (copy: Pick<SlaveCopy, 'part'>): number => copy.part ?? 0;

/** What a master partial close does to one part of a split copy. */
export type PartClose =
  { readonly copy: SlaveCopy; readonly kind: 'all' } | { readonly copy: SlaveCopy; readonly kind: 'partial'; readonly volume: Lots; readonly remaining: Lots };

/**
 * A master partial close over the parts of a split copy: `volume` (the proportional share of all the
 * parts, partialClose.ts) is taken from the last part backwards, whole parts first, then what is left of
 * it from the next one. A part left below the minimum closes whole; a share below the minimum of a part
 * that stays is not closed (the lot rounds down, as everywhere).
 */
export const partialCloseOfParts = (parts: readonly SlaveCopy[], volume: Lots, spec: SymbolSpec): PartClose[] => {
  const min = exact(spec.minLot);
  let left = exact(volume);
  const out: PartClose[] = [];
  for (const copy of [...parts].sort((a, b) => partOf(b) - partOf(a))) {
    if (!left.greaterThan(0)) break;
    const held = exact(copy.volume);
    if (!left.lessThan(held) || held.minus(left).lessThan(min)) {
      out.push({ copy, kind: 'all' });
      left = left.minus(held);
    } else {
      if (!left.lessThan(min)) out.push({ copy, kind: 'partial', volume: toNumber(left), remaining: toNumber(held.minus(left)) });
      left = exact(0);
    }
  }
  return out;
};
