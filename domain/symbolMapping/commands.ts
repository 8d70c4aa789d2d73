import type { CommandMetadata } from '../shared/command.js';
import type { SymbolMappingRule } from './rule.js';

export type SymbolMappingCommand =
  | { type: 'CreateSymbolMapping'; data: { projectId: string; mapping: SymbolMappingRule }; metadata: CommandMetadata }
  | { type: 'UpdateSymbolMapping'; data: { projectId: string; symbolMappingId: number; mapping: SymbolMappingRule }; metadata: CommandMetadata }
  | { type: 'DeleteSymbolMapping'; data: { projectId: string; symbolMappingId: number }; metadata: CommandMetadata };
