// The whole-number lot (domain/copy/plainSizing.ts) against the decimal path it stands in for: on
// random settings, specs and master lots (short decimals, float noise such as 0.1 + 0.2, figures that
// do not fit), slaveVolume answers exactly what decimalVolume answers, and the plain path answers a
// good share of them itself.
import { expect } from 'chai';
import type { CopierSettings } from '../../../domain/copier/settings.js';
import { initialMartingaleState } from '../../../domain/copy/martingale.js';
import { plainVolume } from '../../../domain/copy/plainSizing.js';
import { decimalVolume, type SizingContext, slaveVolume } from '../../../domain/copy/sizing.js';
import { copierSettings, funds, symbolSpec } from './given.js';

/** mulberry32: the same cases on every run, so a failure names its seed and case. */
const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

const pick = <T>(next: () => number, values: readonly T[]): T => values[Math.floor(next() * values.length)]!;

/** A figure as users and brokers give them, now and then with float noise or too many digits. */
const figure = (next: () => number, scale: number, places: number): number => {
  const kind = next();
  const short = Math.round(next() * scale * 10 ** places) / 10 ** places;
  if (kind < 0.1) return short + 0.1 + 0.2 - 0.3; // noise: the decimal path reads it at 15 digits
  if (kind < 0.15) return next() * scale; // 16 or 17 digits
  if (kind < 0.2) return 0;
  return short;
};

const cases = (seed: number, count: number) => {
  const next = random(seed);
  return Array.from({ length: count }, () => {
    const lotStep = pick(next, [0.01, 0.1, 1, 0.001, 0.05, 0.25, 2, 0.1 + 0.2, 1e-9]);
    const minLot = pick(next, [lotStep, 0.01, 0.1, 1, 0.5, 0.03]);
    const settings: Partial<CopierSettings> = {
      scaleType: pick(next, ['NO_SCALING', 'NO_SCALING', 'NO_SCALING', 'FIXED_LOT', 'EQUITY'] as const),
      multiplier: pick(next, [1, 1, 2, 0.5, 0.3, 1.25, 3.7, -1, 0]) + (next() < 0.1 ? 0.1 + 0.2 - 0.3 : 0),
      fixedLotSize: figure(next, 5, 2),
      ignoreContractSize: next() < 0.8,
      maxLotSize: next() < 0.6 ? 0 : figure(next, 10, 2),
      maximumLot: next() < 0.8 ? 0 : figure(next, 20, 1),
      martingaleStrategy: next() < 0.1,
      forcePositionLotSize: next() < 0.1,
      forceMinTrade: next() < 0.7,
    };
    const spec = symbolSpec({ lotStep, minLot, maxLot: pick(next, [100, 50, 1, 0.5, 1e6, minLot]) });
    const context: SizingContext = {
      master: funds(),
      slave: funds(),
      slaveToMasterRate: null,
      masterSymbol: symbolSpec(),
      slaveSymbol: spec,
      openLots: 0,
      martingale: next() < 0.5 ? initialMartingaleState : { consecutiveLosses: 2 },
    };
    return { masterLot: figure(next, 20, pick(next, [0, 1, 2, 3, 5])), settings: copierSettings(settings), context };
  });
};

describe('copy sizing: the whole-number lot (plainSizing)', () => {
  it('answers what the decimal path answers on 20,000 random cases, and over 1,000 of them on whole numbers', () => {
    let plain = 0;
    const all = cases(16, 20_000);
    for (const [i, { masterLot, settings, context }] of all.entries()) {
      const expected = decimalVolume(masterLot, settings, context);
      expect(
        slaveVolume(masterLot, settings, context),
        `case ${i}: ${masterLot} lots, ${JSON.stringify(settings)}, ${JSON.stringify(context.slaveSymbol)}`,
      ).to.deep.equal(expected);
      const answer = plainVolume(masterLot, settings, context.slaveSymbol);
      if (answer) {
        plain += 1;
        expect(expected.ok && expected.adjustments.length === 0, `case ${i}`).to.equal(true);
      }
    }
    expect(plain).to.be.greaterThan(1_000);
  });

  it('floors float noise and many-digit figures exactly as the decimal path does', () => {
    const context: SizingContext = {
      master: funds(),
      slave: funds(),
      slaveToMasterRate: null,
      masterSymbol: symbolSpec(),
      slaveSymbol: symbolSpec({ lotStep: 0.01, minLot: 0.01, maxLot: 100 }),
      openLots: 0,
      martingale: initialMartingaleState,
    };
    for (const [masterLot, multiplier, lots] of [
      [0.57, 1, 0.57],
      [0.1 + 0.2, 1, 0.3],
      [0.029, 1, 0.02],
      [0.7 + 0.1, 1, 0.8],
      [1.15, 3, 3.45],
      [0.123456789, 1, 0.12],
    ] as const) {
      const answer = slaveVolume(masterLot, copierSettings({ scaleType: 'NO_SCALING', multiplier }), context);
      expect(answer.ok && answer.volume, `${masterLot} x ${multiplier}`).to.equal(lots);
    }
    // A short figure takes the plain path; noise and digits beyond 8 places the decimal one.
    expect(plainVolume(0.57, copierSettings({ scaleType: 'NO_SCALING' }), context.slaveSymbol)).to.deep.equal({ volume: 0.57, calculated: 0.57 });
    expect(plainVolume(0.1 + 0.2, copierSettings({ scaleType: 'NO_SCALING' }), context.slaveSymbol)).to.equal(null);
    expect(plainVolume(0.123456789, copierSettings({ scaleType: 'NO_SCALING' }), context.slaveSymbol)).to.equal(null);
  });
});
