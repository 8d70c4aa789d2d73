// Enumerations as resources (RegionDTO, AccountTypeDTO; the status list alongside them).
import { Type } from '@sinclair/typebox';
import { accountStatuses, accountTypes, regions } from '../../domain/account/enums.js';
import type { Routes } from '../route.js';
import { errorResponses } from '../shared/schemas.js';
import { toAccountStatusDTO, toAccountTypeDTO, toRegionDTO } from './dto.js';

const AccountTypeDTO = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    supportsPendingExpiry: Type.Boolean({ description: 'PositionRequestDTO.pendingExpirySeconds works (ids 1 and 2)' }),
    supportsRelativeTpSl: Type.Boolean({ description: 'PositionRequestDTO.relativeTpSl works (id 5 only)' }),
  },
  { $id: 'AccountTypeDTO', additionalProperties: false },
);
const RegionDTO = Type.Object({ id: Type.Integer(), name: Type.String() }, { $id: 'RegionDTO', additionalProperties: false });
const AccountStatusDTO = Type.Object({ id: Type.Integer(), name: Type.String() }, { $id: 'AccountStatusDTO', additionalProperties: false });

export const typeRoutes = (routes: Routes): void => {
  const list = (path: string, operationId: string, summary: string, schema: typeof RegionDTO | typeof AccountTypeDTO, items: readonly object[]) =>
    routes.add({
      method: 'get',
      path,
      tag: 'Types',
      operationId,
      summary,
      responses: { 200: { description: summary, schema: Type.Array(schema) }, ...errorResponses(401) },
      handler: async () => ({ body: items }),
    });
  list('/types/accountTypes', 'listAccountTypes', 'Account (platform) types 1 to 17', AccountTypeDTO, accountTypes.map(toAccountTypeDTO));
  list('/types/regions', 'listRegions', 'Regions 1 to 4', RegionDTO, regions.map(toRegionDTO));
  list('/types/accountStatuses', 'listAccountStatuses', 'Account statuses 1 to 4', AccountStatusDTO, accountStatuses.map(toAccountStatusDTO));
};
