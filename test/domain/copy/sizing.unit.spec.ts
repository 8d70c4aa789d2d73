import { expect } from 'chai';
import type { CopierSettings } from '../../../domain/copier/settings.js';
import { initialMartingaleState, nextMartingaleState } from '../../../domain/copy/martingale.js';
import { type SizedVolume, type SizingContext, slaveVolume } from '../../../domain/copy/sizing.js';
import type { SkipReason } from '../../../domain/copy/types.js';
import { copierSettings, funds, symbolSpec } from './given.js';

const context = (overrides: Partial<SizingContext> = {}): SizingContext => ({
  master: funds(),
  slave: funds(),
  slaveToMasterRate: null,
  masterSymbol: symbolSpec(),
  slaveSymbol: symbolSpec(),
  openLots: 0,
  martingale: initialMartingaleState,
  ...overrides,
});

/** given settings and accounts, when the master opens masterLot, then the slave's lot. */
const sized = (masterLot: number, settings: Partial<CopierSettings>, overrides: Partial<SizingContext> = {}): SizedVolume =>
  slaveVolume(masterLot, copierSettings(settings), context(overrides));

const lotOf = (masterLot: number, settings: Partial<CopierSettings>, overrides: Partial<SizingContext> = {}): number => {
  const result = sized(masterLot, settings, overrides);
  if (!result.ok) throw new Error(`expected a lot, got ${result.reason}: ${result.message}`);
  return result.volume;
};

const skipOf = (masterLot: number, settings: Partial<CopierSettings>, overrides: Partial<SizingContext> = {}): SkipReason => {
  const result = sized(masterLot, settings, overrides);
  if (result.ok) throw new Error(`expected a skip, got ${result.volume} lots`);
  expect(result.message).to.be.a('string').and.not.equal('');
  return result.reason;
};

describe('copy sizing: slaveVolume', () => {
  describe('scale types', () => {
    it('NO_SCALING (4, the default) at multiplier 1 copies the master lot unchanged', () => expect(lotOf(0.37, { scaleType: 'NO_SCALING' })).to.equal(0.37));

    it('NO_SCALING multiplies the master lot by the multiplier', () => expect(lotOf(1, { scaleType: 'NO_SCALING', multiplier: 2 })).to.equal(2));

    it('NO_SCALING below 1 scales down: 1.5 x 0.5 = 0.75', () => expect(lotOf(1.5, { scaleType: 'NO_SCALING', multiplier: 0.5 })).to.equal(0.75));

    it('FIXED_LOT always opens fixedLotSize, whatever the master lot and the multiplier', () => {
      expect(lotOf(3, { scaleType: 'FIXED_LOT', fixedLotSize: 0.25, multiplier: 4 })).to.equal(0.25);
      expect(lotOf(0.01, { scaleType: 'FIXED_LOT', fixedLotSize: 0.25 })).to.equal(0.25);
    });

    it('FIXED_LOT without a fixedLotSize above 0 skips with FIXED_LOT_SIZE_MISSING', () => {
      expect(skipOf(1, { scaleType: 'FIXED_LOT', fixedLotSize: 0 })).to.equal('FIXED_LOT_SIZE_MISSING');
      expect(skipOf(1, { scaleType: 'FIXED_LOT', fixedLotSize: -0.1 })).to.equal('FIXED_LOT_SIZE_MISSING');
    });

    it('FIXED_LOT opens the reference default fixedLotSize 0.01 when none is set', () => expect(lotOf(3, { scaleType: 'FIXED_LOT' })).to.equal(0.01));

    it('BALANCE scales by slave balance / master balance, not by equity', () =>
      expect(
        lotOf(1, { scaleType: 'BALANCE' }, { master: funds({ balance: 10_000, equity: 1_000 }), slave: funds({ balance: 5_000, equity: 9_000 }) }),
      ).to.equal(0.5));

    it('BALANCE also applies the multiplier', () =>
      expect(lotOf(1, { scaleType: 'BALANCE', multiplier: 3 }, { slave: funds({ balance: 5_000 }) })).to.equal(1.5));

    it('EQUITY scales by slave equity / master equity, not by balance', () =>
      expect(
        lotOf(1, { scaleType: 'EQUITY' }, { master: funds({ balance: 1_000, equity: 20_000 }), slave: funds({ balance: 1_000, equity: 3_000 }) }),
      ).to.equal(0.15));

    it('a ratio with the master at 0 balance skips with MASTER_FUNDS_NOT_POSITIVE', () =>
      expect(skipOf(1, { scaleType: 'BALANCE' }, { master: funds({ balance: 0 }) })).to.equal('MASTER_FUNDS_NOT_POSITIVE'));
  });

  describe('fixed balances', () => {
    it('fixMasterBalanceAndEquity replaces the master balance in BALANCE', () =>
      expect(lotOf(1, { scaleType: 'BALANCE', fixMasterBalanceAndEquity: 40_000 }, { master: funds({ balance: 10 }) })).to.equal(0.25));

    it('fixSlaveBalanceAndEquity replaces the slave equity in EQUITY', () =>
      expect(lotOf(2, { scaleType: 'EQUITY', fixSlaveBalanceAndEquity: 2_500 }, { slave: funds({ equity: 99_999 }) })).to.equal(0.5));

    it('a fixed value of 0 is deactivated: the live balance counts', () =>
      expect(lotOf(1, { scaleType: 'BALANCE', fixSlaveBalanceAndEquity: 0 }, { slave: funds({ balance: 2_000 }) })).to.equal(0.2));

    it('fixed balances do not affect NO_SCALING', () =>
      expect(lotOf(1, { scaleType: 'NO_SCALING', multiplier: 2, fixMasterBalanceAndEquity: 1, fixSlaveBalanceAndEquity: 1_000 })).to.equal(2));
  });

  describe('currencies', () => {
    const eurSlave = { master: funds({ currency: 'USD' }), slave: funds({ currency: 'EUR' }) };

    it('converts the slave balance into the master currency when the currencies differ', () =>
      expect(lotOf(1, { scaleType: 'BALANCE' }, { ...eurSlave, slaveToMasterRate: 1.08 })).to.equal(1.08));

    it('ignoreCurrency compares the raw numbers and needs no rate', () =>
      expect(lotOf(1, { scaleType: 'BALANCE', ignoreCurrency: true }, { ...eurSlave, slaveToMasterRate: null })).to.equal(1));

    it('skips with CURRENCY_RATE_MISSING when the currencies differ and no rate is known', () =>
      expect(skipOf(1, { scaleType: 'EQUITY' }, { ...eurSlave, slaveToMasterRate: null })).to.equal('CURRENCY_RATE_MISSING'));

    it('converts a fixed slave balance too (it is in the slave currency)', () =>
      expect(lotOf(1, { scaleType: 'BALANCE', fixSlaveBalanceAndEquity: 5_000 }, { ...eurSlave, slaveToMasterRate: 1.2 })).to.equal(0.6));

    it('needs no rate when both accounts use the same currency, whatever its case', () =>
      expect(lotOf(1, { scaleType: 'BALANCE' }, { master: funds({ currency: 'usd' }), slave: funds({ currency: 'USD', balance: 3_000 }) })).to.equal(0.3));

    it('needs no rate for NO_SCALING even across currencies', () =>
      expect(lotOf(1, { scaleType: 'NO_SCALING', multiplier: 1 }, { ...eurSlave, slaveToMasterRate: null })).to.equal(1));
  });

  describe('ignoreContractSize', () => {
    const contracts = (master: number, slave: number): Partial<SizingContext> => ({
      masterSymbol: symbolSpec({ contractSize: master }),
      slaveSymbol: symbolSpec({ contractSize: slave }),
    });

    it('true (the default): a lot is a lot, whatever the contract sizes', () => expect(lotOf(1, {}, contracts(100_000, 10_000))).to.equal(1));

    it("false: the master's lot becomes the slave lots of the same units: 1 lot of 100,000 is 10 lots of 10,000", () =>
      expect(lotOf(1, { ignoreContractSize: false }, contracts(100_000, 10_000))).to.equal(10));

    it('false: applies before the multiplier and the ratio', () => {
      expect(lotOf(1, { ignoreContractSize: false, multiplier: 2 }, contracts(100, 1_000))).to.equal(0.2);
      expect(lotOf(1, { ignoreContractSize: false, scaleType: 'BALANCE' }, { ...contracts(100, 1_000), slave: funds({ balance: 5_000 }) })).to.equal(0.05);
    });

    it('false: does not change a fixed lot', () =>
      expect(lotOf(1, { ignoreContractSize: false, scaleType: 'FIXED_LOT', fixedLotSize: 0.3 }, contracts(100, 1_000))).to.equal(0.3));

    it('false without contract sizes skips with SYMBOL_SPEC_INVALID', () =>
      expect(skipOf(1, { ignoreContractSize: false }, contracts(0, 1_000))).to.equal('SYMBOL_SPEC_INVALID'));
  });

  describe('zero or negative lots', () => {
    it('a multiplier of 0 skips with VOLUME_NOT_POSITIVE', () => expect(skipOf(1, { multiplier: 0 })).to.equal('VOLUME_NOT_POSITIVE'));

    it('a slave with a negative balance skips with VOLUME_NOT_POSITIVE even when forcing the minimum', () =>
      expect(skipOf(1, { scaleType: 'BALANCE', forceMinTrade: true }, { slave: funds({ balance: -50 }) })).to.equal('VOLUME_NOT_POSITIVE'));
  });

  describe('martingale', () => {
    it('doubles the lot after one loss', () => expect(lotOf(0.1, { martingaleStrategy: true }, { martingale: { consecutiveLosses: 1 } })).to.equal(0.2));

    it('doubles again after each further loss: 2 losses give 4x', () =>
      expect(lotOf(0.1, { martingaleStrategy: true }, { martingale: { consecutiveLosses: 2 } })).to.equal(0.4));

    it('keeps the plain lot when martingale is off, whatever the losses', () =>
      expect(lotOf(0.1, { martingaleStrategy: false }, { martingale: { consecutiveLosses: 3 } })).to.equal(0.1));

    it('is still capped by maxLotSize', () =>
      expect(lotOf(0.5, { martingaleStrategy: true, maxLotSize: 1.5 }, { martingale: { consecutiveLosses: 3 } })).to.equal(1.5));

    it('counts a loss, resets on a win and leaves a break-even close alone', () => {
      const afterTwoLosses = nextMartingaleState(nextMartingaleState(initialMartingaleState, -12.5), -3);
      expect(afterTwoLosses).to.deep.equal({ consecutiveLosses: 2 });
      expect(nextMartingaleState(afterTwoLosses, 0)).to.deep.equal({ consecutiveLosses: 2 });
      expect(nextMartingaleState(afterTwoLosses, 7.1)).to.deep.equal({ consecutiveLosses: 0 });
    });
  });

  describe('maxLotSize and the broker maximum', () => {
    it('reduces a lot above maxLotSize to it', () => {
      const result = sized(1, { multiplier: 2, maxLotSize: 0.5 });
      expect(result).to.deep.equal({ ok: true, volume: 0.5, calculated: 0.5, adjustments: ['CAPPED_AT_MAX_LOT_SIZE'] });
    });

    it('leaves a lot below maxLotSize alone', () => expect(lotOf(0.3, { maxLotSize: 0.5 })).to.equal(0.3));

    it('0 maxLotSize (the default) means no cap', () => expect(lotOf(7, { maxLotSize: 0 })).to.equal(7));

    it("caps at the slave broker's maximum lot", () => {
      const result = sized(150, {}, { slaveSymbol: symbolSpec({ maxLot: 100 }) });
      expect(result).to.deep.equal({ ok: true, volume: 100, calculated: 150, adjustments: ['CAPPED_AT_BROKER_MAXIMUM'] });
    });
  });

  describe('maximumLot (open lots of the copier)', () => {
    it('opens when the total reaches the maximum exactly', () => expect(lotOf(0.5, { maximumLot: 2 }, { openLots: 1.5 })).to.equal(0.5));

    it('skips with MAXIMUM_LOT_REACHED when the total would exceed it', () =>
      expect(skipOf(0.51, { maximumLot: 2 }, { openLots: 1.5 })).to.equal('MAXIMUM_LOT_REACHED'));

    it('adds open lots exactly: 0.1 + 0.2 open and 0.7 more fit in a maximum of 1', () =>
      expect(lotOf(0.7, { maximumLot: 1 }, { openLots: 0.1 + 0.2 })).to.equal(0.7));

    it('0 maximumLot (the default) means none', () => expect(lotOf(5, { maximumLot: 0 }, { openLots: 50 })).to.equal(5));
  });

  describe('rounding down to the lot step', () => {
    it('keeps 0.07 on a 0.01 step', () => expect(lotOf(0.07, {})).to.equal(0.07));

    it('keeps 0.57 and 1.13 on a 0.01 step (float division gives 56.999... and 112.999...)', () => {
      expect(lotOf(0.57, {})).to.equal(0.57);
      expect(lotOf(1.13, {})).to.equal(1.13);
    });

    it('0.1 + 0.2 on a 0.1 step is 0.3: drift neither creates nor loses a step', () =>
      expect(lotOf(0.1 + 0.2, {}, { slaveSymbol: symbolSpec({ lotStep: 0.1, minLot: 0.1 }) })).to.equal(0.3));

    it('0.7 + 0.1 on a 0.01 step is 0.8, not 0.79', () => expect(lotOf(0.7 + 0.1, {})).to.equal(0.8));

    it('0.1 x multiplier 3 on a 0.1 step is 0.3', () =>
      expect(lotOf(0.1, { multiplier: 3 }, { slaveSymbol: symbolSpec({ lotStep: 0.1, minLot: 0.1 }) })).to.equal(0.3));

    it('rounds down, never to nearest: 0.029 becomes 0.02', () => expect(lotOf(0.029, {})).to.equal(0.02));

    it('rounds a balance ratio down: 1 x 1/3 on a 0.01 step is 0.33', () =>
      expect(lotOf(1, { scaleType: 'BALANCE' }, { master: funds({ balance: 3_000 }), slave: funds({ balance: 1_000 }) })).to.equal(0.33));

    it('a ratio that lands on a step keeps it: 0.3 x 1,000 / 3,000 is 0.1, not 0.09 (a third rounded first would lose the step)', () =>
      expect(lotOf(0.3, { scaleType: 'BALANCE' }, { master: funds({ balance: 3_000 }), slave: funds({ balance: 1_000 }) })).to.equal(0.1));

    it('doubling after a ratio keeps the step too: 0.3 x 1,000 / 3,000 x 2 after a loss is 0.2', () =>
      expect(
        lotOf(
          0.3,
          { scaleType: 'EQUITY', martingaleStrategy: true },
          { master: funds({ equity: 3_000 }), slave: funds({ equity: 1_000 }), martingale: { consecutiveLosses: 1 } },
        ),
      ).to.equal(0.2));

    it('rounds to a coarse step: 0.35 on a 0.1 step is 0.3', () =>
      expect(lotOf(0.35, {}, { slaveSymbol: symbolSpec({ lotStep: 0.1, minLot: 0.1 }) })).to.equal(0.3));

    it('reports the lot before rounding as calculated', () => {
      const result = sized(1, { scaleType: 'BALANCE' }, { master: funds({ balance: 8_000 }), slave: funds({ balance: 1_000 }) });
      expect(result).to.deep.equal({ ok: true, volume: 0.12, calculated: 0.125, adjustments: [] });
    });

    it('skips with SYMBOL_SPEC_INVALID when the slave lot step is 0', () =>
      expect(skipOf(1, {}, { slaveSymbol: symbolSpec({ lotStep: 0 }) })).to.equal('SYMBOL_SPEC_INVALID'));
  });

  describe('minimum lot (forceMinTrade)', () => {
    it("without forceMinTrade skips with VOLUME_BELOW_MINIMUM below the slave's minimum", () =>
      expect(skipOf(0.004, { forceMinTrade: false })).to.equal('VOLUME_BELOW_MINIMUM'));

    it('without forceMinTrade skips a lot that rounds to 0 with VOLUME_BELOW_MINIMUM', () =>
      expect(skipOf(0.05, { forceMinTrade: false }, { slaveSymbol: symbolSpec({ minLot: 0.1, lotStep: 0.1 }) })).to.equal('VOLUME_BELOW_MINIMUM'));

    it('forceMinTrade (the reference default, true) raises it to the minimum: 0.005 becomes 0.01', () =>
      expect(sized(0.005, {})).to.deep.equal({ ok: true, volume: 0.01, calculated: 0.005, adjustments: ['RAISED_TO_MINIMUM'] }));

    it('forceMinTrade raises it to the minimum', () =>
      expect(sized(0.004, { forceMinTrade: true })).to.deep.equal({
        ok: true,
        volume: 0.01,
        calculated: 0.004,
        adjustments: ['RAISED_TO_MINIMUM'],
      }));

    it('forcing does not override a maxLotSize below the broker minimum', () =>
      expect(skipOf(0.02, { forceMinTrade: true, maxLotSize: 0.05 }, { slaveSymbol: symbolSpec({ minLot: 0.1 }) })).to.equal('VOLUME_BELOW_MINIMUM'));

    it('a raised lot still counts against maximumLot', () =>
      expect(skipOf(0.004, { forceMinTrade: true, maximumLot: 1 }, { openLots: 0.995 })).to.equal('MAXIMUM_LOT_REACHED'));
  });

  describe('minVolumeSafetySkipThresholdMultiplier (spec: CopierDTO)', () => {
    const forced = (threshold: number): Partial<CopierSettings> => ({
      forceMinTrade: true,
      minVolumeSafetySkipThresholdMultiplier: threshold,
    });
    const brokers = (slaveMin: number, masterMin: number): Partial<SizingContext> => ({
      slaveSymbol: symbolSpec({ minLot: slaveMin }),
      masterSymbol: symbolSpec({ minLot: masterMin }),
    });

    it('skips with MIN_VOLUME_SAFETY when slave min / calculated lot equals the threshold exactly', () =>
      expect(skipOf(0.05, forced(2), brokers(0.1, 0.01))).to.equal('MIN_VOLUME_SAFETY'));

    it('copies at the minimum when the ratio is just below the threshold', () => expect(lotOf(0.051, forced(2), brokers(0.1, 0.01))).to.equal(0.1));

    it('skips when the ratio is above the threshold', () => expect(skipOf(0.01, forced(2), brokers(0.1, 0.01))).to.equal('MIN_VOLUME_SAFETY'));

    it('compares exactly: 0.3 / 0.1 reaches a threshold of 3 (floats say 2.9999999999999996)', () =>
      expect(skipOf(0.1, forced(3), brokers(0.3, 0.01))).to.equal('MIN_VOLUME_SAFETY'));

    it('0 deactivates the check: a tenfold raise is copied', () => expect(lotOf(0.01, forced(0), brokers(0.1, 0.01))).to.equal(0.1));

    it('is not applied when both brokers have the same minimum lot', () => expect(lotOf(0.01, forced(2), brokers(0.1, 0.1))).to.equal(0.1));

    it("is not applied when the slave's minimum is below the master's", () => expect(lotOf(0.001, forced(2), brokers(0.01, 0.1))).to.equal(0.01));

    it('uses the lot before rounding: 0.004 against a minimum of 0.01 is a 2.5x raise', () => {
      expect(lotOf(0.004, forced(3), brokers(0.01, 0.001))).to.equal(0.01);
      expect(skipOf(0.004, forced(2.5), brokers(0.01, 0.001))).to.equal('MIN_VOLUME_SAFETY');
    });

    it('is not applied without forceMinTrade: the lot is skipped as below the minimum', () =>
      expect(skipOf(0.05, { forceMinTrade: false, minVolumeSafetySkipThresholdMultiplier: 2 }, brokers(0.1, 0.01))).to.equal('VOLUME_BELOW_MINIMUM'));

    it('is not applied when the lot needs no raise', () => expect(lotOf(0.2, forced(1.5), brokers(0.1, 0.01))).to.equal(0.2));

    it('says the raise factor and the threshold in its message', () => {
      const result = sized(0.05, forced(2), brokers(0.1, 0.01));
      expect(result).to.deep.include({ ok: false, reason: 'MIN_VOLUME_SAFETY' });
      expect(!result.ok && result.message).to.match(/multiply the lot by 2, at or above the safety threshold 2/);
    });
  });
});
