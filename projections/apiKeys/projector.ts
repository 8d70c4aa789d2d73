// The api_keys read model: one row per key, as ApiKeyDTO shows it (never the value; its hash serves the
// lookup of every request). lastUsedAt is not here: it is usage, kept apart (api/apiKeys/usage.ts).
import { sql } from 'kysely';
import { apiKeyEventTypes, type ApiKeyEvent } from '../../domain/apiKey/events.js';
import type { Projection } from '../projection.js';

export const apiKeysProjection: Projection = {
  name: 'api_keys',
  version: 2,
  handles: apiKeyEventTypes,
  tables: ['api_keys'],
  async createTables(db, schema) {
    await sql`CREATE TABLE ${sql.id(schema, 'api_keys')} (
      id uuid PRIMARY KEY, project_id uuid NOT NULL, account_id uuid, level text NOT NULL,
      key_type text NOT NULL, name text NOT NULL, key_hash text NOT NULL UNIQUE, key_prefix text NOT NULL,
      expires_at timestamptz, revoked_at timestamptz, revoked_reason text, replaced_by uuid,
      access_policy jsonb, rotated_at timestamptz, created timestamptz NOT NULL, updated timestamptz NOT NULL)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'api_keys')} (project_id)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'api_keys')} (account_id)`.execute(db);
  },
  async apply(db, recorded) {
    const event = recorded as unknown as ApiKeyEvent;
    const update = (values: Record<string, unknown>) =>
      db.updateTable('api_keys').set({ ...values, updated: event.data.at }).where('id', '=', event.data.apiKeyId).execute();
    switch (event.type) {
      case 'ApiKeyIssued': {
        const d = event.data;
        await db.insertInto('api_keys').values({
          id: d.apiKeyId, project_id: d.projectId, account_id: d.accountId, level: d.level, key_type: d.keyType,
          name: d.name, key_hash: d.keyHash, key_prefix: d.keyPrefix, expires_at: d.expiresAt, revoked_at: null,
          revoked_reason: null, replaced_by: null, access_policy: null, rotated_at: null, created: d.at, updated: d.at,
        }).onConflict((oc) => oc.column('id').doNothing()).execute();
        return;
      }
      case 'ApiKeyRenamed':
        await update({ name: event.data.name });
        return;
      case 'ApiKeyExpiryChanged':
        await update({ expires_at: event.data.expiresAt });
        return;
      case 'ApiKeyTypeChanged':
        await update({ key_type: event.data.to });
        return;
      case 'ApiKeyRotated':
        await update({ key_hash: event.data.keyHash, key_prefix: event.data.keyPrefix, rotated_at: event.data.at });
        return;
      case 'ApiKeyRevoked':
        await update({ revoked_at: event.data.at, revoked_reason: event.data.reason, replaced_by: event.data.replacedBy });
        return;
      case 'ApiKeyAccessPolicySet':
        await update({ access_policy: JSON.stringify(event.data.accessPolicy) });
        return;
      case 'ApiKeyAccessPolicyRemoved':
        await update({ access_policy: null });
        return;
    }
  },
};
