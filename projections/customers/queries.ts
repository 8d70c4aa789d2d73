// Queries of the customers read model (projector.ts). Billing joins customers to projects through
// `customer_projects` (project_id → customer_id, brand_feature_id) or customerOfProject / projectCustomers.
import { type Kysely, sql } from 'kysely';
import { WHITE_LABEL } from '../../domain/whiteLabel/feature.js';
import type { ReadModels } from '../schema.js';
import type { BlockSummary, CustomerStatus } from './tables.js';

export interface CustomerRow {
  readonly customerId: number;
  readonly brandFeatureId: string;
  readonly brandProjectId: string;
  readonly email: string;
  readonly status: CustomerStatus;
  readonly created: Date;
  readonly lastSignIn: Date | null;
  readonly blockedAt: Date | null;
  readonly blockedReason: string | null;
  readonly blockJobId: string | null;
  readonly blockCompletedAt: Date | null;
  readonly blockSummary: BlockSummary | null;
  /** When the last block was lifted; null if never. */
  readonly unblockedAt: Date | null;
  /** false while the unblock job still starts the accounts the block stopped. */
  readonly unblockCompleted: boolean;
  /** The projects it owns, oldest first (deleted ones included: see liveProjectIds). */
  readonly projectIds: readonly string[];
  /** Those of projectIds that are not deleted. */
  readonly liveProjectIds: readonly string[];
}

const customerRows = (db: Kysely<ReadModels>) =>
  db
    .selectFrom('customers as c')
    .selectAll('c')
    .select([
      sql<
        string[]
      >`coalesce((SELECT array_agg(cp.project_id::text ORDER BY cp.created, cp.project_id) FROM customer_projects cp WHERE cp.customer_id = c.customer_id), '{}')`.as(
        'project_ids',
      ),
      sql<
        string[]
      >`coalesce((SELECT array_agg(cp.project_id::text ORDER BY cp.created, cp.project_id) FROM customer_projects cp JOIN projects p ON p.id = cp.project_id
        WHERE cp.customer_id = c.customer_id AND p.deleted IS NULL), '{}')`.as('live_project_ids'),
    ]);

type Raw = Awaited<ReturnType<ReturnType<typeof customerRows>['executeTakeFirstOrThrow']>>;

const toRow = (r: Raw): CustomerRow => ({
  customerId: r.customer_id,
  brandFeatureId: r.brand_feature_id,
  brandProjectId: r.brand_project_id,
  email: r.email,
  status: r.status,
  created: new Date(r.created),
  lastSignIn: r.last_sign_in ? new Date(r.last_sign_in) : null,
  blockedAt: r.blocked_at ? new Date(r.blocked_at) : null,
  blockedReason: r.blocked_reason,
  blockJobId: r.block_job_id,
  blockCompletedAt: r.block_completed_at ? new Date(r.block_completed_at) : null,
  blockSummary: r.block_summary,
  unblockedAt: r.unblocked_at ? new Date(r.unblocked_at) : null,
  unblockCompleted: r.unblock_job_id === null,
  projectIds: r.project_ids,
  liveProjectIds: r.live_project_ids,
});

/** The customers of a brand (its FeatureWhiteLabelDTO's id), in order of registration. */
export const customersOfBrand = async (db: Kysely<ReadModels>, brandFeatureId: string): Promise<CustomerRow[]> =>
  (await customerRows(db).where('c.brand_feature_id', '=', brandFeatureId).orderBy('c.customer_id').execute()).map(toRow);

export const customerById = async (db: Kysely<ReadModels>, customerId: number): Promise<CustomerRow | undefined> => {
  const row = await customerRows(db).where('c.customer_id', '=', customerId).executeTakeFirst();
  return row ? toRow(row) : undefined;
};

/** The customer with this (normalised) address under this brand. */
export const customerByEmail = async (db: Kysely<ReadModels>, brandFeatureId: string, email: string): Promise<CustomerRow | undefined> => {
  const row = await customerRows(db).where('c.brand_feature_id', '=', brandFeatureId).where('c.email', '=', email).executeTakeFirst();
  return row ? toRow(row) : undefined;
};

export interface ProjectCustomer {
  readonly projectId: string;
  readonly customerId: number;
  readonly brandFeatureId: string;
  readonly email: string;
  readonly status: CustomerStatus;
}

/** The customer owning a project; undefined for a project no customer owns (the operator's own). */
export const customerOfProject = async (db: Kysely<ReadModels>, projectId: string): Promise<ProjectCustomer | undefined> =>
  (await projectCustomers(db, [projectId]))[0];

/**
 * The white label a project trades under: its own (a brand's own project, the oldest if several), else that of
 * the brand whose customer owns it; undefined for an operator's project without one.
 */
export const brandFeatureOfProject = async (db: Kysely<ReadModels>, projectId: string): Promise<string | undefined> => {
  const own = await db
    .selectFrom('features')
    .select('id')
    .where('project_id', '=', projectId)
    .where('scope_kind', '=', 'project')
    .where('type', '=', WHITE_LABEL)
    .orderBy('created')
    .orderBy('id')
    .executeTakeFirst();
  return own ? own.id : (await customerOfProject(db, projectId))?.brandFeatureId;
};

/** The project → customer map for the projects given (all customer projects when none are given). */
export const projectCustomers = async (db: Kysely<ReadModels>, projectIds?: readonly string[]): Promise<ProjectCustomer[]> => {
  if (projectIds && projectIds.length === 0) return [];
  let q = db
    .selectFrom('customer_projects as cp')
    .innerJoin('customers as c', 'c.customer_id', 'cp.customer_id')
    .select(['cp.project_id', 'cp.customer_id', 'cp.brand_feature_id', 'c.email', 'c.status']);
  if (projectIds) q = q.where('cp.project_id', 'in', projectIds);
  const rows = await q.orderBy('cp.customer_id').orderBy('cp.created').execute();
  return rows.map((r) => ({ projectId: r.project_id, customerId: r.customer_id, brandFeatureId: r.brand_feature_id, email: r.email, status: r.status }));
};

/** The live session whose bearer token hashes to `tokenHash`, with its customer; undefined when none (or expired at `now`). */
export const sessionByTokenHash = async (db: Kysely<ReadModels>, tokenHash: string, now: Date) =>
  db
    .selectFrom('customer_sessions as s')
    .innerJoin('customers as c', 'c.customer_id', 's.customer_id')
    .select(['s.session_id', 's.customer_id', 's.expires_at', 'c.status', 'c.brand_feature_id', 'c.brand_project_id', 'c.email'])
    .where('s.token_hash', '=', tokenHash)
    .where('s.expires_at', '>', now)
    .executeTakeFirst();

/** Codes sent to this address under this brand since `since` (the sending limit). */
export const codesSentSince = async (db: Kysely<ReadModels>, brandFeatureId: string, email: string, since: Date): Promise<number> => {
  const row = await db
    .selectFrom('customer_codes')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('brand_feature_id', '=', brandFeatureId)
    .where('email', '=', email)
    .where('created', '>=', since)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
};

/** Whether the project's customer is blocked (ProjectDTO.blocked); false for a project no customer owns. */
export const projectBlocked = async (db: Kysely<ReadModels>, projectId: string): Promise<boolean> =>
  (await db.selectFrom('customer_projects').select('blocked').where('project_id', '=', projectId).executeTakeFirst())?.blocked ?? false;
