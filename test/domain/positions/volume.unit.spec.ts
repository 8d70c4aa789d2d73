import { expect } from 'chai';
import { adjustedOrderVolume } from '../../../domain/positions/volume.js';

describe("PositionRequestDTO volume 'automatically adjusted according to the symbol data'", () => {
  const eurusd = { minVolume: 0.01, maxVolume: 100, volumeStep: 0.01 };
  it('leaves a volume on the step within the limits as it is', () => expect(adjustedOrderVolume(0.07, eurusd)).to.equal(0.07));
  it('rounds a volume off the step down to it', () => expect(adjustedOrderVolume(0.015, eurusd)).to.equal(0.01));
  it('raises a volume below the minimum to it', () => expect(adjustedOrderVolume(0.001, eurusd)).to.equal(0.01));
  it('lowers a volume above the maximum to it, on the step', () => {
    expect(adjustedOrderVolume(101, eurusd)).to.equal(100);
    expect(adjustedOrderVolume(7, { minVolume: 0.1, maxVolume: 5.05, volumeStep: 0.1 })).to.equal(5);
  });
  it('leaves the volume to the broker when the limits are not usable', () =>
    expect(adjustedOrderVolume(0.015, { minVolume: 0, maxVolume: 0, volumeStep: 0 })).to.equal(0.015));
});
