import { sql } from 'kysely';
import { apiKeyEventTypes, type ApiKeyEvent } from '../../domain/apiKey/events.js';
import type { Projection } from '../projection.js';

export const apiKeysProjection: Projection = {
  name: 'api_keys',
  version: 1,
  handles: apiKeyEventTypes,
  tables: ['api_keys'],
  async createTables(db, schema) {
    await sql`CREATE TABLE ${sql.id(schema, 'api_keys')} (
      id uuid PRIMARY KEY, project_id uuid NOT NULL, account_id uuid, level text NOT NULL,
      key_type text NOT NULL, name text NOT NULL, key_hash text NOT NULL UNIQUE, key_prefix text NOT NULL,
      expires_at timestamptz, revoked_at timestamptz, created timestamptz NOT NULL)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'api_keys')} (project_id)`.execute(db);
  },
  async apply(db, recorded) {
    const event = recorded as unknown as ApiKeyEvent;
    if (event.type === 'ApiKeyIssued') {
      const d = event.data;
      await db.insertInto('api_keys').values({
        id: d.apiKeyId, project_id: d.projectId, account_id: d.accountId, level: d.level, key_type: d.keyType,
        name: d.name, key_hash: d.keyHash, key_prefix: d.keyPrefix, expires_at: d.expiresAt, revoked_at: null,
        created: d.at,
      }).onConflict((oc) => oc.column('id').doNothing()).execute();
    }
  },
};
