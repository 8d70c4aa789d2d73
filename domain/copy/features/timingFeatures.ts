// Copier features that filter, time and manage copies: FeatureMaxOpenPositionsDTO,
// FeaturePermittedSymbolsDTO, FeatureSkipPositionDTO, FeatureBlockHedgingDTO, FeatureLiveDelayDTO,
// FeatureMinimumHoldingTimeDTO, FeatureExitSignalOverrideDTO, FeatureTpSlManagementDTO,
// FeatureBreakEvenDTO, FeatureKeepAliveTradeDTO, FeatureScheduledCloseReopenDTO. In the order the
// engine applies them: what refuses a trade for what it is (symbol, magic number, comment) before what
// refuses it for the moment (a scheduled pause, a hedge, a throttle); the stops after the filters; the
// live delay after them: it counts the master's orders whatever the filters say, so a trade they refuse
// shows their reason. For closes, the exit override before the minimum holding time, so an
// ignored close is not first held back. The keep-alive trade is the slave's own, no copy (rules.ts
// standaloneTradeId).
import { blockHedging } from './blockHedging.js';
import { breakEven } from './breakEven.js';
import { exitSignalOverride } from './exitSignalOverride.js';
import { keepAliveTrade } from './keepAliveTrade.js';
import { liveDelay } from './liveDelay.js';
import { maxOpenPositions } from './maxOpenPositions.js';
import { minimumHoldingTime } from './minimumHoldingTime.js';
import { permittedSymbols } from './permittedSymbols.js';
import { type CopierFeature, erased } from './rules.js';
import { scheduledCloseReopen } from './scheduledCloseReopen.js';
import { skipPosition } from './skipPosition.js';
import { tpSlManagement } from './tpSlManagement.js';

export const timingFeatures: readonly CopierFeature<object>[] = [
  erased(permittedSymbols),
  erased(skipPosition),
  erased(scheduledCloseReopen),
  erased(blockHedging),
  erased(maxOpenPositions),
  erased(tpSlManagement),
  erased(liveDelay),
  erased(exitSignalOverride),
  erased(minimumHoldingTime),
  erased(breakEven),
  erased(keepAliveTrade),
];
