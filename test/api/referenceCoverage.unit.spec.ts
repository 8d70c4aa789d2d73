// Issue 15: the reference OpenAPI document (1.2.5, ../shared/spec) is the wire contract. This spec
// measures how far our own document (built from the route declarations) is from it, and keeps score:
// it fails when the reference names an operation we do not route, or a response member we lack or
// type differently, unless that gap is listed below; and it fails when a listed gap is gone, so both
// lists only shrink. Route an operation or fix a member → delete its line here.
//
// Operations match by method and path under /rest/api/v1 (the reference writes the prefix into its
// paths, we into `servers`); path parameters match by position, not by name. Response members are
// compared for every 2xx status (test/support/reference.ts, compareSchemas): what the reference
// declares must be there with a type a client generated from the reference decodes; extra members of
// ours are fine.
import { expect } from 'chai';
import { declareRoutes } from '../../api/app.js';
import { buildOpenApi } from '../../api/openapi.js';
import type { Services } from '../../app/services.js';
import {
  API_BASE,
  compareSchemas,
  findOperation,
  loadReference,
  operationKey,
  operationsOf,
  referenceErrors,
  referenceExample,
  referenceRequestValidator,
  referenceResponseValidator,
  successResponses,
  type OpenApiDocument,
  type Operation,
} from '../support/reference.js';
import { KNOWN_SCHEMA_GAPS, NOT_YET_ROUTED } from '../support/referenceGaps.js';

// Declaring routes touches no service; handlers are not called here.
const ours = buildOpenApi(declareRoutes({} as Services).specs, '1.2.6') as unknown as OpenApiDocument;
const reference = loadReference();

// ---------------------------------------------------------------------------------------------

/** `GET /accounts/{accountId}`: how the lists above name an operation. */
const nameOf = (op: Operation): string => `${op.method.toUpperCase()} ${op.fullPath.slice(API_BASE.length)}`;
const keyOfName = (name: string): string => {
  const [method, path] = name.split(' ') as [string, string];
  return operationKey(method, API_BASE + path);
};

const referenceOperations = operationsOf(reference);
const ourOperations = new Map(operationsOf(ours).map((op) => [op.key, op]));
const notYetRouted = new Map(Object.entries(NOT_YET_ROUTED).map(([name, issue]) => [keyOfName(name), { name, issue }]));

/** Today's gaps of one shared operation: every 2xx status of the reference, compared with ours. */
const gapsOf = (refOp: Operation, ourOp: Operation): string[] => {
  const mine = new Map(successResponses(ourOp));
  return successResponses(refOp).flatMap(([status, schema]) =>
    mine.has(status) ? compareSchemas(reference, schema, ours, mine.get(status)).gaps : [`(status ${status}): missing`],
  );
};

describe('Reference wire format (OpenAPI 1.2.5) coverage', () => {
  it('reads both documents', () => {
    expect((reference as unknown as { info: { version: string } }).info.version).to.equal('1.2.5');
    expect(referenceOperations.length).to.be.greaterThan(100);
    expect(ourOperations.size).to.be.greaterThan(50);
  });

  it('names only operations of the reference in NOT_YET_ROUTED and KNOWN_SCHEMA_GAPS', () => {
    const known = new Set(referenceOperations.map((op) => op.key));
    const strangers = [...Object.keys(NOT_YET_ROUTED), ...Object.keys(KNOWN_SCHEMA_GAPS)].filter((name) => !known.has(keyOfName(name)));
    expect(strangers, 'not operations of the reference').to.deep.equal([]);
    const both = Object.keys(KNOWN_SCHEMA_GAPS).filter((name) => notYetRouted.has(keyOfName(name)));
    expect(both, 'listed as not routed and as routed with gaps').to.deep.equal([]);
  });

  it('routes every operation of the reference, but those NOT_YET_ROUTED', () => {
    const missing = referenceOperations.filter((op) => !ourOperations.has(op.key) && !notYetRouted.has(op.key)).map(nameOf);
    expect(missing, 'route them (or, for a later issue, list them in NOT_YET_ROUTED)').to.deep.equal([]);
  });

  it('routes none of NOT_YET_ROUTED: the list only shrinks', () => {
    const routed = [...notYetRouted].filter(([key]) => ourOperations.has(key)).map(([, { name }]) => name);
    expect(routed, 'routed now: delete them from NOT_YET_ROUTED').to.deep.equal([]);
  });

  describe('response members of the operations both documents declare', () => {
    const shared = referenceOperations.filter((op) => ourOperations.has(op.key));
    const today = new Map(shared.map((op) => [nameOf(op), gapsOf(op, ourOperations.get(op.key)!)]));

    it('has no gap KNOWN_SCHEMA_GAPS does not list', () => {
      const unlisted = [...today].flatMap(([name, gaps]) => gaps.filter((g) => !(KNOWN_SCHEMA_GAPS[name] ?? []).includes(g)).map((g) => `${name} → ${g}`));
      expect(unlisted, 'answer these as the reference declares them').to.deep.equal([]);
    });

    it('still has every gap KNOWN_SCHEMA_GAPS lists: the list only shrinks', () => {
      const fixed = Object.entries(KNOWN_SCHEMA_GAPS).flatMap(([name, gaps]) =>
        gaps.filter((g) => !(today.get(name) ?? []).includes(g)).map((g) => `${name} → ${g}`),
      );
      expect(fixed, 'fixed now: delete them from KNOWN_SCHEMA_GAPS').to.deep.equal([]);
    });
  });
});

describe('Validators against the reference document', () => {
  const accountId = '046b6c7f-0b8a-43b9-b35d-6489e6daee91';

  it('finds an operation by template with other parameter names, or by concrete path, with or without /rest/api/v1', () => {
    expect(findOperation(reference, 'put', '/projects/{p}/logs/{logId}/acknowledge')?.operation.operationId).to.equal('acknowledgeLog');
    expect(findOperation(reference, 'PUT', '/rest/api/v1/projects/p1/logs/acknowledgeAll')?.operation.operationId).to.equal('acknowledgeAllLogs');
    expect(findOperation(reference, 'post', `/accounts/activateAllCopiers`)?.operation.operationId).to.equal('activateAllCopiers');
    expect(findOperation(reference, 'get', `/accounts/${accountId}/riskLimits/7?x=1`)?.operation.operationId).to.equal('getRiskLimit');
    expect(findOperation(reference, 'get', '/accounts/{accountId}/symbols/EURUSD')).to.equal(undefined);
    expect(() => referenceResponseValidator('get', '/nowhere', 200)).to.throw(/no operation/);
    expect(() => referenceRequestValidator('get', '/accounts')).to.throw(/no request body/);
  });

  it('accepts the reference’s own AccountDTO example as an answer, alone and in a list, and refuses our old shape', () => {
    const example = referenceExample('AccountDTO') as Record<string, unknown>;
    const one = referenceResponseValidator('get', '/accounts/{accountId}', 200);
    expect(one(example), referenceErrors(one)).to.equal(true);
    const list = referenceResponseValidator('GET', '/rest/api/v1/accounts', '200');
    expect(list([example, example]), referenceErrors(list)).to.equal(true);
    // accountTypeId/regionId instead of type:{id}/region:{id}, and no (masked) password: refused.
    const { type: _t, region: _r, loginAccountPassword: _p, ...old } = example;
    expect(one({ ...old, accountTypeId: 1, regionId: 1 })).to.equal(false);
    expect(referenceErrors(one)).to.match(/loginAccountPassword|region|type/);
    expect(one({ ...example, type: { id: '6' } })).to.equal(false);
  });

  it('checks dates as the reference writes them', () => {
    const validate = referenceResponseValidator('get', '/accounts/{accountId}/logs', 200);
    const log = referenceExample('LogDTO') as Record<string, unknown>;
    expect(log.date).to.equal('2000-01-23 04:56:07+00:00');
    expect(validate([log]), referenceErrors(validate)).to.equal(true);
    expect(validate([{ ...log, date: '2026-01-23T04:56:07.123Z' }]), referenceErrors(validate)).to.equal(true);
    expect(validate([{ ...log, date: 'yesterday' }])).to.equal(false);
    expect(validate([{ ...log, id: 'c3a1' }])).to.equal(false);
  });

  it('accepts no body, and only no body, where the reference declares none', () => {
    const validate = referenceResponseValidator('delete', `/accounts/${accountId}/positions/12345`, 204);
    expect(validate(undefined)).to.equal(true);
    expect(validate('')).to.equal(true);
    expect(validate({ id: 1 })).to.equal(false);
    expect(() => referenceResponseValidator('delete', `/accounts/${accountId}/positions/12345`, 200)).to.throw(/no 200/);
  });

  it('validates a position request as the reference defines it: requestId required, magicNumber a string', () => {
    const validate = referenceRequestValidator('post', '/accounts/{accountId}/positions');
    const example = referenceExample('PositionRequestDTO') as Record<string, unknown>;
    expect(validate(example), referenceErrors(validate)).to.equal(true);
    const market = { symbol: 'EURUSD', orderType: 'Buy', volume: 0.1, openPrice: 0, stopLoss: 0, takeProfit: 0, requestId: 7 };
    expect(validate(market), referenceErrors(validate)).to.equal(true);
    const { requestId: _id, ...withoutRequestId } = market;
    expect(validate(withoutRequestId)).to.equal(false);
    expect(validate({ ...market, magicNumber: 42 })).to.equal(false);
    expect(validate({ ...market, requestId: 1000 })).to.equal(false);
    expect(validate({ ...market, orderType: 'BUY' })).to.equal(false);
  });

  it('validates a risk limit as a fraction: 0.05 is 5 %, 5 is refused', () => {
    const validate = referenceRequestValidator('post', `/rest/api/v1/accounts/${accountId}/riskLimits`);
    const example = referenceExample('RiskLimitDTO') as Record<string, unknown>;
    expect(validate(example), referenceErrors(validate)).to.equal(true);
    // Read-only members (id) are not required of a request.
    expect(validate({ riskLimit: 0.05, riskType: { id: 1 } }), referenceErrors(validate)).to.equal(true);
    expect(validate({ riskLimit: 5, riskType: { id: 1 } })).to.equal(false);
    expect(validate({ riskLimit: 0.05, riskTypeId: 1 })).to.equal(false);
    const answer = referenceResponseValidator('get', `/accounts/${accountId}/riskLimits`, 200);
    expect(answer([example]), referenceErrors(answer)).to.equal(true);
  });

  it('validates a feature with its polymorphic setting (any branch of the oneOf)', () => {
    const example = referenceExample('FeatureDTO') as Record<string, unknown>;
    const request = referenceRequestValidator('post', '/accounts/{accountId}/copiers/{copierId}/features');
    expect(request(example), referenceErrors(request)).to.equal(true);
    expect(request({ type: { id: 6 }, setting: { multiplier: 2 } }), referenceErrors(request)).to.equal(true);
    expect(request({ featureSetting: { type: 'FeatureMultiplierDTO' } })).to.equal(false);
    const answer = referenceResponseValidator('get', '/projects/{projectId}/features/{featureId}', 200);
    expect(answer(example), referenceErrors(answer)).to.equal(true);
    expect(answer({ ...example, setting: 'on' })).to.equal(false);
  });

  it('validates a copier answer with scaleType as an object', () => {
    const validate = referenceResponseValidator('get', '/accounts/{accountId}/copiers/{copierId}', 200);
    const example = referenceExample('CopierDTO') as Record<string, unknown>;
    expect(validate(example), referenceErrors(validate)).to.equal(true);
    expect(validate({ ...example, scaleType: 'MULTIPLIER' })).to.equal(false);
    expect(validate({ ...example, openRetry: 10 })).to.equal(false);
  });
});
