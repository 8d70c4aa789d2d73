// The settings of a copier (reference: CopierDTO). A copier lives under its slave account: it copies the
// trades of `fromAccountId` (the master) to the account it belongs to (the slave). Member names,
// meanings and defaults are the reference's; where it is silent the choice is ours and documented in
// the route declarations (api/copiers/schemas.ts).

/**
 * How the slave's lot follows the master's (reference ScaleTypeDTO: 1 Balance, 2 Equity, 3 Fixed lot
 * size, 4 No scaling):
 * - BALANCE: master lot x (slave balance / master balance) x multiplier;
 * - EQUITY: master lot x (slave equity / master equity) x multiplier;
 * - FIXED_LOT: always fixedLotSize;
 * - NO_SCALING: master lot x multiplier (the master's lot itself at the default multiplier 1).
 * fixMasterBalanceAndEquity / fixSlaveBalanceAndEquity, when above 0, replace the live balance and
 * equity of that side in the ratios.
 */
export const SCALE_TYPES = [
  { id: 1, key: 'BALANCE', name: 'Balance' },
  { id: 2, key: 'EQUITY', name: 'Equity' },
  { id: 3, key: 'FIXED_LOT', name: 'Fixed lot size' },
  { id: 4, key: 'NO_SCALING', name: 'No scaling' },
] as const;
export type ScaleType = (typeof SCALE_TYPES)[number]['key'];

export const scaleTypeById = (id: number) => SCALE_TYPES.find((t) => t.id === id);
export const scaleTypeOf = (key: ScaleType) => SCALE_TYPES.find((t) => t.key === key)!;

export interface CopierSettings {
  readonly active: boolean;
  /** Manages the copies it holds (closes, modifications) but copies no new trade. */
  readonly monitorOnly: boolean;
  readonly multiplier: number;
  readonly scaleType: ScaleType;
  /** Lots, for FIXED_LOT. */
  readonly fixedLotSize: number;
  readonly fixMasterBalanceAndEquity: number;
  readonly fixSlaveBalanceAndEquity: number;
  /** A slave lot above it is reduced to it. 0 = no cap. */
  readonly maxLotSize: number;
  /** The slave's open lots of this copier may not exceed it: an open that would is skipped. 0 = none. */
  readonly maximumLot: number;
  /** After a copied position closes at a loss the next lot doubles; a win resets it. */
  readonly martingaleStrategy: boolean;
  /** Buy becomes sell and sell becomes buy; stop loss and take profit swap. */
  readonly reverse: boolean;
  /** When the copier is created or activated, the master's open positions are copied too. */
  readonly copyOpenPositions: boolean;
  /** A lot below the slave's minimum is raised to it (subject to minVolumeSafetySkipThresholdMultiplier) instead of skipped. */
  readonly forceMinTrade: boolean;
  /** A lot above the broker's maximum for the symbol is placed as several trades instead of capped. */
  readonly forcePositionLotSize: boolean;
  /** A refused open is resent every 30 seconds for openRetryTimeoutInMinutes. */
  readonly openRetry: boolean;
  /** With openRetry: minutes of resending; 0 = as long as the master holds the position. */
  readonly openRetryTimeoutInMinutes: number;
  /** The master's stop loss is copied (and its changes); false: the copy has none from the master. */
  readonly copyStopLoss: boolean;
  /** The master's take profit is copied (and its changes); false: the copy has none from the master. */
  readonly copyTakeProfit: boolean;
  /** The master's pending orders are not copied; a pending order that fills is copied as a position. */
  readonly skipPendingOrders: boolean;
  /** Points a market copy's price may be away from the master's open price; 0 = deactivated. */
  readonly maxSlippage: number;
  /** Positions of this copier open on the slave at most; 0 = deactivated. */
  readonly maxOpenPositions: number;
  /** false: the lot is scaled by the master's contract size / the slave's, so both hold the same units. */
  readonly ignoreContractSize: boolean;
  readonly hideComment: boolean;
  readonly customComment: string | null;
  /** Not 0 (the reference refuses it); null = none. */
  readonly customMagicNumber: number | null;
  readonly copyMagicNumber: boolean;
  readonly copyOriginalComment: boolean;
  /** Balance and equity ratios compare raw numbers, without converting the two account currencies. */
  readonly ignoreCurrency: boolean;
  /** Spec rule, CopierDTO: 0 = deactivated. */
  readonly minVolumeSafetySkipThresholdMultiplier: number;
}

/** The reference's defaults; scaleType (no default there) keeps ours: the master's lot x multiplier. */
export const defaultCopierSettings: CopierSettings = {
  active: true,
  monitorOnly: false,
  multiplier: 1,
  scaleType: 'NO_SCALING',
  fixedLotSize: 0.01,
  fixMasterBalanceAndEquity: 0,
  fixSlaveBalanceAndEquity: 0,
  maxLotSize: 0,
  maximumLot: 0,
  martingaleStrategy: false,
  reverse: false,
  copyOpenPositions: false,
  forceMinTrade: true,
  forcePositionLotSize: false,
  openRetry: false,
  openRetryTimeoutInMinutes: 10,
  copyStopLoss: true,
  copyTakeProfit: true,
  skipPendingOrders: true,
  maxSlippage: 0,
  maxOpenPositions: 0,
  ignoreContractSize: true,
  hideComment: false,
  customComment: null,
  customMagicNumber: null,
  copyMagicNumber: false,
  copyOriginalComment: false,
  ignoreCurrency: false,
  minVolumeSafetySkipThresholdMultiplier: 0,
};
