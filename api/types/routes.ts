// Enumerations as resources, in the reference's shapes (AccountTypeDTO, RegionDTO, CurrencyTypeDTO,
// ProxyRegionDTO, NotificationCategoryTypeDTO; our AccountStatusDTO list beside them).
import { type TSchema, Type } from '@sinclair/typebox';
import { accountStatuses, accountTypes, currencyTypes, proxyRegions, regions } from '../../domain/account/enums.js';
import { notificationCategoryTypes } from '../../domain/notification/enums.js';
import { logTypes } from '../../projections/accountLogs/logLine.js';
import { LogTypeDTO } from '../logs/schemas.js';
import type { Routes } from '../route.js';
import { errorResponses } from '../shared/schemas.js';
import { toFieldMetadataDTO } from '../apiKeys/dto.js';
import { FieldMetadataDTO } from '../apiKeys/schemas.js';
import { copierSettingFields } from './copierSettingFields.js';
import { toAccountStatusDTO, toAccountTypeDTO, toEnumDTO, toRegionDTO } from './dto.js';
import { AccountStatusDTO, AccountTypeDTO, CurrencyTypeDTO, NotificationCategoryTypeDTO, ProxyRegionDTO, RegionDTO } from './schemas.js';

export const typeRoutes = (routes: Routes): void => {
  const list = (path: string, operationId: string, summary: string, schema: TSchema, items: readonly object[], description?: string) =>
    routes.add({
      method: 'get',
      path,
      tag: 'Types',
      operationId,
      summary,
      ...(description ? { description } : {}),
      responses: { 200: { description: summary, schema: Type.Array(schema) }, ...errorResponses(401) },
      handler: async () => ({ body: items }),
    });
  list('/types/accountTypes', 'getAccountTypes', 'Account (platform) types 1 to 17', AccountTypeDTO, accountTypes.map(toAccountTypeDTO));
  list('/types/regions', 'getRegions', 'Regions 1 to 4', RegionDTO, regions.map(toRegionDTO));
  list('/types/accountStatuses', 'listAccountStatuses', 'Account statuses 1 to 4 (ours)', AccountStatusDTO, accountStatuses.map(toAccountStatusDTO));
  list('/types/currencyTypes', 'getCurrencyTypes', 'Currencies: 1 USD, 2 EUR, 3 CHF', CurrencyTypeDTO, currencyTypes.map(toEnumDTO));
  list(
    '/types/proxyRegions',
    'getProxyRegions',
    'Proxy regions 1 to 4',
    ProxyRegionDTO,
    proxyRegions.map(toEnumDTO),
    'The reference gives no ids: ours are the account regions (1 New York, 2 London, 3 Singapore, 4 Berlin).',
  );
  list(
    '/types/notificationCategoryTypes',
    'getNotificationCategoryTypes',
    'Notification categories 0 to 4',
    NotificationCategoryTypeDTO,
    notificationCategoryTypes.map(toEnumDTO),
    'Neither the reference nor the spec gives ids: ours are the categories of the account logs (LogDTO.category): 0 CONNECTION, 1 TRADING, 2 COPY, 3 BALANCE, 4 PROTECTION.',
  );
  list(
    '/types/copierSettings/availableFields',
    'getCopierSettingsAvailableFields',
    'Copier settings a signal provider may let followers override',
    FieldMetadataDTO,
    copierSettingFields().map(toFieldMetadataDTO),
    "The names FeatureSignalProviderDTO.allowedOverrideFields takes, as the reference's FieldMetadataDTO (fieldName, fieldType, dtoClassName CopierDTO, description; `entry` is the access-policy entry of the same member). Ours, where both documents are silent: the list is generated from the schema PUT /accounts/{accountId}/copiers/{copierId} validates with, so it always holds exactly the copier's settings: every writable member but fromAccountId, fromStrategyId and toStrategyId (which master or strategy a copier follows is not a setting to override). fieldType is the member's JSON type as our document declares it (the reference answers Java class names). Any key may read it.",
  );
  list(
    '/types/logTypes',
    'getLogTypes',
    'Log types 1 to 3 (the logTypeId of the log queries)',
    LogTypeDTO,
    logTypes.map(toEnumDTO),
    'LogDTO.logType is the name.',
  );
};
