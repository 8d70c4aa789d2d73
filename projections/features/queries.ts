// Queries of the features read model.
import type { Kysely } from 'kysely';
import type { FeatureSetting } from '../../domain/feature/events.js';
import type { ReadModels } from '../schema.js';

export interface FeatureRow {
  readonly id: string;
  readonly project_id: string;
  readonly type: string;
  readonly setting: FeatureSetting;
  readonly scope_kind: string;
  readonly account_id: string | null;
  readonly copier_id: string | null;
  readonly created: Date;
  readonly updated: Date;
}

export const copierFeatureRows = (db: Kysely<ReadModels>, projectId: string, copierId: string): Promise<FeatureRow[]> =>
  db
    .selectFrom('features')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('scope_kind', '=', 'copier')
    .where('copier_id', '=', copierId)
    .orderBy('created')
    .orderBy('id')
    .execute() as Promise<FeatureRow[]>;

export const accountFeatureRows = (db: Kysely<ReadModels>, projectId: string, accountId: string): Promise<FeatureRow[]> =>
  db
    .selectFrom('features')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('scope_kind', '=', 'account')
    .where('account_id', '=', accountId)
    .orderBy('created')
    .orderBy('id')
    .execute() as Promise<FeatureRow[]>;

/** The features of many copiers and accounts at once, for the engine; with projects, their features of `projectTypes`. */
export const featuresFor = async (
  db: Kysely<ReadModels>,
  copierIds: readonly string[],
  accountIds: readonly string[],
  projectIds: readonly string[] = [],
  projectTypes: readonly string[] = [],
): Promise<FeatureRow[]> => {
  const projects = projectIds.length > 0 && projectTypes.length > 0;
  if (copierIds.length === 0 && accountIds.length === 0 && !projects) return [];
  let q = db.selectFrom('features').selectAll();
  q = q.where((eb) =>
    eb.or([
      ...(copierIds.length ? [eb.and([eb('scope_kind', '=', 'copier'), eb('copier_id', 'in', [...copierIds])])] : []),
      ...(accountIds.length ? [eb.and([eb('scope_kind', '=', 'account'), eb('account_id', 'in', [...accountIds])])] : []),
      ...(projects ? [eb.and([eb('scope_kind', '=', 'project'), eb('project_id', 'in', [...projectIds]), eb('type', 'in', [...projectTypes])])] : []),
    ]),
  );
  return (await q.orderBy('created').orderBy('id').execute()) as FeatureRow[];
};

export const resetsOf = async (db: Kysely<ReadModels>, featureIds: readonly string[]): Promise<Map<string, Record<string, string>>> => {
  const out = new Map<string, Record<string, string>>();
  if (featureIds.length === 0) return out;
  const rows = await db
    .selectFrom('feature_resets')
    .selectAll()
    .where('feature_id', 'in', [...featureIds])
    .execute();
  for (const row of rows) {
    const resets = out.get(row.feature_id) ?? {};
    resets[row.key] = new Date(row.at).toISOString();
    out.set(row.feature_id, resets);
  }
  return out;
};

export const projectFeatureRows = (db: Kysely<ReadModels>, projectId: string): Promise<FeatureRow[]> =>
  db
    .selectFrom('features')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('scope_kind', '=', 'project')
    .orderBy('created')
    .orderBy('id')
    .execute() as Promise<FeatureRow[]>;

/** A copier feature of one of the account's copiers, by id. */
export const findCopierFeatureOfAccount = (db: Kysely<ReadModels>, projectId: string, accountId: string, featureId: string) =>
  db
    .selectFrom('features')
    .select(['id', 'copier_id', 'type'])
    .where('project_id', '=', projectId)
    .where('id', '=', featureId)
    .where('account_id', '=', accountId)
    .where('scope_kind', '=', 'copier')
    .executeTakeFirst();

/** An account feature of the account, by id. */
export const findAccountFeature = (db: Kysely<ReadModels>, projectId: string, accountId: string, featureId: string) =>
  db
    .selectFrom('features')
    .select(['id', 'type'])
    .where('project_id', '=', projectId)
    .where('scope_kind', '=', 'account')
    .where('account_id', '=', accountId)
    .where('id', '=', featureId)
    .executeTakeFirst();

/** The account's FeatureDataCollectorDTO members as stored; undefined without the feature. */
export const dataCollectorSettingOf = async (
  db: Kysely<ReadModels>,
  accountId: string,
): Promise<{ readonly activateDataCollector?: boolean; readonly normalizeValues?: boolean } | undefined> => {
  const row = await db
    .selectFrom('features')
    .select('setting')
    .where('scope_kind', '=', 'account')
    .where('account_id', '=', accountId)
    .where('type', '=', 'FeatureDataCollectorDTO')
    .executeTakeFirst();
  return row?.setting as { activateDataCollector?: boolean; normalizeValues?: boolean } | undefined;
};

/** Whether the account has FeatureDataCollectorDTO on (attached, and activateDataCollector not false). */
export const hasDataCollectorFeature = async (db: Kysely<ReadModels>, accountId: string): Promise<boolean> => {
  const setting = await dataCollectorSettingOf(db, accountId);
  return setting !== undefined && setting.activateDataCollector !== false;
};
