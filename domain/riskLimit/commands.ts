import type { CommandMetadata } from '../shared/command.js';
import type { RiskLimitSettings } from './settings.js';

interface Target {
  readonly riskLimitId: string;
  readonly projectId: string;
  /** The account in the request path: a limit is reached only through its own account. */
  readonly accountId: string;
}

export type RiskLimitCommand =
  | { type: 'CreateRiskLimit'; data: Target & { settings: RiskLimitSettings }; metadata: CommandMetadata }
  | { type: 'UpdateRiskLimit'; data: Target & { settings: RiskLimitSettings }; metadata: CommandMetadata }
  | { type: 'DeleteRiskLimit'; data: Target; metadata: CommandMetadata };
