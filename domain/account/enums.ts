// Enumerations of the account area (spec: "Enumerations"). Platform names are neutral on purpose:
// the interface does not reproduce third-party names.

export interface AccountType {
  readonly id: number;
  readonly name: string;
  /** Spec: ids 1 and 2 are the two platform types with native pending-order expiry. */
  readonly supportsPendingExpiry: boolean;
  /**
   * PositionRequestDTO.relativeTpSl works on one platform type only (spec); ours is type 5, the ECN
   * desktop platform, whose API takes stops as distances from the entry.
   */
  readonly supportsRelativeTpSl: boolean;
}

export const RELATIVE_TP_SL_ACCOUNT_TYPE = 5;

const typeNames = [
  'FX terminal, classic',
  'FX terminal, current generation',
  'Web FX platform',
  'Broker web terminal',
  'ECN desktop platform',
  'Futures platform',
  'Broker REST platform',
  'Spread-betting platform',
  'Options platform',
  'Social trading platform',
  'Crypto spot exchange A',
  'Crypto derivatives exchange A',
  'Crypto derivatives exchange B',
  'Crypto spot exchange B',
  'Multi-asset broker API',
  'Prop-firm evaluation platform',
  'FIX gateway',
] as const;

export const accountTypes: readonly AccountType[] = typeNames.map((name, i) => ({
  id: i + 1,
  name,
  supportsPendingExpiry: i < 2,
  supportsRelativeTpSl: i + 1 === RELATIVE_TP_SL_ACCOUNT_TYPE,
}));

export const accountTypeOf = (id: number): AccountType | undefined => accountTypes.find((t) => t.id === id);

export interface Region {
  readonly id: number;
  readonly name: string;
}

export const regions: readonly Region[] = [
  { id: 1, name: 'New York' },
  { id: 2, name: 'London' },
  { id: 3, name: 'Singapore' },
  { id: 4, name: 'Berlin' },
];

export const AccountStatus = { New: 1, Active: 2, Stopped: 3, Deleted: 4 } as const;
export type AccountStatusId = (typeof AccountStatus)[keyof typeof AccountStatus];

export const accountStatuses: readonly { id: AccountStatusId; name: string }[] = [
  { id: 1, name: 'New' },
  { id: 2, name: 'Active' },
  { id: 3, name: 'Stopped' },
  { id: 4, name: 'Deleted' },
];

export const isAccountType = (id: number): boolean => accountTypes.some((t) => t.id === id);
export const isRegion = (id: number): boolean => regions.some((r) => r.id === id);

/** CurrencyTypeDTO: the reference's ids (1 USD, 2 EUR, 3 CHF). */
export const currencyTypes: readonly { id: number; name: string }[] = [
  { id: 1, name: 'USD' },
  { id: 2, name: 'EUR' },
  { id: 3, name: 'CHF' },
];

/** ProxyRegionDTO: the reference gives no ids; ours are the account regions'. */
export const proxyRegions: readonly Region[] = regions;
