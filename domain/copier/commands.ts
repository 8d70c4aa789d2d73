import type { CommandMetadata } from '../shared/command.js';
import type { CopierSignal, CopierStrategies } from './events.js';
import type { CopierSettings } from './settings.js';

interface Target {
  readonly copierId: string;
  readonly projectId: string;
  /** The slave account in the request path: a copier is reached only through its own account. */
  readonly toAccountId: string;
}

export type CopierCommand =
  | {
      type: 'CreateCopier';
      data: Target & { fromAccountId: string; settings: CopierSettings } & CopierStrategies & CopierSignal;
      metadata: CommandMetadata;
    }
  | { type: 'UpdateCopier'; data: Target & { changes: Partial<CopierSettings> }; metadata: CommandMetadata }
  | { type: 'ResyncCopier'; data: Target; metadata: CommandMetadata }
  /** Replaces the explicit symbol mappings (master symbol -> slave symbol). */
  | { type: 'SetSymbolMappings'; data: Target & { mappings: Readonly<Record<string, string>> }; metadata: CommandMetadata }
  | { type: 'DeleteCopier'; data: Target; metadata: CommandMetadata };
