// The slave's lot for one master open (reference: CopierDTO; meanings: domain/copier/settings.ts).
//
// Order of the steps, each on exact decimals (domain/shared/decimal.ts):
//   1. scale the master lot by scaleType (multiplier, fixed lot, balance or equity ratio), and unless
//      ignoreContractSize by the master's contract size / the slave's,
//   2. martingale doubling; a ratio divides by the master's funds after both, so the lot is one
//      quotient rounded down (domain/shared/decimal.ts),
//   3. a result of 0 or less is skipped,
//   4. maxLotSize (0 = off) caps the calculated lot,
//   5. round DOWN to the slave's lot step, then cap at the broker's maximum (forcePositionLotSize: at
//      MAX_SPLIT_PARTS maximum lots, placed as several orders by split.ts),
//   6. below the slave's minimum: with forceMinTrade (default) raise it to the minimum unless the
//      spec's minVolumeSafetySkipThresholdMultiplier rule skips it; without, skip,
//   7. maximumLot (0 = off): skip when the copier's open lots plus this one would exceed it.
// An approval's volume override (ApprovalDTO.volume: a person chose the lots) replaces steps 1 and 2
// only: the copier's caps and the broker's limits (steps 4 to 7) apply to it as to a calculated lot.
import type { CopierSettings } from '../copier/settings.js';
import { type Decimal, exact, show, toNumber } from '../shared/decimal.js';
import { martingaleFactor } from './martingale.js';
import { plainVolume } from './plainSizing.js';
import { floorToStep, unusableSpec } from './rounding.js';
import { largestSplit } from './split.js';
import type { AccountFunds, Lots, MartingaleState, Skip, SkipReason, SymbolSpec } from './types.js';

export interface SizingContext {
  readonly master: AccountFunds;
  readonly slave: AccountFunds;
  /** One unit of the slave's currency in the master's currency; see MarketData. */
  readonly slaveToMasterRate: number | null;
  readonly masterSymbol: SymbolSpec;
  readonly slaveSymbol: SymbolSpec;
  /** Lots of this copier's open copies on the slave, positions and pending orders alike. */
  readonly openLots: Lots;
  readonly martingale: MartingaleState;
  /** The lots a person chose when approving the open (ApprovalDTO.volume), in place of steps 1 and 2; absent or null: none. */
  readonly volumeOverride?: Lots | null;
}

export type VolumeAdjustment = 'CAPPED_AT_MAX_LOT_SIZE' | 'CAPPED_AT_BROKER_MAXIMUM' | 'RAISED_TO_MINIMUM';

export type SizedVolume =
  | {
      readonly ok: true;
      /** What the slave trades: a whole number of lot steps within the broker's limits. */
      readonly volume: Lots;
      /** The lot the settings asked for, after maxLotSize and before broker rounding and limits. */
      readonly calculated: Lots;
      readonly adjustments: readonly VolumeAdjustment[];
    }
  | ({ readonly ok: false } & Skip);

type Step<T> = { readonly ok: true; readonly value: T } | ({ readonly ok: false } & Skip);

const skip = (reason: SkipReason, message: string): { readonly ok: false } & Skip => ({ ok: false, reason, message });
const ok = <T>(value: T): Step<T> => ({ ok: true, value });

const sameCurrency = (a: string, b: string): boolean => a.trim().toUpperCase() === b.trim().toUpperCase();

/** BALANCE / EQUITY: master lot x (slave funds / master funds) x multiplier x factor. */
const ratioLot = (member: 'balance' | 'equity', masterLot: Decimal, factor: Decimal, copier: CopierSettings, context: SizingContext): Step<Decimal> => {
  // settings.ts: a fixed amount above 0 replaces that side's live balance and equity. It is in that
  // account's currency, so it is converted like the live figure.
  const masterFunds = exact(copier.fixMasterBalanceAndEquity > 0 ? copier.fixMasterBalanceAndEquity : context.master[member]);
  let slaveFunds = exact(copier.fixSlaveBalanceAndEquity > 0 ? copier.fixSlaveBalanceAndEquity : context.slave[member]);
  if (masterFunds.lessThanOrEqualTo(0)) return skip('MASTER_FUNDS_NOT_POSITIVE', `the master's ${member} is ${show(masterFunds)}: no ratio can be formed`);
  if (!copier.ignoreCurrency && !sameCurrency(context.master.currency, context.slave.currency)) {
    const rate = context.slaveToMasterRate;
    if (rate === null || !Number.isFinite(rate) || rate <= 0)
      return skip('CURRENCY_RATE_MISSING', `no ${context.slave.currency}/${context.master.currency} rate to compare the two accounts' ${member}`);
    slaveFunds = slaveFunds.times(exact(rate));
  }
  // The one division comes last: its rounding cannot move the lot across a step (decimal.ts).
  return ok(masterLot.times(slaveFunds).times(exact(copier.multiplier)).times(factor).dividedBy(masterFunds));
};

/**
 * ignoreContractSize false: the master's lot in the slave's lots of the same units (a master lot of
 * 100,000 units is 1,000 slave lots of 100). True (the reference's default): a lot is a lot.
 */
const contractLot = (masterLot: Lots, copier: CopierSettings, context: SizingContext): Step<Decimal> => {
  const master = exact(masterLot);
  if (copier.ignoreContractSize) return ok(master);
  const from = context.masterSymbol.contractSize;
  const to = context.slaveSymbol.contractSize;
  if (!(from > 0) || !(to > 0)) return skip('SYMBOL_SPEC_INVALID', `no contract sizes to compare (master ${from}, slave ${to}); ignoreContractSize is false`);
  return ok(master.times(exact(from)).dividedBy(exact(to)));
};

/** Steps 1 and 2: the lot the scale type asks for, times the martingale factor. */
const scaledLot = (masterLot: Lots, factor: Decimal, copier: CopierSettings, context: SizingContext): Step<Decimal> => {
  if (copier.scaleType === 'FIXED_LOT') {
    return copier.fixedLotSize > 0
      ? ok(exact(copier.fixedLotSize).times(factor))
      : skip('FIXED_LOT_SIZE_MISSING', 'scale type Fixed lot size without a fixedLotSize above 0');
  }
  const units = contractLot(masterLot, copier, context);
  if (!units.ok) return units;
  const master = units.value;
  switch (copier.scaleType) {
    case 'NO_SCALING':
      return ok(master.times(exact(copier.multiplier)).times(factor));
    case 'BALANCE':
      return ratioLot('balance', master, factor, copier, context);
    case 'EQUITY':
      return ratioLot('equity', master, factor, copier, context);
    default: {
      const unhandled: never = copier.scaleType;
      throw new Error(`unhandled scale type ${String(unhandled)}`);
    }
  }
};

/**
 * Spec, CopierDTO, minVolumeSafetySkipThresholdMultiplier: applies only when forcing raises the
 * calculated lot to the slave's minimum and that minimum is greater than the master broker's minimum
 * for the symbol; skips when slave minimum / calculated lot >= the value; 0 = deactivated; equal
 * minimums: not applied. "Calculated" is the lot before broker rounding, so a lot that rounds to 0
 * still gives a finite ratio.
 */
export const minVolumeSafetySkips = (threshold: number, slaveMin: Decimal, masterMin: Decimal, calculated: Decimal): boolean =>
  threshold > 0 && slaveMin.greaterThan(masterMin) && slaveMin.dividedBy(calculated).greaterThanOrEqualTo(exact(threshold));

/** The slave's lot: on whole numbers when nothing is to be adjusted (plainSizing.ts), else on decimals. */
export const slaveVolume = (masterLot: Lots, copier: CopierSettings, context: SizingContext): SizedVolume => {
  const plain = (context.volumeOverride ?? null) === null ? plainVolume(masterLot, copier, context.slaveSymbol) : null;
  return plain ? { ok: true, volume: plain.volume, calculated: plain.calculated, adjustments: [] } : decimalVolume(masterLot, copier, context);
};

/** slaveVolume on exact decimals, every step (the head of this file). */
export const decimalVolume = (masterLot: Lots, copier: CopierSettings, context: SizingContext): SizedVolume => {
  const spec = context.slaveSymbol;
  const specProblem = unusableSpec(spec);
  if (specProblem !== null) return skip('SYMBOL_SPEC_INVALID', specProblem);
  const override = context.volumeOverride ?? null;
  const scaled: Step<Decimal> =
    override === null ? scaledLot(masterLot, martingaleFactor(copier.martingaleStrategy, context.martingale), copier, context) : ok(exact(override));
  if (!scaled.ok) return scaled;
  let calculated = scaled.value;
  if (!calculated.greaterThan(0)) return skip('VOLUME_NOT_POSITIVE', `the calculated lot is ${show(calculated)}: nothing to open`);

  const adjustments: VolumeAdjustment[] = [];
  // maxLotSize 0 = no cap.
  const maxLotSize = copier.maxLotSize > 0 ? exact(copier.maxLotSize) : null;
  if (maxLotSize && calculated.greaterThan(maxLotSize)) {
    calculated = maxLotSize;
    adjustments.push('CAPPED_AT_MAX_LOT_SIZE');
  }

  const step = exact(spec.lotStep);
  let volume = floorToStep(calculated, step);
  // A whole number of steps is above the broker's maximum exactly when it is above its last whole step.
  // forcePositionLotSize: more orders instead (split.ts), up to MAX_SPLIT_PARTS of them.
  const ceiling = copier.forcePositionLotSize ? largestSplit(spec) : exact(spec.maxLot);
  if (volume.greaterThan(ceiling)) {
    volume = floorToStep(ceiling, step);
    adjustments.push('CAPPED_AT_BROKER_MAXIMUM');
  }

  const slaveMin = exact(spec.minLot);
  if (volume.lessThan(slaveMin)) {
    const below = `${show(calculated)} lots is below the minimum ${show(slaveMin)} of ${spec.symbol}`;
    if (!copier.forceMinTrade) return skip('VOLUME_BELOW_MINIMUM', `${below} (forceMinTrade is off)`);
    const masterMin = exact(context.masterSymbol.minLot);
    if (minVolumeSafetySkips(copier.minVolumeSafetySkipThresholdMultiplier, slaveMin, masterMin, calculated))
      return skip(
        'MIN_VOLUME_SAFETY',
        `${below}; forcing it would multiply the lot by ${show(slaveMin.dividedBy(calculated))}, ` +
          `at or above the safety threshold ${copier.minVolumeSafetySkipThresholdMultiplier}`,
      );
    // A user's maxLotSize below the broker's minimum is not overridden by forcing.
    if (maxLotSize && slaveMin.greaterThan(maxLotSize)) return skip('VOLUME_BELOW_MINIMUM', `${below}; forcing it would exceed maxLotSize ${show(maxLotSize)}`);
    volume = slaveMin;
    adjustments.push('RAISED_TO_MINIMUM');
  }

  // maximumLot 0 = none.
  if (copier.maximumLot > 0) {
    const total = exact(context.openLots).plus(volume);
    if (total.greaterThan(exact(copier.maximumLot)))
      return skip(
        'MAXIMUM_LOT_REACHED',
        `opening ${show(volume)} lots would bring this copier's open lots to ${show(total)}, ` + `above its maximum ${copier.maximumLot}`,
      );
  }

  return { ok: true, volume: toNumber(volume), calculated: toNumber(calculated), adjustments };
};
