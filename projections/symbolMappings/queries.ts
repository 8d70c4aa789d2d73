// Queries of the symbol mappings read model.
import type { Kysely } from 'kysely';
import { applicableMappings, type ProjectSymbolMapping } from '../../domain/symbolMapping/rule.js';
import type { ReadModels } from '../schema.js';

export interface SymbolMappingRow extends ProjectSymbolMapping {
  readonly projectId: string;
}

const columns = ['project_id', 'id', 'symbol_from', 'symbol_to', 'broker_from', 'broker_to', 'priority'] as const;

const rowOf = (r: {
  project_id: string;
  id: number;
  symbol_from: string;
  symbol_to: string;
  broker_from: string;
  broker_to: string;
  priority: number;
}): SymbolMappingRow => ({
  projectId: r.project_id,
  id: r.id,
  from: r.symbol_from,
  to: r.symbol_to,
  brokerFrom: r.broker_from,
  brokerTo: r.broker_to,
  priority: r.priority,
});

/** The project's mappings, oldest first (the order they are tried in is applicableMappings'). */
export const projectSymbolMappings = async (db: Kysely<ReadModels>, projectId: string): Promise<SymbolMappingRow[]> =>
  (await db.selectFrom('symbol_mappings').select(columns).where('project_id', '=', projectId).orderBy('id').execute()).map(rowOf);

export const findSymbolMapping = async (db: Kysely<ReadModels>, projectId: string, symbolMappingId: number): Promise<SymbolMappingRow | undefined> => {
  const row = await db.selectFrom('symbol_mappings').select(columns).where('project_id', '=', projectId).where('id', '=', symbolMappingId).executeTakeFirst();
  return row ? rowOf(row) : undefined;
};

/** The project's mappings for trades from broker `brokerFrom` to broker `brokerTo` (loginServers), in the order they are tried. */
export const mappingsBetween = async (db: Kysely<ReadModels>, projectId: string, brokerFrom: string, brokerTo: string): Promise<SymbolMappingRow[]> =>
  applicableMappings(await projectSymbolMappings(db, projectId), brokerFrom, brokerTo);
