// Who is billed for a project (issue 23 "Invoices per customer per month"): the customer that owns it,
// billed once a month for all its projects, or, for a project without a customer, the project itself.
import type { InvoiceParty } from '../domain/invoice/events.js';
import { projectCustomers } from '../projections/customers/queries.js';
import type { Services } from './services.js';

export interface BillingParty {
  readonly party: InvoiceParty;
  /** Its projects among those asked about, sorted. */
  readonly projectIds: readonly string[];
  readonly customerEmail: string | null;
  /** The brand (FeatureWhiteLabelDTO id) the customer registered under. */
  readonly brandFeatureId: string | null;
}

/** Owners of projects, by project id (none: the project has no customer). */
export interface ProjectOwner {
  readonly customerId: string;
  readonly email: string;
  readonly brandFeatureId: string | null;
}

/** The customer model's project -> customer map (projections/customers), where it exists. */
export const ownersOf = async (services: Pick<Services, 'db'>, projectIds: readonly string[]): Promise<ReadonlyMap<string, ProjectOwner>> =>
  new Map(
    (await projectCustomers(services.db, projectIds)).map((c) => [
      c.projectId,
      { customerId: String(c.customerId), email: c.email, brandFeatureId: c.brandFeatureId },
    ]),
  );

/** The parties billed for `projectIds`: one per customer (its projects together), one per project without a customer. */
export const partiesOf = async (services: Pick<Services, 'db'>, projectIds: readonly string[]): Promise<BillingParty[]> => {
  const owners = await ownersOf(services, projectIds);
  const byCustomer = new Map<string, { owner: ProjectOwner; projectIds: string[] }>();
  const out: BillingParty[] = [];
  for (const projectId of [...projectIds].sort()) {
    const owner = owners.get(projectId);
    if (!owner) {
      out.push({ party: { kind: 'PROJECT', projectId }, projectIds: [projectId], customerEmail: null, brandFeatureId: null });
      continue;
    }
    const entry = byCustomer.get(owner.customerId) ?? { owner, projectIds: [] };
    entry.projectIds.push(projectId);
    byCustomer.set(owner.customerId, entry);
  }
  for (const [customerId, { owner, projectIds: ids }] of byCustomer) {
    out.push({ party: { kind: 'CUSTOMER', customerId }, projectIds: ids, customerEmail: owner.email, brandFeatureId: owner.brandFeatureId });
  }
  return out;
};
