// The three applied-template markers of an account (spec AppliedTemplateDTO: accountTemplate1,
// appliedTemplateRevision, appliedTemplateMeta), from the accounts' links in the templates read model.
import { compatibilityOfPayload } from '../../app/templates.js';
import type { Services } from '../../app/services.js';
import { findTemplate } from '../../projections/templates/queries.js';

interface Link {
  readonly template_id: string;
  readonly applied_revision: number;
  readonly applied_at: Date;
}

export const appliedTemplateMarkers = async (services: Services, projectId: string, links: ReadonlyMap<string, Link>) => {
  const templates = new Map<string, { name: string; revision: number; compatibility: string } | null>();
  const markers = new Map<string, { accountTemplate1: string; appliedTemplateRevision: number; appliedTemplateMeta: unknown }>();
  for (const [accountId, link] of links) {
    if (!templates.has(link.template_id)) {
      const row = await findTemplate(services.db, projectId, link.template_id);
      templates.set(
        link.template_id,
        row ? { name: row.name, revision: row.revision, compatibility: (await compatibilityOfPayload(services, projectId, row.payload)).marker } : null,
      );
    }
    const template = templates.get(link.template_id);
    if (!template) continue;
    markers.set(accountId, {
      accountTemplate1: link.template_id,
      appliedTemplateRevision: link.applied_revision,
      appliedTemplateMeta: {
        templateName: template.name,
        appliedAt: new Date(link.applied_at).toISOString(),
        templateRevision: template.revision,
        behind: link.applied_revision < template.revision,
        compatibility: template.compatibility,
      },
    });
  }
  return markers;
};
