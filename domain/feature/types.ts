// The feature types (FeatureTypeDTO): the integer id a client sends as `type: {id}` beside a feature's
// `setting`, and the feature DTO it names. The reference document (OpenAPI 1.2.5) gives one id in words
// ("1 for Telegram") and lists the feature DTOs in FeatureSettingDTO's `oneOf` with Telegram first: the
// ids follow that order, 1 to 37. The features the spec 1.2.6 adds on top, and ours, follow from 38 in
// the order they arrived. An id is never reused or renumbered.
//
// Types the service does not run yet (none today) would be listed, so a client can show them, and
// refused when attached.

export interface FeatureType {
  readonly id: number;
  /** The feature DTO's name ('FeatureCopierFilterDTO'): also FeatureTypeDTO.name on the wire. */
  readonly dto: string;
  /** The plan that includes it, where the spec names one (FeatureMarginCapDTO: PRO). */
  readonly planName?: string;
  /** Not run yet: the issue that brings it. Attaching one gives 400 [FEATURE_TYPE_NOT_SUPPORTED]. */
  readonly comesWithIssue?: number;
}

const REFERENCE_ORDER = [
  'FeatureTelegramNotificationDTO',
  'FeatureCopierFilterDTO',
  'FeatureKeepAliveTradeDTO',
  'FeaturePermittedSymbolsDTO',
  'FeatureDedicatedIpDTO',
  'FeatureDedicatedIpPoolDTO',
  'FeatureProgressiveTradeSizingDTO',
  'FeatureTpSlManagementDTO',
  'FeatureExitSignalOverrideDTO',
  'FeatureDailyProfitTargetDTO',
  'FeatureWeeklyProfitTargetDTO',
  'FeatureMonthlyProfitTargetDTO',
  'FeatureSignalProviderDTO',
  'FeatureSignalFollowerDTO',
  'FeatureFallbackSettingDTO',
  'FeatureMyHomeIpDTO',
  'FeatureMaxOpenPositionsDTO',
  'FeatureMaxLotSizeDTO',
  'FeatureMultiplierDTO',
  'FeatureMaximumLotDTO',
  'FeatureBreakEvenDTO',
  'FeatureTrailingStopDTO',
  'FeatureTradingWindowsDTO',
  'FeatureHftModeDTO',
  'FeatureSocketDTO',
  'FeatureApprovalDTO',
  'FeatureDelayedExecutionDTO',
  'FeatureMaintenanceWindowDTO',
  'FeatureWhiteLabelDTO',
  'FeatureMinimumHoldingTimeDTO',
  'FeatureSkipPositionDTO',
  'FeatureRiskPerTradeDTO',
  'FeatureLiveDelayDTO',
  'FeatureOrderTypeFilterDTO',
  'FeatureDataCollectorDTO',
  'FeatureMasanielloDTO',
  'FeatureTradeGuardrailsDTO',
] as const;

/** Spec 1.2.6 features the service runs, beyond the reference's list. */
const ADDED = [
  'FeatureTradeCooldownDTO',
  'FeatureSpreadFilterDTO',
  'FeatureScheduledCloseReopenDTO',
  'FeatureBlockHedgingDTO',
  'FeatureMartingaleStrategyDTO',
  'FeatureMarginCapDTO',
  'FeatureWebhookDTO',
  'FeatureOverallTargetDTO',
  'FeatureChartingWebhookDTO',
  'FeatureMessagingAccountDTO',
  'FeatureMessagingConnectorDTO',
  'FeatureNewsFilterDTO',
  'FeatureNewsProtectionDTO',
  'FeatureMessagingNotificationDTO',
  'FeatureTraderDTO',
  'FeatureInvestorDTO',
] as const;

const NOT_YET: Readonly<Record<string, number>> = {};

const PLANS: Readonly<Record<string, string>> = { FeatureMarginCapDTO: 'PRO' };

export const featureTypes: readonly FeatureType[] = [...REFERENCE_ORDER, ...ADDED].map((dto, i) => ({
  id: i + 1,
  dto,
  ...(PLANS[dto] ? { planName: PLANS[dto] } : {}),
  ...(NOT_YET[dto] ? { comesWithIssue: NOT_YET[dto] } : {}),
}));

const byId = new Map(featureTypes.map((t) => [t.id, t]));
const byDto = new Map(featureTypes.map((t) => [t.dto, t]));

export const featureTypeById = (id: number): FeatureType | undefined => byId.get(id);

/** The type of a feature DTO the catalogue runs; every one has an id. */
export const featureTypeOf = (dto: string): FeatureType => {
  const type = byDto.get(dto);
  if (!type) throw new Error(`feature ${dto} has no FeatureTypeDTO id: add it to domain/feature/types.ts`);
  return type;
};
