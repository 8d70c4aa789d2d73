// Account-scope features without copy rules (spec "Feature DTOs", scope account) that this area
// defines: the maintenance window (carried out by engine/schedule/maintenanceWindows.ts) and the
// connection features that are configuration only on this service.
import type { FeatureDefinition } from '../feature/definition.js';
import { dedicatedIpFeature } from './dedicatedIp.js';
import { dedicatedIpPoolFeature } from './dedicatedIpPool.js';
import { hftModeFeature } from './hftMode.js';
import { maintenanceWindowFeature } from './maintenanceWindow.js';
import { myHomeIpFeature } from './myHomeIp.js';
import { socketFeature } from './socket.js';

const erased = <S extends object>(definition: FeatureDefinition<S>): FeatureDefinition<object> => definition as unknown as FeatureDefinition<object>;

export const accountFeatureDefinitions: readonly FeatureDefinition<object>[] = [
  erased(maintenanceWindowFeature),
  erased(hftModeFeature),
  erased(socketFeature),
  erased(dedicatedIpFeature),
  erased(dedicatedIpPoolFeature),
  erased(myHomeIpFeature),
];
