import type { CommandMetadata } from '../shared/command.js';
import type { RiskLimitSettings } from './settings.js';

interface Target {
  readonly riskLimitId: string;
  readonly projectId: string;
  /** The account in the request path: a limit is reached only through its own account. */
  readonly accountId: string;
}

export type RiskLimitCommand =
  /** copierId: a limit scoped to one copier of the account (its existence checked before the command); null: the whole account. */
  | { type: 'CreateRiskLimit'; data: Target & { settings: RiskLimitSettings; copierId: string | null }; metadata: CommandMetadata }
  /** copierId: what the request sent (read-only after creation: it must be the limit's own); undefined: not sent. */
  | { type: 'UpdateRiskLimit'; data: Target & { settings: RiskLimitSettings; copierId?: string | null }; metadata: CommandMetadata }
  | { type: 'DeleteRiskLimit'; data: Target; metadata: CommandMetadata };
