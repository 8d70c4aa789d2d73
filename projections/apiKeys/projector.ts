// The api_keys read model: one row per key, as ApiKeyDTO shows it (never the value; its hash serves the
// lookup of every request). lastUsedAt is not here: it is usage, kept apart (api/apiKeys/usage.ts).
import { sql } from 'kysely';
import { v5 as uuidv5 } from 'uuid';
import { apiKeyEventTypes, type ApiKeyEvent } from '../../domain/apiKey/events.js';
import { EVENT_ID_NAMESPACE } from '../../store/commandHandler.js';
import type { Projection } from '../projection.js';

type Issued = Extract<ApiKeyEvent, { type: 'ApiKeyIssued' }>['data'];

/** The name the bootstrap key was issued under, before and after issue 13. */
export const BOOTSTRAP_KEY_NAME = 'bootstrap key (BOOTSTRAP_API_KEY)';

/**
 * The prefix a key shows. Before issue 13 the bootstrap key's id was uuid v5 of its hash and its event
 * kept the operator's first seven characters; such a key shows no prefix either, like one issued since
 * (keyPrefix null), and so counts as the operator's key when BOOTSTRAP_API_KEY changes.
 */
const shownPrefix = (d: Issued): string | null =>
  d.name === BOOTSTRAP_KEY_NAME && d.apiKeyId === uuidv5(`apiKey:${d.keyHash}`, EVENT_ID_NAMESPACE) ? null : d.keyPrefix;

export const apiKeysProjection: Projection = {
  name: 'api_keys',
  // 3: key_prefix null for a value the operator chose (issue 13).
  // 4: numeric_id, the integer id the audit log's apiKeyId names (issue 15).
  version: 4,
  handles: apiKeyEventTypes,
  tables: ['api_keys'],
  async createTables(db, schema) {
    await sql`CREATE TABLE ${sql.id(schema, 'api_keys')} (
      id uuid PRIMARY KEY, project_id uuid NOT NULL, account_id uuid, level text NOT NULL,
      key_type text NOT NULL, name text NOT NULL, key_hash text NOT NULL UNIQUE, key_prefix text,
      expires_at timestamptz, revoked_at timestamptz, revoked_reason text, replaced_by uuid,
      access_policy jsonb, rotated_at timestamptz, created timestamptz NOT NULL, updated timestamptz NOT NULL,
      numeric_id bigint NOT NULL)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'api_keys')} (project_id)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'api_keys')} (account_id)`.execute(db);
  },
  async apply(db, recorded) {
    const event = recorded as unknown as ApiKeyEvent;
    const update = (values: Record<string, unknown>) =>
      db
        .updateTable('api_keys')
        .set({ ...values, updated: event.data.at })
        .where('id', '=', event.data.apiKeyId)
        .execute();
    switch (event.type) {
      case 'ApiKeyIssued': {
        const d = event.data;
        await db
          .insertInto('api_keys')
          .values({
            id: d.apiKeyId,
            project_id: d.projectId,
            account_id: d.accountId,
            level: d.level,
            key_type: d.keyType,
            name: d.name,
            key_hash: d.keyHash,
            key_prefix: shownPrefix(d),
            expires_at: d.expiresAt,
            revoked_at: null,
            revoked_reason: null,
            replaced_by: null,
            access_policy: null,
            rotated_at: null,
            created: d.at,
            updated: d.at,
            // The global position of the issuing event: unique, and the same after a rebuild.
            numeric_id: recorded.position.prepare.toString(),
          })
          .onConflict((oc) => oc.column('id').doNothing())
          .execute();
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
