// Queries of the templates read model.
import type { Kysely } from 'kysely';
import { AccountStatus } from '../../domain/account/enums.js';
import type { TemplatePayload } from '../../domain/template/payload.js';
import type { ReadModels } from '../schema.js';

export interface TemplateRow {
  readonly id: string;
  readonly project_id: string;
  readonly name: string;
  readonly description: string | null;
  readonly revision: number;
  readonly source_account_id: string | null;
  readonly payload: TemplatePayload;
  readonly created: Date;
  readonly updated: Date;
}

export interface TemplateRevisionRow {
  readonly template_id: string;
  readonly project_id: string;
  readonly revision: number;
  readonly name: string;
  readonly description: string | null;
  readonly source_account_id: string | null;
  readonly payload: TemplatePayload;
  readonly created: Date;
}

export interface TemplateLinkRow {
  readonly account_id: string;
  readonly template_id: string;
  readonly applied_revision: number;
  readonly applied_at: Date;
  readonly alias: string | null;
}

/** The project's templates, oldest first. */
export const projectTemplates = (db: Kysely<ReadModels>, projectId: string): Promise<TemplateRow[]> =>
  db.selectFrom('templates').selectAll().where('project_id', '=', projectId).orderBy('created').orderBy('id').execute() as Promise<TemplateRow[]>;

export const findTemplate = (db: Kysely<ReadModels>, projectId: string, templateId: string): Promise<TemplateRow | undefined> =>
  db.selectFrom('templates').selectAll().where('project_id', '=', projectId).where('id', '=', templateId).executeTakeFirst() as Promise<
    TemplateRow | undefined
  >;

/** Every stored revision of a template, newest first. */
export const templateRevisions = (db: Kysely<ReadModels>, projectId: string, templateId: string): Promise<TemplateRevisionRow[]> =>
  db
    .selectFrom('template_revisions')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('template_id', '=', templateId)
    .orderBy('revision', 'desc')
    .execute() as Promise<TemplateRevisionRow[]>;

export const findTemplateRevision = (db: Kysely<ReadModels>, projectId: string, templateId: string, revision: number) =>
  db
    .selectFrom('template_revisions')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('template_id', '=', templateId)
    .where('revision', '=', revision)
    .executeTakeFirst() as Promise<TemplateRevisionRow | undefined>;

/** The accounts (not deleted) that follow templates of the project: of one template, or all. */
export const templateLinks = (db: Kysely<ReadModels>, projectId: string, templateId?: string): Promise<TemplateLinkRow[]> => {
  let q = db
    .selectFrom('template_links as l')
    .innerJoin('accounts as a', 'a.id', 'l.account_id')
    .select(['l.account_id', 'l.template_id', 'l.applied_revision', 'l.applied_at', 'a.alias'])
    .where('l.project_id', '=', projectId)
    .where('a.account_status_id', '<>', AccountStatus.Deleted);
  if (templateId) q = q.where('l.template_id', '=', templateId);
  return q.orderBy('l.applied_at').orderBy('l.account_id').execute() as Promise<TemplateLinkRow[]>;
};

/** The template link of each of these accounts that has one (deleted accounts included). */
export const linksOfAccounts = async (db: Kysely<ReadModels>, projectId: string, accountIds: readonly string[]) => {
  if (accountIds.length === 0) return new Map<string, { template_id: string; applied_revision: number; applied_at: Date }>();
  const rows = await db
    .selectFrom('template_links')
    .select(['account_id', 'template_id', 'applied_revision', 'applied_at'])
    .where('project_id', '=', projectId)
    .where('account_id', 'in', [...accountIds])
    .execute();
  return new Map(rows.map((r) => [r.account_id, r]));
};

/** Linked accounts that are deleted since (they do not hold a template back from deletion). */
export const deletedLinkedAccounts = async (db: Kysely<ReadModels>, projectId: string, templateId: string): Promise<string[]> => {
  const rows = await db
    .selectFrom('template_links as l')
    .leftJoin('accounts as a', 'a.id', 'l.account_id')
    .select('l.account_id')
    .where('l.project_id', '=', projectId)
    .where('l.template_id', '=', templateId)
    .where((eb) => eb.or([eb('a.id', 'is', null), eb('a.account_status_id', '=', AccountStatus.Deleted)]))
    .execute();
  return rows.map((r) => r.account_id);
};

/** Of these account ids, those not in the project, and those deleted. */
export const missingAccounts = async (
  db: Kysely<ReadModels>,
  projectId: string,
  accountIds: readonly string[],
): Promise<Map<string, 'MASTER_DELETED' | 'MASTER_NOT_FOUND'>> => {
  const gone = new Map<string, 'MASTER_DELETED' | 'MASTER_NOT_FOUND'>();
  if (accountIds.length === 0) return gone;
  const rows = await db
    .selectFrom('accounts')
    .select(['id', 'account_status_id'])
    .where('project_id', '=', projectId)
    .where('id', 'in', [...accountIds])
    .execute();
  const found = new Map(rows.map((r) => [r.id, r.account_status_id]));
  for (const id of accountIds) {
    const status = found.get(id);
    if (status === undefined) gone.set(id, 'MASTER_NOT_FOUND');
    else if (status === AccountStatus.Deleted) gone.set(id, 'MASTER_DELETED');
  }
  return gone;
};
