// Hostile input and secrets end to end (issue 13, items 8, 9, 13 and 14): deeply nested JSON, polymorphic
// members of the wrong type, a webhook secret in the audit log, and an Idempotency-Key reused for
// another request. Every refused request answers in the spec's error format and appends no event.
import { expect } from 'chai';
import { DEFAULT_PROJECT_ID } from '../../domain/project/decider.js';
import { auditLogsProjection } from '../../projections/auditLogs/projector.js';
import { rebuildProjection } from '../../projections/rebuild.js';
import { positionToString } from '../../store/port.js';
import { type TestResponse, type TestService, startTestService, validAccount } from '../support/service.js';
import { featureBody, modifyRequest, positionRequest, startedAccount } from '../support/trading.js';

const SECRET = 'whsec_hostile_0123456789abcdef';
const TOKEN = 'bearer-token-0123456789';
const MASK = '********';

const expectError = (res: TestResponse, status: number, code: string): void => {
  expect(res.status, JSON.stringify(res.body)).to.equal(status);
  expect(Object.keys(res.body).filter((k) => k !== 'details')).to.have.members(['error', 'message']);
  expect(res.body.error).to.equal(code);
  expect(res.body.message).to.be.a('string').and.not.equal('');
};

/** `[[[...0...]]]`, `depth` arrays deep. */
const nestedArrays = (depth: number): string => `${'['.repeat(depth)}0${']'.repeat(depth)}`;
/** `{"a":{"a":...{}}}`, `depth` objects deep. */
const nestedObjects = (depth: number): string => `${'{"a":'.repeat(depth - 1)}{}${'}'.repeat(depth - 1)}`;

const webhook = (authentication: unknown, url = 'http://127.0.0.1:9/hook') =>
  featureBody({ type: 'FeatureWebhookDTO', url, events: ['POSITION_OPENED'], authentication });

describe('hostile input and secrets (issue 13)', function () {
  this.timeout(60_000);
  let t: TestService;
  let accountId: string;
  let masterId: string;
  let copierId: string;

  const head = async (): Promise<string> => {
    const position = await t.service.services.store.headPosition();
    return position ? positionToString(position) : 'empty';
  };

  /** Runs `when` and checks that the event store's head did not move: nothing was stored. */
  const expectNothingStored = async (when: () => Promise<void>): Promise<void> => {
    const before = await head();
    await when();
    expect(await head()).to.equal(before);
  };

  before(async () => {
    // ALLOW_PRIVATE_OUTBOUND: webhooks to 127.0.0.1:9, where nothing listens (deliveries only fail).
    t = await startTestService({ env: { ALLOW_PRIVATE_OUTBOUND: 'true' } });
    accountId = (await t.call('POST', '/accounts', { body: validAccount({ alias: 'Target' }) })).body.id;
    masterId = (await t.call('POST', '/accounts', { body: validAccount({ alias: 'Master', loginAccountNumber: '5009999' }) })).body.id;
    const copier = await t.call('POST', `/accounts/${accountId}/copiers`, { body: { fromAccountId: masterId } });
    expect(copier.status, JSON.stringify(copier.body)).to.equal(200);
    copierId = copier.body.id;
  });
  after(() => t?.stop());

  describe('item 8: deeply nested JSON', () => {
    it('10,000 nested arrays or objects give 400 [JSON_TOO_DEEP] on every endpoint with a body (was a 500: RangeError in the text check)', async () => {
      const writes: [string, string][] = [
        ['POST', '/accounts'],
        ['PUT', `/accounts/${accountId}`],
        ['POST', `/accounts/${accountId}/copiers`],
        ['PUT', `/accounts/${accountId}/copiers/${copierId}`],
        ['POST', `/accounts/${accountId}/features`],
        ['POST', `/accounts/${accountId}/copiers/${copierId}/features`],
        ['POST', `/projects/${DEFAULT_PROJECT_ID}/features`],
        ['POST', `/accounts/${accountId}/positions`],
      ];
      await expectNothingStored(async () => {
        for (const [method, route] of writes) {
          expectError(await t.call(method, route, { rawBody: nestedArrays(10_000) }), 400, '[JSON_TOO_DEEP]');
          expectError(await t.call(method, route, { rawBody: nestedObjects(10_000) }), 400, '[JSON_TOO_DEEP]');
          expectError(await t.call(method, route, { rawBody: `{"alias":${nestedArrays(10_000)}}` }), 400, '[JSON_TOO_DEEP]');
        }
      });
    });

    it('nesting up to 64 levels reaches the schema check ([VALIDATION_FAILED]); 65 is too deep', async () => {
      await expectNothingStored(async () => {
        expectError(await t.call('PUT', `/accounts/${accountId}`, { rawBody: `{"alias":${nestedArrays(63)}}` }), 400, '[VALIDATION_FAILED]');
        expectError(await t.call('PUT', `/accounts/${accountId}`, { rawBody: `{"alias":${nestedArrays(64)}}` }), 400, '[JSON_TOO_DEEP]');
      });
      const res = await t.call('PUT', `/accounts/${accountId}`, { rawBody: `{"alias":${nestedArrays(64)}}` });
      expect(res.body.message).to.match(/deeper than 64 levels/);
    });

    it('the service keeps answering after a burst of deep bodies', async () => {
      await Promise.all(Array.from({ length: 20 }, () => t.call('POST', '/accounts', { rawBody: nestedArrays(100_000) })));
      expect((await t.call('GET', `/accounts/${accountId}`)).status).to.equal(200);
    });
  });

  describe('item 9: polymorphic members are validated strictly', () => {
    it('setting null, a string, a number or an array gives 400 on copier, account and project features (null was a 500)', async () => {
      const owners = [`/accounts/${accountId}/copiers/${copierId}`, `/accounts/${accountId}`, `/projects/${DEFAULT_PROJECT_ID}`];
      await expectNothingStored(async () => {
        for (const owner of owners) {
          const type = featureBody({ type: 'FeatureWebhookDTO' }).type;
          for (const setting of [null, 'FeatureWebhookDTO', 42, true, [], [{ url: 'http://127.0.0.1:9/hook' }]]) {
            const res = await t.call('POST', `${owner}/features`, { body: { type, setting } });
            expectError(res, 400, '[VALIDATION_FAILED]');
          }
        }
      });
    });

    it('webhook authentication null, a number, a string, a boolean or an array gives 400 and stores nothing (null was a 500; the rest were stored)', async () => {
      await expectNothingStored(async () => {
        for (const authentication of [null, 42, 'NONE', 'NONE-please', true, [], [{ type: 'NONE' }], {}]) {
          expectError(await t.call('POST', `/accounts/${accountId}/features`, { body: webhook(authentication) }), 400, '[VALIDATION_FAILED]');
        }
      });
      const listed = await t.call('GET', `/accounts/${accountId}/features`);
      expect(listed.body.filter((f: { type: { name: string } }) => f.type.name === 'FeatureWebhookDTO')).to.deep.equal([]);
    });

    it('a PUT with "authentication":"NONE-please" is refused and the HMAC webhook keeps its secret (it threw the secret away)', async () => {
      const added = await t.call('POST', `/accounts/${accountId}/features`, { body: webhook({ type: 'HMAC_SHA256', secret: SECRET }) });
      expect(added.status, JSON.stringify(added.body)).to.equal(200);
      const featureId = added.body.featureId as string;

      await expectNothingStored(async () => {
        for (const authentication of ['NONE-please', null, 7, false, ['HMAC_SHA256']]) {
          const res = await t.call('PUT', `/accounts/${accountId}/features/${featureId}`, { body: webhook(authentication) });
          expectError(res, 400, '[VALIDATION_FAILED]');
        }
      });
      const after = await t.call('GET', `/accounts/${accountId}/features/${featureId}`);
      expect(after.body.setting.authentication).to.deep.equal({ type: 'HMAC_SHA256', secret: MASK });
      const stored = await t.service.services.db.selectFrom('features').selectAll().where('id', '=', featureId).executeTakeFirstOrThrow();
      const sealed = (stored as unknown as { setting: { authentication: { secret: string } } }).setting.authentication.secret;
      expect(t.service.services.cipher.decrypt(sealed)).to.equal(SECRET);
      await t.call('DELETE', `/accounts/${accountId}/features/${featureId}`);
    });
  });

  describe('item 13: secrets in the audit log', () => {
    it("shows webhook secrets masked as in the feature's answers, also after a rebuild of the read model (it showed the ciphertext)", async () => {
      const hmac = await t.call('POST', `/accounts/${accountId}/features`, { body: webhook({ type: 'HMAC_SHA256', secret: SECRET }) });
      const bearer = await t.call('POST', `/projects/${DEFAULT_PROJECT_ID}/features`, { body: webhook({ type: 'BEARER', token: TOKEN }) });
      expect([hmac.status, bearer.status]).to.deep.equal([200, 200]);
      const changed = await t.call('PUT', `/accounts/${accountId}/features/${hmac.body.featureId}`, {
        body: webhook({ type: 'HMAC_SHA256', secret: `${SECRET}-rotated` }),
      });
      expect(changed.status, JSON.stringify(changed.body)).to.equal(200);

      const auditOf = async () => {
        const log = await t.call('GET', `/projects/${DEFAULT_PROJECT_ID}/auditLogs?limit=1000`);
        expect(log.status).to.equal(200);
        // eslint-disable-next-line @typescript-eslint/no-explicit-any -- AuditLogDTO, checked by the contract
        return log.body as any[];
      };
      const check = async () => {
        const entries = await auditOf();
        const text = JSON.stringify(entries);
        expect(text).not.to.include('v1:');
        expect(text).not.to.include(SECRET);
        expect(text).not.to.include(TOKEN);
        const webhooks = entries.filter((e) => e.changes?.type === 'FeatureWebhookDTO').map((e) => `${e.action} ${JSON.stringify(e.changes.authentication)}`);
        expect(webhooks).to.include.members([
          `FeatureAdded {"type":"HMAC_SHA256","secret":"${MASK}"}`,
          `FeatureAdded {"type":"BEARER","token":"${MASK}"}`,
          `FeatureUpdated {"type":"HMAC_SHA256","secret":"${MASK}"}`,
        ]);
        const created = entries.find((e) => e.action === 'AccountCreated' && e.accountId === accountId);
        expect(created.changes.loginAccountPassword).to.equal('***');
        expect(created.changes).not.to.have.property('passwordCiphertext');
        return entries;
      };
      const live = await check();
      await rebuildProjection(t.service.services.db, t.service.services.store, auditLogsProjection);
      const rebuilt = await check();
      expect(rebuilt.map((e) => e.changes)).to.deep.equal(live.map((e) => e.changes));
    });
  });

  describe('item 14: Idempotency-Key', () => {
    let trader: string;
    const key = (k: string) => ({ headers: { 'Idempotency-Key': k } });
    const positions = async (id = trader) =>
      ((await t.call('GET', `/accounts/${id}/positions`)).body as { id: string; volume: number; stopLoss: number }[]).map(({ id, volume, stopLoss }) => ({
        id,
        volume,
        stopLoss,
      }));

    before(async () => {
      trader = await startedAccount(t, 'idem');
    });

    it('the same key with the same body places once and answers the same, whatever the order of the members', async () => {
      const first = await t.call('POST', `/accounts/${trader}/positions`, {
        body: positionRequest({ symbol: 'BTCUSD', orderType: 'Buy', volume: 0.01, requestId: 1 }),
        ...key('same-body'),
      });
      expect(first.status, JSON.stringify(first.body)).to.equal(204);
      const again = await t.call('POST', `/accounts/${trader}/positions`, {
        body: { requestId: 1, takeProfit: 0, stopLoss: 0, openPrice: 0, volume: 0.01, orderType: 'Buy', symbol: 'BTCUSD' },
        ...key('same-body'),
      });
      expect(again.status, JSON.stringify(again.body)).to.equal(204);
      expect(again.headers.get('x-position-id')).to.equal(first.headers.get('x-position-id'));
      expect((await positions()).map((p) => p.id)).to.deep.equal([first.headers.get('x-position-id')]);
    });

    it('the same key with another body gives 422 [IDEMPOTENCY_KEY_REUSED] and places and records nothing (it answered the first result)', async () => {
      const first = await t.call('POST', `/accounts/${trader}/positions`, {
        body: positionRequest({ symbol: 'BTCUSD', orderType: 'Buy', volume: 0.02, requestId: 2 }),
        ...key('other-body'),
      });
      expect(first.status).to.equal(204);
      const before = await positions();
      await expectNothingStored(async () => {
        expectError(
          await t.call('POST', `/accounts/${trader}/positions`, {
            body: positionRequest({ symbol: 'BTCUSD', orderType: 'Sell', volume: 0.5, requestId: 2 }),
            ...key('other-body'),
          }),
          422,
          '[IDEMPOTENCY_KEY_REUSED]',
        );
        expectError(
          await t.call('POST', `/accounts/${trader}/orders`, {
            body: positionRequest({ symbol: 'BTCUSD', orderType: 'Buy', volume: 0.02, requestId: 2 }),
            ...key('other-body'),
          }),
          422,
          '[IDEMPOTENCY_KEY_REUSED]',
        );
        const positionId = first.headers.get('x-position-id')!;
        expectError(
          await t.call('PUT', `/accounts/${trader}/positions/${positionId}`, {
            body: modifyRequest(undefined, { symbol: 'BTCUSD', volume: 0.01, requestId: 2 }),
            ...key('other-body'),
          }),
          422,
          '[IDEMPOTENCY_KEY_REUSED]',
        );
        expectError(await t.call('DELETE', `/accounts/${trader}/positions/${positionId}`, key('other-body')), 422, '[IDEMPOTENCY_KEY_REUSED]');
      });
      expect(await positions()).to.deep.equal(before);
    });

    it('a key is per account: the same key on another account is a new request', async () => {
      const other = await startedAccount(t, 'idem-other');
      const res = await t.call('POST', `/accounts/${other}/positions`, {
        body: positionRequest({ symbol: 'BTCUSD', orderType: 'Buy', volume: 0.03 }),
        ...key('other-body'),
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(204);
      expect((await positions(other)).map((p) => p.volume)).to.deep.equal([0.03]);
    });

    it('concurrent requests under one key with different bodies: one is placed, the others get 422', async () => {
      const answers = await Promise.all(
        [0.01, 0.02, 0.03, 0.04].map((volume) =>
          t.call('POST', `/accounts/${trader}/positions`, {
            body: positionRequest({ symbol: 'BTCUSD', orderType: 'Sell', volume, requestId: 3 }),
            ...key('race'),
          }),
        ),
      );
      expect(answers.map((a) => a.status).sort()).to.deep.equal([204, 422, 422, 422]);
      const placed = answers.find((a) => a.status === 204)!.headers.get('x-position-id');
      expect((await positions()).filter((p) => p.id === placed)).to.have.length(1);
    });

    it('documents the header and the 422 in the OpenAPI document', async () => {
      const doc = (await t.call('GET', '/openapi.json', { checkContract: false })).body;
      const operation = doc.paths['/accounts/{accountId}/positions'].post;
      const header = operation.parameters.find((p: { in: string; name: string }) => p.in === 'header' && p.name === 'Idempotency-Key');
      expect(header.description).to.include('[IDEMPOTENCY_KEY_REUSED]');
      expect(operation.responses['422'].description).to.include('[IDEMPOTENCY_KEY_REUSED]');
    });
  });
});
