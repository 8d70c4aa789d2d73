// The symbol mappings read model (reference SymbolMappingDTO under /projects/{projectId}/symbolMappings):
// every project's mappings, read by the API and by the copy engine's symbol resolution.
import { sql } from 'kysely';
import { symbolMappingEventTypes, type SymbolMappingEvent } from '../../domain/symbolMapping/events.js';
import type { Projection } from '../projection.js';

export const symbolMappingsProjection: Projection = {
  name: 'symbol_mappings',
  version: 1,
  handles: symbolMappingEventTypes,
  tables: ['symbol_mappings'],
  async createTables(db, schema) {
    await sql`CREATE TABLE ${sql.id(schema, 'symbol_mappings')} (
      project_id uuid NOT NULL,
      id integer NOT NULL,
      symbol_from text NOT NULL,
      symbol_to text NOT NULL,
      broker_from text NOT NULL,
      broker_to text NOT NULL,
      priority integer NOT NULL,
      created timestamptz NOT NULL,
      updated timestamptz NOT NULL,
      PRIMARY KEY (project_id, id))`.execute(db);
  },
  async apply(db, recorded) {
    const event = recorded as unknown as SymbolMappingEvent;
    switch (event.type) {
      case 'SymbolMappingCreated': {
        const { projectId, symbolMappingId, mapping, at } = event.data;
        await db
          .insertInto('symbol_mappings')
          .values({
            project_id: projectId,
            id: symbolMappingId,
            symbol_from: mapping.from,
            symbol_to: mapping.to,
            broker_from: mapping.brokerFrom,
            broker_to: mapping.brokerTo,
            priority: mapping.priority,
            created: at,
            updated: at,
          })
          .onConflict((oc) => oc.columns(['project_id', 'id']).doNothing())
          .execute();
        return;
      }
      case 'SymbolMappingUpdated': {
        const { projectId, symbolMappingId, mapping, at } = event.data;
        await db
          .updateTable('symbol_mappings')
          .set({
            symbol_from: mapping.from,
            symbol_to: mapping.to,
            broker_from: mapping.brokerFrom,
            broker_to: mapping.brokerTo,
            priority: mapping.priority,
            updated: at,
          })
          .where('project_id', '=', projectId)
          .where('id', '=', symbolMappingId)
          .execute();
        return;
      }
      case 'SymbolMappingDeleted':
        await db.deleteFrom('symbol_mappings').where('project_id', '=', event.data.projectId).where('id', '=', event.data.symbolMappingId).execute();
        return;
    }
  },
};
