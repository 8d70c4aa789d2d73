// The reference's PositionRequestDTO.volume: "In lots. The volume will be automatically adjusted
// according to the symbol data." An open through the API is placed with the asked volume brought onto
// the symbol's lot step (rounded down, as the copy engine rounds: domain/copy/rounding.ts) and within its
// minimum and maximum.
import { exact, toNumber } from '../shared/decimal.js';
import { floorToStep } from '../copy/rounding.js';

export interface VolumeLimits {
  readonly minVolume: number;
  readonly maxVolume: number;
  readonly volumeStep: number;
}

/** The volume the broker takes for `volume`; unchanged when the limits are not usable (the broker decides). */
export const adjustedOrderVolume = (volume: number, { minVolume, maxVolume, volumeStep }: VolumeLimits): number => {
  if (!(volumeStep > 0) || !(minVolume > 0) || !(maxVolume >= minVolume)) return volume;
  const step = exact(volumeStep);
  const max = floorToStep(exact(maxVolume), step);
  const stepped = floorToStep(exact(volume), step);
  if (stepped.greaterThan(max)) return toNumber(max);
  if (stepped.lessThan(exact(minVolume))) return minVolume;
  return toNumber(stepped);
};
