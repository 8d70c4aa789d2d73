// A master partial close is copied proportionally: the slave closes the fraction of its own volume
// that the master closed of its volume (closed / (closed + remaining)), rounded down to the slave's
// lot step. Proportional rather than the master's lot, so a slave sized at 2x closes 2x.
import { exact, show, toNumber } from '../shared/decimal.js';
import { floorToStep, unusableSpec } from './rounding.js';
import type { Lots, Skip, SymbolSpec } from './types.js';

export type PartialCloseVolume =
  | { readonly kind: 'partial'; readonly volume: Lots; readonly remaining: Lots }
  | { readonly kind: 'all'; readonly volume: Lots }
  | ({ readonly kind: 'skip' } & Skip);

export const partialCloseVolume = (slaveVolume: Lots, masterClosed: Lots, masterRemaining: Lots, spec: SymbolSpec): PartialCloseVolume => {
  const slave = exact(slaveVolume);
  const closed = exact(masterClosed);
  const remainingOnMaster = exact(masterRemaining);
  if (closed.lessThanOrEqualTo(0)) return { kind: 'skip', reason: 'VOLUME_NOT_POSITIVE', message: `the master closed ${masterClosed} lots: nothing to close` };
  if (remainingOnMaster.lessThanOrEqualTo(0)) return { kind: 'all', volume: slaveVolume };
  const specProblem = unusableSpec(spec);
  if (specProblem !== null) return { kind: 'skip', reason: 'SYMBOL_SPEC_INVALID', message: specProblem };

  const masterVolume = closed.plus(remainingOnMaster);
  // Divided last, so the rounding of the quotient cannot cost a lot step (domain/shared/decimal.ts).
  const volume = floorToStep(slave.times(closed).dividedBy(masterVolume), exact(spec.lotStep));
  const percent = show(closed.times(100).dividedBy(masterVolume));
  if (volume.lessThanOrEqualTo(0))
    return {
      kind: 'skip',
      reason: 'PARTIAL_CLOSE_ROUNDS_TO_ZERO',
      message: `${percent}% of ${slaveVolume} lots rounds down to 0 on the lot step ${spec.lotStep} of ${spec.symbol}`,
    };
  const minLot = exact(spec.minLot);
  const remaining = slave.minus(volume);
  // What would stay open could not be closed later on its own: close it all now.
  if (remaining.lessThan(minLot)) return { kind: 'all', volume: slaveVolume };
  if (volume.lessThan(minLot))
    return {
      kind: 'skip',
      reason: 'VOLUME_BELOW_MINIMUM',
      message: `closing ${percent}% of ${slaveVolume} lots is ${show(volume)} lots, ` + `below the minimum ${spec.minLot} of ${spec.symbol}`,
    };
  return { kind: 'partial', volume: toNumber(volume), remaining: toNumber(remaining) };
};
