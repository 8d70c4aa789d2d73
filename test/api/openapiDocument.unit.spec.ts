// The OpenAPI document is valid OpenAPI 3.1, and it is built from the very route declarations that serve.
import { Validator } from '@seriousme/openapi-schema-validator';
import { expect } from 'chai';
import { declareRoutes } from '../../api/app.js';
import { buildOpenApi } from '../../api/openapi.js';
import type { Services } from '../../app/services.js';

// Declaring routes touches no service; handlers are not called here.
const routes = declareRoutes({} as Services);
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- walking a JSON document
const doc = buildOpenApi(routes.specs, '1.2.6') as any;

describe('OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(doc);
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 2)).to.deep.equal([]);
    expect(result.valid).to.equal(true);
  });

  it('lists every declared route once, with a unique operation id', () => {
    const operations = Object.entries(doc.paths as Record<string, Record<string, { operationId: string }>>).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ path, method, id: op.operationId })),
    );
    expect(operations).to.have.length(routes.specs.length);
    expect(new Set(operations.map((o) => o.id)).size).to.equal(operations.length);
  });

  it('covers the account endpoints of the spec that need no trading, copiers or features', () => {
    const expected = [
      'get /accounts',
      'post /accounts',
      'get /accounts/{accountId}',
      'put /accounts/{accountId}',
      'delete /accounts/{accountId}',
      'post /accounts/{accountId}/actions/start',
      'post /accounts/{accountId}/actions/stop',
      'post /accounts/{accountId}/actions/reconnect',
      'get /accounts/{accountId}/auditLogs',
      'get /projects/{projectId}/auditLogs',
      'get /types/accountTypes',
      'get /types/regions',
      'get /types/accountStatuses',
      'get /types/currencyTypes',
      'get /types/proxyRegions',
      'get /types/notificationCategoryTypes',
      'get /projects/{projectId}/labels',
    ];
    const have = routes.specs.map((s) => `${s.method} ${s.path}`);
    expect(have).to.include.members(expected);
  });

  it('documents the error format and the API key scheme', () => {
    expect(doc.components.schemas.ErrorDTO.required).to.include.members(['error', 'message']);
    expect(doc.components.securitySchemes.ApiKeyAuth).to.deep.equal({ type: 'apiKey', in: 'header', name: 'X-API-KEY' });
    const accountDto = doc.components.schemas.AccountDTO;
    expect(Object.keys(accountDto.properties)).to.include.members(['id', 'created', 'type', 'region', 'status', 'loginAccountPassword', 'labels']);
    expect(Object.keys(accountDto.properties)).not.to.include.members(['accountTypeId', 'regionId', 'accountStatusId']);
    // An access policy may hide a member (null), so each is the enumeration object or null.
    expect(accountDto.properties.type.anyOf).to.deep.include({ $ref: '#/components/schemas/AccountTypeDTO' });
    expect(accountDto.properties.region.anyOf).to.deep.include({ $ref: '#/components/schemas/RegionDTO' });
    expect(accountDto.properties.status.anyOf).to.deep.include({ $ref: '#/components/schemas/AccountStatusDTO' });
  });
});
