// Every copier-scope feature, in the order the engine applies them (rules.ts): filters before sizing,
// caps after money management, time rules last.
import { accountCopyFeatures } from './accountScope.js';
import { copierFilter } from './copierFilter.js';
import { delayedExecution } from './delayedExecution.js';
import { maxLotSize } from './maxLotSize.js';
import { newsFilter } from './newsFilter.js';
import { newsProtection } from './newsProtection.js';
import { orderTypeFilter } from './orderTypeFilter.js';
import { type CopierFeature, erased } from './rules.js';
import { sizingFeatures } from './sizingFeatures.js';
import { timingFeatures } from './timingFeatures.js';
import { spreadFilter } from './spreadFilter.js';
import { tradeCooldown } from './tradeCooldown.js';
import { trailingStop } from './trailingStop.js';

export const copierFeatures: readonly CopierFeature<object>[] = [
  erased(copierFilter),
  erased(orderTypeFilter),
  erased(tradeCooldown),
  erased(spreadFilter),
  erased(newsFilter),
  ...timingFeatures,
  ...sizingFeatures,
  erased(maxLotSize),
  erased(delayedExecution),
  erased(trailingStop),
  // Account-scope features with copy rules, applied to every copier of the account (accountScope.ts).
  ...accountCopyFeatures,
  // Account scope: closes copies before calendar events and reopens them after (management ticks).
  erased(newsProtection),
];
