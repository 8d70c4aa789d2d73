// Events of a project's symbol mappings (stream `symbolMappings-<projectId>`, reference
// SymbolMappingDTO under /projects/{projectId}/symbolMappings). One stream per project, so the
// integer ids the reference gives mappings come from the stream itself: 1, 2, 3 ... in order.
import type { SymbolMappingRule } from './rule.js';

export type SymbolMappingEvent =
  | { type: 'SymbolMappingCreated'; data: { projectId: string; symbolMappingId: number; mapping: SymbolMappingRule; at: string } }
  | { type: 'SymbolMappingUpdated'; data: { projectId: string; symbolMappingId: number; mapping: SymbolMappingRule; at: string } }
  | { type: 'SymbolMappingDeleted'; data: { projectId: string; symbolMappingId: number; at: string } };

export type SymbolMappingEventType = SymbolMappingEvent['type'];

export const symbolMappingEventTypes: readonly SymbolMappingEventType[] = ['SymbolMappingCreated', 'SymbolMappingUpdated', 'SymbolMappingDeleted'];

export const SYMBOL_MAPPING_STREAM_PREFIX = 'symbolMappings-';
export const symbolMappingStream = (projectId: string): string => `${SYMBOL_MAPPING_STREAM_PREFIX}${projectId}`;
