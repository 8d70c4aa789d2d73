// The templates read model (spec "Account templates"): every live template with its current revision,
// every stored revision with its payload, and the accounts linked to a template with the revision they
// were made to match and when. A deleted template leaves all three (its events stay for the audit).
import { sql } from 'kysely';
import { templateEventTypes, type TemplateEvent } from '../../domain/template/events.js';
import type { Projection } from '../projection.js';

export const templatesProjection: Projection = {
  name: 'templates',
  version: 1,
  handles: templateEventTypes,
  tables: ['templates', 'template_revisions', 'template_links'],
  async createTables(db, schema) {
    await sql`CREATE TABLE ${sql.id(schema, 'templates')} (
      id uuid PRIMARY KEY,
      project_id uuid NOT NULL,
      name text NOT NULL,
      description text,
      revision integer NOT NULL,
      source_account_id uuid,
      payload jsonb NOT NULL,
      created timestamptz NOT NULL,
      updated timestamptz NOT NULL)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'templates')} (project_id, created)`.execute(db);
    await sql`CREATE TABLE ${sql.id(schema, 'template_revisions')} (
      template_id uuid NOT NULL,
      project_id uuid NOT NULL,
      revision integer NOT NULL,
      name text NOT NULL,
      description text,
      source_account_id uuid,
      payload jsonb NOT NULL,
      created timestamptz NOT NULL,
      PRIMARY KEY (template_id, revision))`.execute(db);
    await sql`CREATE TABLE ${sql.id(schema, 'template_links')} (
      account_id uuid PRIMARY KEY,
      template_id uuid NOT NULL,
      project_id uuid NOT NULL,
      applied_revision integer NOT NULL,
      applied_at timestamptz NOT NULL)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'template_links')} (template_id)`.execute(db);
  },
  async apply(db, recorded) {
    const event = recorded as unknown as TemplateEvent;
    switch (event.type) {
      case 'TemplateCreated':
      case 'TemplateUpdated': {
        const d = event.data;
        const payload = JSON.stringify(d.payload);
        const current = { name: d.name, description: d.description, revision: d.revision, source_account_id: d.sourceAccountId, payload, updated: d.at };
        await db
          .insertInto('templates')
          .values({ id: d.templateId, project_id: d.projectId, ...current, created: d.at })
          .onConflict((oc) => oc.column('id').doUpdateSet(current))
          .execute();
        await db
          .insertInto('template_revisions')
          .values({
            template_id: d.templateId,
            project_id: d.projectId,
            revision: d.revision,
            name: d.name,
            description: d.description,
            source_account_id: d.sourceAccountId,
            payload,
            created: d.at,
          })
          .onConflict((oc) => oc.columns(['template_id', 'revision']).doNothing())
          .execute();
        return;
      }
      case 'TemplateApplied': {
        const d = event.data;
        const link = { template_id: d.templateId, project_id: d.projectId, applied_revision: d.revision, applied_at: d.at };
        // An account follows one template at a time: applying another moves the link.
        await db
          .insertInto('template_links')
          .values({ account_id: d.accountId, ...link })
          .onConflict((oc) => oc.column('account_id').doUpdateSet(link))
          .execute();
        return;
      }
      case 'TemplateUnlinked':
        await db.deleteFrom('template_links').where('account_id', '=', event.data.accountId).where('template_id', '=', event.data.templateId).execute();
        return;
      case 'TemplateDeleted': {
        const { templateId } = event.data;
        await db.deleteFrom('template_links').where('template_id', '=', templateId).execute();
        await db.deleteFrom('template_revisions').where('template_id', '=', templateId).execute();
        await db.deleteFrom('templates').where('id', '=', templateId).execute();
        return;
      }
    }
  },
};
