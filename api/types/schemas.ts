// The enumeration schemas of the account area as the reference (OpenAPI 1.2.5) names them: one schema
// per name, used by /types and by AccountDTO alike. A client sends `{ "id": 1 }`; the service answers
// `{ "id": 1, "name": "..." }`.
import { Type } from '@sinclair/typebox';
import { EnumObject } from '../shared/enumObjects.js';

const readOnlyFlag = (description: string) => Type.Optional(Type.Boolean({ readOnly: true, description }));

/** AccountTypeDTO, with two read-only extras of ours that GET /types/accountTypes answers. */
export const AccountTypeDTO = Type.Object(
  {
    id: Type.Integer({ minimum: -2147483648, maximum: 2147483647, description: 'platform type 1 to 17 (GET /types/accountTypes)' }),
    name: Type.Optional(Type.String({ readOnly: true, description: 'answered by the service; ignored when sent' })),
    supportsPendingExpiry: readOnlyFlag('ours (GET /types/accountTypes only): PositionRequestDTO.pendingExpirySeconds works (ids 1 and 2)'),
    supportsRelativeTpSl: readOnlyFlag('ours (GET /types/accountTypes only): PositionRequestDTO.relativeTpSl works (id 5 only)'),
  },
  {
    $id: 'AccountTypeDTO',
    description: 'The platform type of an account: send `{"id": n}`, n from 1 to 17 (GET /types/accountTypes); another id gives 404 [ACCOUNT_TYPE_NOT_FOUND].',
  },
);

export const RegionDTO = EnumObject(
  'RegionDTO',
  'The region an account is deployed in: send `{"id": n}`: 1 New York, 2 London, 3 Singapore, 4 Berlin (GET /types/regions); another id gives 404 [REGION_NOT_FOUND].',
);

export const AccountStatusDTO = EnumObject(
  'AccountStatusDTO',
  'Read-only: 1 New, 2 Active, 3 Stopped, 4 Deleted (GET /types/accountStatuses, ours). New -start-> Active; Stopped -start-> Active; New or Active -stop-> Stopped; any -delete-> Deleted (final). A client may send it back unchanged: it is ignored.',
);

export const CurrencyTypeDTO = EnumObject(
  'CurrencyTypeDTO',
  'Currency: send `{"id": n}`: 1 USD, 2 EUR, 3 CHF (the reference\'s ids; GET /types/currencyTypes).',
);

export const ProxyRegionDTO = EnumObject(
  'ProxyRegionDTO',
  'Read-only: the region of a proxy server. Ours: the same ids as the account regions (1 New York, 2 London, 3 Singapore, 4 Berlin; GET /types/proxyRegions); the reference gives no ids.',
);

export const NotificationCategoryTypeDTO = EnumObject('NotificationCategoryTypeDTO', 'A category of notifications (GET /types/notificationCategoryTypes).');
