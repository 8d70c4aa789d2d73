// The settings of a copier (spec: CopierDTO). A copier lives under its slave account: it copies the
// trades of `fromAccountId` (the master) to the account it belongs to (the slave).

/**
 * How the slave's lot follows the master's:
 * - NONE: the master's lot, unchanged;
 * - MULTIPLIER: master lot x multiplier;
 * - FIXED_LOT: always fixedLotSize;
 * - BALANCE_RATIO: master lot x (slave balance / master balance) x multiplier;
 * - EQUITY_RATIO: master lot x (slave equity / master equity) x multiplier.
 * fixMasterBalanceAndEquity / fixSlaveBalanceAndEquity, when above 0, replace the live balance and
 * equity of that side in the ratios.
 */
export const scaleTypes = ['NONE', 'MULTIPLIER', 'FIXED_LOT', 'BALANCE_RATIO', 'EQUITY_RATIO'] as const;
export type ScaleType = (typeof scaleTypes)[number];

export interface CopierSettings {
  readonly active: boolean;
  readonly monitorOnly: boolean;
  readonly multiplier: number;
  readonly scaleType: ScaleType;
  readonly fixedLotSize: number | null;
  readonly fixMasterBalanceAndEquity: number;
  readonly fixSlaveBalanceAndEquity: number;
  /** A slave lot above it is reduced to it. null = no cap. */
  readonly maxLotSize: number | null;
  /** The slave's open lots of this copier may not exceed it: an open that would is skipped. null = none. */
  readonly maximumLot: number | null;
  /** After a copied position closes at a loss the next lot doubles; a win resets it. */
  readonly martingaleStrategy: boolean;
  /** Buy becomes sell and sell becomes buy; stop loss and take profit swap. */
  readonly reverse: boolean;
  /** When the copier is created or activated, the master's open positions are copied too. */
  readonly copyOpenPositions: boolean;
  /** A lot below the slave's minimum is raised to it (subject to minVolumeSafetySkipThresholdMultiplier) instead of skipped. */
  readonly forcePositionLotSize: boolean;
  /** Minutes during which a rejected open is resent every 30 seconds; 0 = no retry. */
  readonly openRetry: number;
  readonly hideComment: boolean;
  readonly customComment: string | null;
  readonly customMagicNumber: number | null;
  readonly copyMagicNumber: boolean;
  readonly copyOriginalComment: boolean;
  /** Balance and equity ratios compare raw numbers, without converting the two account currencies. */
  readonly ignoreCurrency: boolean;
  /** Spec rule, CopierDTO: 0 = deactivated. */
  readonly minVolumeSafetySkipThresholdMultiplier: number;
}

export const defaultCopierSettings: CopierSettings = {
  active: true,
  monitorOnly: false,
  multiplier: 1,
  scaleType: 'MULTIPLIER',
  fixedLotSize: null,
  fixMasterBalanceAndEquity: 0,
  fixSlaveBalanceAndEquity: 0,
  maxLotSize: null,
  maximumLot: null,
  martingaleStrategy: false,
  reverse: false,
  copyOpenPositions: false,
  forcePositionLotSize: false,
  openRetry: 0,
  hideComment: false,
  customComment: null,
  customMagicNumber: null,
  copyMagicNumber: true,
  copyOriginalComment: true,
  ignoreCurrency: false,
  minVolumeSafetySkipThresholdMultiplier: 0,
};
