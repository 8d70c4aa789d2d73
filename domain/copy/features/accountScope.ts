// Account-scope features with copy rules (spec "Feature DTOs", scope account), applied to every copier
// of the slave account after the copier features: the trading windows refuse opens for the time, the
// risk per trade sizes last among the lot rules (the caps still reduce its lot: they are
// adjustVolume hooks), and the approval asks a person after every other rule has let the open through.
import { approval } from './approval.js';
import { riskPerTrade } from './riskPerTrade.js';
import { type CopierFeature, erased } from './rules.js';
import { tradingWindows } from './tradingWindows.js';

export const accountCopyFeatures: readonly CopierFeature<object>[] = [erased(tradingWindows), erased(riskPerTrade), erased(approval)];
