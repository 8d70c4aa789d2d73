// GET /accounts/configurationSummary (spec "Accounts"): the accounts of GET /accounts with their
// configuration in one answer: copiers (as the slave), risk limits and account features. The
// collections are filled only here; every other AccountDTO leaves them out.
import { type Static, Type } from '@sinclair/typebox';
import { listAccounts } from '../../projections/accounts/queries.js';
import { listCopiers } from '../../projections/copiers/queries.js';
import { accountFeatureRows } from '../../projections/features/queries.js';
import { riskLimitsOf } from '../../projections/riskLimits/queries.js';
import { applyFieldAccess } from '../apiKeys/enforcement.js';
import { toCopierDTO } from '../copiers/dto.js';
import { CopierDTO } from '../copiers/schemas.js';
import { toFeatureDTO } from '../features/dto.js';
import type { Routes } from '../route.js';
import { toRiskLimitDTOs } from '../riskLimits/dto.js';
import type { Services } from '../../app/services.js';
import { errorResponses } from '../shared/schemas.js';
import { toAccountDTOs } from './dto.js';
import { AccountDTO, AccountQuery } from './schemas.js';

export const configurationSummaryRoutes = (routes: Routes, services: Services): void => {
  routes.add<unknown, Static<typeof AccountQuery>, unknown>({
    method: 'get',
    path: '/accounts/configurationSummary',
    tag: 'Accounts',
    operationId: 'accountConfigurationSummary',
    summary: 'The accounts with their copiers, risk limits and features',
    description:
      'The same accounts, filters and order as GET /accounts, each with `copiers` (its copiers as the slave, CopierDTO), `riskLimits` (RiskLimitDTO, with the hits in force now) and `features` (its account-scope features, FeatureDTO; the features of a copier are at .../copiers/{copierId}/features) filled in, and, as in every AccountDTO, the applied template (PUT /accounts/{accountId}/appliedTemplate): `accountTemplate1` (the template id), `appliedTemplateRevision` and `appliedTemplateMeta` (templateName, appliedAt, templateRevision: the current revision of the template, behind: appliedTemplateRevision below it, compatibility), all three null when the account follows no template. An account-level key sees only its own account.',
    query: AccountQuery,
    responses: { 200: { description: 'accounts with their configuration', schema: Type.Array(AccountDTO) }, ...errorResponses(400, 401) },
    async handler({ query, caller }) {
      const rows = await listAccounts(services.db, caller.projectId, { limit: 1000, ...query, onlyAccountId: caller.accountId });
      const accounts = await toAccountDTOs(services, caller.projectId, rows);
      const body = [];
      for (const account of accounts) {
        body.push({
          ...account,
          // Nested CopierDTOs are declared loosely in AccountDTO, so the key's field access is applied here.
          copiers: applyFieldAccess(
            caller.accessPolicy,
            Type.Array(CopierDTO),
            (await listCopiers(services.db, caller.projectId, account.id)).map(toCopierDTO),
          ),
          riskLimits: await toRiskLimitDTOs(services, await riskLimitsOf(services.db, caller.projectId, account.id)),
          features: (await accountFeatureRows(services.db, caller.projectId, account.id)).map(toFeatureDTO),
        });
      }
      return { body };
    },
  });
};
