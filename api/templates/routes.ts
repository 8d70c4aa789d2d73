// Account templates (spec "Account templates" and "Templates"; the reference has none of these operations):
//   GET, POST            /projects/{projectId}/templates
//   GET, PUT, DELETE     /projects/{projectId}/templates/{templateId}
//   GET                  /projects/{projectId}/templates/{templateId}/linkedAccounts
//   GET                  /projects/{projectId}/templates/{templateId}/revisions
//   GET                  /projects/{projectId}/templates/{templateId}/revisions/{revision}
//   PUT                  /accounts/{accountId}/appliedTemplate
// Each write is a use case of app/templates.ts on the template aggregate (domain/template), read back
// from the templates read model (projections/templates).
import { type Static, Type } from '@sinclair/typebox';
import { applyTemplate, compatibilityOfPayload, createTemplate, deleteTemplate, updateTemplate } from '../../app/templates.js';
import type { Services } from '../../app/services.js';
import {
  findTemplate,
  findTemplateRevision,
  projectTemplates,
  type TemplateRow,
  templateLinks,
  templateRevisions,
} from '../../projections/templates/queries.js';
import { AccountIdParams } from '../accounts/schemas.js';
import { ApiError } from '../errors.js';
import type { Caller, Routes } from '../route.js';
import { checkAccountScope } from '../shared/accounts.js';
import { checkProjectScope } from '../shared/projects.js';
import { ErrorDTO, errorResponses } from '../shared/schemas.js';
import { toLinkedAccountDTO, toRevisionDTO, toRevisionSummaryDTO, toTemplateDTO, toTemplateSummaryDTO, type TemplateView } from './dto.js';
import {
  AccountTemplateCreateDTO,
  AccountTemplateDTO,
  AccountTemplateRevisionDTO,
  AccountTemplateRevisionSummaryDTO,
  AccountTemplateSummaryDTO,
  AccountTemplateUpdateDTO,
  AppliedTemplateDTO,
  COMPATIBILITY_WORDS,
  LinkedAccountSummaryDTO,
  TemplateDeleteQuery,
  TemplateParams,
  TemplateRevisionParams,
  TemplatesParams,
} from './schemas.js';

const TAG = 'Account templates';

type Params = { projectId: string; templateId: string };

const templateNotFound = (templateId: string) => new ApiError(404, '[TEMPLATE_NOT_FOUND]', `template ${templateId} not found`);

const PAYLOAD_WORDS =
  "A template's payload is a configuration snapshot of an account: its copiers as the slave (each naming its master by account id, with its settings, its own symbol mappings and its features), its account-scope features, its risk limits (a copier-scoped one names its copier's master) and the account settings tradingDisabled, closeUnmanagedPositions, nativeMode and propFirm. Login, password, alias, type, region, proxies and labels are the account's own and are not part of it.";

export const templateRoutes = (routes: Routes, services: Services): void => {
  const scope = (caller: Caller, projectId: string) => checkProjectScope(caller, projectId, 'templates');
  const viewOf = async (row: TemplateRow): Promise<TemplateView> => ({
    row,
    compatibility: await compatibilityOfPayload(services, row.project_id, row.payload),
    links: await templateLinks(services.db, row.project_id, row.id),
  });
  const load = async (projectId: string, templateId: string) => {
    const row = await findTemplate(services.db, projectId, templateId);
    if (!row) throw templateNotFound(templateId);
    return row;
  };
  const conflict = (description: string) => ({ 409: { description, schema: ErrorDTO } });
  const one = { 200: { description: 'the template with its payload', schema: AccountTemplateDTO }, ...errorResponses(400, 401, 403, 404) };

  routes.add<{ projectId: string }, unknown, unknown>({
    method: 'get',
    path: '/projects/{projectId}/templates',
    tag: TAG,
    operationId: 'getTemplates',
    summary: "The project's templates, without payload",
    description: `Oldest first. ${COMPATIBILITY_WORDS} Needs a project-level key of this project.`,
    params: TemplatesParams,
    responses: { 200: { description: 'the templates', schema: Type.Array(AccountTemplateSummaryDTO) }, ...errorResponses(400, 401, 403, 404) },
    async handler({ params, caller }) {
      const rows = await projectTemplates(services.db, scope(caller, params.projectId));
      const body = [];
      for (const row of rows) body.push(toTemplateSummaryDTO(await viewOf(row)));
      return { body };
    },
  });

  routes.add<{ projectId: string }, unknown, Static<typeof AccountTemplateCreateDTO>>({
    method: 'post',
    path: '/projects/{projectId}/templates',
    tag: TAG,
    operationId: 'createTemplate',
    summary: 'Create a template from a configuration snapshot of an account',
    description: `The template's revision 1 is a snapshot of sourceAccountId's configuration now. ${PAYLOAD_WORDS} name 1 to 100 characters, description at most 2000 (400 [VALIDATION_FAILED]); sourceAccountId must be an account of the project (404 [ACCOUNT_NOT_FOUND]) that is not deleted (409 [ACCOUNT_DELETED]). Needs a project-level key of this project.`,
    params: TemplatesParams,
    body: AccountTemplateCreateDTO,
    bodyRequired: true,
    responses: { ...one, ...conflict('the source account was deleted ([ACCOUNT_DELETED])') },
    async handler({ params, caller, context, body }) {
      const projectId = scope(caller, params.projectId);
      const templateId = await createTemplate(services, {
        projectId,
        name: body.name,
        description: body.description ?? null,
        sourceAccountId: body.sourceAccountId,
        context,
      });
      return { body: toTemplateDTO(await viewOf(await load(projectId, templateId))) };
    },
  });

  routes.add<Params, unknown, unknown>({
    method: 'get',
    path: '/projects/{projectId}/templates/{templateId}',
    tag: TAG,
    operationId: 'getTemplate',
    summary: 'A template with the payload of its current revision',
    description: `${PAYLOAD_WORDS} ${COMPATIBILITY_WORDS}`,
    params: TemplateParams,
    responses: one,
    async handler({ params, caller }) {
      return { body: toTemplateDTO(await viewOf(await load(scope(caller, params.projectId), params.templateId))) };
    },
  });

  routes.add<Params, unknown, Static<typeof AccountTemplateUpdateDTO>>({
    method: 'put',
    path: '/projects/{projectId}/templates/{templateId}',
    tag: TAG,
    operationId: 'updateTemplate',
    summary: 'Change a template: a new revision',
    description:
      "expectedRevision is required (spec): the revision the change is based on. When it is not the template's current revision the answer is 409 [TEMPLATE_REVISION_MISMATCH] (the spec gives the status, this code is ours) and nothing is stored: read the template again and send the change based on its revision. name and description, when sent, replace the current ones; sourceAccountId, when sent, makes the payload a new snapshot of that account. The payload is not edited member by member: neither the spec nor the reference document defines the request's members beyond expectedRevision, so it changes only as a new snapshot (ours). A change stores the next revision (one more) with the whole payload; linked accounts keep their appliedRevision and are behind until the template is applied to them again. A request that changes nothing stores nothing and keeps the revision. Needs a project-level key of this project.",
    params: TemplateParams,
    body: AccountTemplateUpdateDTO,
    bodyRequired: true,
    responses: {
      ...one,
      ...conflict('expectedRevision is not the current revision ([TEMPLATE_REVISION_MISMATCH]), or the source account was deleted ([ACCOUNT_DELETED])'),
    },
    async handler({ params, caller, context, body }) {
      const projectId = scope(caller, params.projectId);
      await load(projectId, params.templateId);
      await updateTemplate(services, {
        projectId,
        templateId: params.templateId,
        expectedRevision: body.expectedRevision,
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(body.description !== undefined ? { description: body.description } : {}),
        ...(body.sourceAccountId !== undefined ? { sourceAccountId: body.sourceAccountId } : {}),
        context,
      });
      return { body: toTemplateDTO(await viewOf(await load(projectId, params.templateId))) };
    },
  });

  routes.add<Params, Static<typeof TemplateDeleteQuery>, unknown>({
    method: 'delete',
    path: '/projects/{projectId}/templates/{templateId}',
    tag: TAG,
    operationId: 'deleteTemplate',
    summary: 'Delete a template',
    description:
      'A template that accounts follow (linked accounts that are not deleted) is refused with 409 [TEMPLATE_HAS_LINKED_ACCOUNTS] unless force=true (spec): then every linked account is unlinked first (a TemplateUnlinked event each, reason TEMPLATE_DELETED, in the audit log), its three markers cleared; the accounts keep their configuration. The template and its revisions leave every answer; their events stay for the audit. Needs a project-level key of this project.',
    params: TemplateParams,
    query: TemplateDeleteQuery,
    responses: {
      200: { description: 'deleted' },
      ...errorResponses(400, 401, 403, 404),
      ...conflict('accounts follow the template and force is not true ([TEMPLATE_HAS_LINKED_ACCOUNTS])'),
    },
    async handler({ params, query, caller, context }) {
      const projectId = scope(caller, params.projectId);
      await load(projectId, params.templateId);
      await deleteTemplate(services, { projectId, templateId: params.templateId, force: query.force === true, context });
      return { status: 200 };
    },
  });

  routes.add<Params, unknown, unknown>({
    method: 'get',
    path: '/projects/{projectId}/templates/{templateId}/linkedAccounts',
    tag: TAG,
    operationId: 'getTemplateLinkedAccounts',
    summary: 'The accounts that follow the template',
    description:
      "Accounts (not deleted) the template was applied to, longest linked first, each with appliedRevision (the revision it was made to match), appliedAt and behind: true when appliedRevision is below the template's revision (spec 'Templates'). Applying the template again brings an account up to date. Needs a project-level key of this project.",
    params: TemplateParams,
    responses: { 200: { description: 'the linked accounts', schema: Type.Array(LinkedAccountSummaryDTO) }, ...errorResponses(400, 401, 403, 404) },
    async handler({ params, caller }) {
      const template = await load(scope(caller, params.projectId), params.templateId);
      return { body: (await templateLinks(services.db, template.project_id, template.id)).map((l) => toLinkedAccountDTO(l, template.revision)) };
    },
  });

  routes.add<Params, unknown, unknown>({
    method: 'get',
    path: '/projects/{projectId}/templates/{templateId}/revisions',
    tag: TAG,
    operationId: 'getTemplateRevisions',
    summary: "The template's revisions, newest first",
    description: 'Every stored revision without its payload, the current one first (spec). Needs a project-level key of this project.',
    params: TemplateParams,
    responses: { 200: { description: 'the revisions', schema: Type.Array(AccountTemplateRevisionSummaryDTO) }, ...errorResponses(400, 401, 403, 404) },
    async handler({ params, caller }) {
      const projectId = scope(caller, params.projectId);
      await load(projectId, params.templateId);
      return { body: (await templateRevisions(services.db, projectId, params.templateId)).map(toRevisionSummaryDTO) };
    },
  });

  routes.add<{ projectId: string; templateId: string; revision: number }, unknown, unknown>({
    method: 'get',
    path: '/projects/{projectId}/templates/{templateId}/revisions/{revision}',
    tag: TAG,
    operationId: 'getTemplateRevision',
    summary: 'One revision with its payload as stored',
    description: 'An unknown revision gives 404 [TEMPLATE_REVISION_NOT_FOUND]. Needs a project-level key of this project.',
    params: TemplateRevisionParams,
    responses: { 200: { description: 'the revision', schema: AccountTemplateRevisionDTO }, ...errorResponses(400, 401, 403, 404) },
    async handler({ params, caller }) {
      const projectId = scope(caller, params.projectId);
      await load(projectId, params.templateId);
      const row = await findTemplateRevision(services.db, projectId, params.templateId, params.revision);
      if (!row) throw new ApiError(404, '[TEMPLATE_REVISION_NOT_FOUND]', `template ${params.templateId} has no revision ${params.revision}`);
      return { body: toRevisionDTO(row) };
    },
  });

  routes.add<{ accountId: string }, unknown, Static<typeof AppliedTemplateDTO> | undefined>({
    method: 'put',
    path: '/accounts/{accountId}/appliedTemplate',
    tag: TAG,
    operationId: 'setAppliedTemplate',
    summary: 'Apply a template to an account, or clear the link',
    description: `With templateId: the account's copiers, features, risk limits and template settings are made to match the template's current revision (spec): copiers are matched by master (settings and symbol mappings changed where they differ, new ones created as POST .../copiers creates them, those of other masters deleted with their features and scoped limits); features of a copier or of the account are matched by type, in order (changed, added, removed); risk limits by scope and risk type, in order. Then the account is linked at that revision: the markers accountTemplate1 (the template id), appliedTemplateRevision and appliedTemplateMeta (in every AccountDTO: GET /accounts, GET /accounts/{accountId}, GET /accounts/configurationSummary) are set, and an account linked to another template is unlinked from it. The apply is ONE command: each copier, feature, risk limit, the account and the template decide their own step (their rules as their own endpoints apply them: a copier's master must exist and not close a cycle, a feature must fit its scope and its rules), everything is checked before anything is stored, and all events are stored together (one transaction), the TemplateApplied link last; a refused step stores nothing at all, and a change by another request to anything the apply decided on, between its reading and its storing, is a 409 [CONCURRENT_MODIFICATION] that stores nothing (apply again). The audit log shows the command's events under the request's correlation and request id (each event's metadata names the command, ApplyTemplate, and its id). Features keep their own state (a charting webhook's address, a maintenance window's recorded states) when changed; a charting webhook the apply adds gets its own new address (webhookId) at once. Applying to an account that already matches changes nothing but the link (appliedRevision, appliedAt). With templateId null or an empty body: the link is cleared (the three markers null) and the configuration stays as it is. Refused, changing nothing: an unknown template 404 [TEMPLATE_NOT_FOUND]; a deleted account 409 [ACCOUNT_DELETED]; a copier the template names that would close a cycle in the copy network 409 [COPIER_CYCLE]; a template whose active copiers copy from accounts that no longer exist 409 [TEMPLATE_REVIEW_NEEDED] (AUTO_MIGRATED templates apply without the inactive copiers their flags name); a template that copies from this very account 409 [TEMPLATE_NOT_APPLICABLE]. ${COMPATIBILITY_WORDS}`,
    params: AccountIdParams,
    body: AppliedTemplateDTO,
    responses: {
      204: { description: 'applied (or cleared)' },
      ...errorResponses(400, 401, 404),
      ...conflict(
        '[ACCOUNT_DELETED], [TEMPLATE_REVIEW_NEEDED], [TEMPLATE_NOT_APPLICABLE], [COPIER_CYCLE], or another request changed what the apply decided on ([CONCURRENT_MODIFICATION]); nothing is stored',
      ),
    },
    async handler({ params, caller, context, body }) {
      checkAccountScope(caller, params.accountId);
      await applyTemplate(services, { projectId: caller.projectId, accountId: params.accountId, templateId: body?.templateId ?? null, context });
      return { status: 204 };
    },
  });
};
