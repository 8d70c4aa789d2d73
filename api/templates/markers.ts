// The three applied-template markers of an account (spec AppliedTemplateDTO: accountTemplate1,
// appliedTemplateRevision, appliedTemplateMeta), answered by every AccountDTO (GET /accounts,
// GET /accounts/{accountId}, GET /accounts/configurationSummary). They come from the account's row as
// projections/accounts/withState.ts reads it (its link in the templates read model, the template's
// revision and name, and how many of its copiers name a master that is gone), so the kept answers of
// api/accounts/answers.ts change when the templates read model does: an apply, a clear, an update of
// the template, the deletion of a master.
import { markerOf } from '../../domain/template/compatibility.js';
import type { AppliedTemplateState } from '../../projections/accounts/withState.js';

export const NO_APPLIED_TEMPLATE = { accountTemplate1: null, appliedTemplateRevision: null, appliedTemplateMeta: null } as const;

export const appliedTemplateMarkers = (link: AppliedTemplateState | null) =>
  link === null
    ? NO_APPLIED_TEMPLATE
    : {
        accountTemplate1: link.template_id,
        appliedTemplateRevision: link.applied_revision,
        appliedTemplateMeta: {
          templateName: link.template_name,
          appliedAt: new Date(link.applied_at).toISOString(),
          templateRevision: link.template_revision,
          behind: link.applied_revision < link.template_revision,
          compatibility: markerOf(Number(link.gone_active), Number(link.gone_inactive)),
        },
      };
