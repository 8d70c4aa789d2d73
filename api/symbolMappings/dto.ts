// SymbolMappingDTO from the symbol mappings read model and from a resolution in effect, and a
// mapping rule from a request; our CopierSymbolMappingDTO from the copiers read model.
import type { Static } from '@sinclair/typebox';
import type { SymbolMappingRule } from '../../domain/symbolMapping/rule.js';
import type { MappingInEffect } from '../../app/symbolMappings.js';
import type { SymbolMappingRow } from '../../projections/symbolMappings/queries.js';
import type { SymbolMappingWriteDTO } from './schemas.js';

/** A project mapping as the reference answers it (brokerToSuggestion is for the mappings in effect only). */
export const toSymbolMappingDTO = (row: SymbolMappingRow) => ({
  id: row.id,
  projectId: row.projectId,
  from: row.from,
  to: row.to,
  brokerFrom: row.brokerFrom,
  brokerTo: row.brokerTo,
  priority: row.priority,
  brokerToSuggestion: [] as string[],
});

/** The rule a POST or PUT sends; the read-only members (id, projectId, brokerToSuggestion) are ignored. */
export const fromSymbolMappingDTO = (body: Static<typeof SymbolMappingWriteDTO>): SymbolMappingRule => ({
  from: body.from,
  to: body.to,
  brokerFrom: body.brokerFrom,
  brokerTo: body.brokerTo,
  priority: body.priority,
});

/** Where a master symbol goes now, in the reference's shape with our masterSymbol, slaveSymbol and source beside it. */
export const toMappingInEffectDTO = (projectId: string, { masterSymbol, brokerFrom, brokerTo, resolution }: MappingInEffect) => ({
  ...(resolution.mapping ? { id: resolution.mapping.id, projectId } : {}),
  from: masterSymbol,
  to: resolution.symbol ?? '',
  brokerFrom,
  brokerTo,
  priority: resolution.mapping?.priority ?? 0,
  brokerToSuggestion: [...resolution.suggestions],
  masterSymbol,
  slaveSymbol: resolution.symbol,
  source: resolution.source,
});

/** The copier's explicit mappings, master symbol to slave symbol (PUT .../copiers/{copierId}/symbolMappings). */
export const explicitMappingsOf = (row: { readonly symbol_mappings: unknown }): Record<string, string> => (row.symbol_mappings ?? {}) as Record<string, string>;

export const toCopierSymbolMappingDTOs = (row: { readonly symbol_mappings: unknown }) =>
  Object.entries(explicitMappingsOf(row)).map(([masterSymbol, slaveSymbol]) => ({ masterSymbol, slaveSymbol, source: 'EXPLICIT' as const }));
