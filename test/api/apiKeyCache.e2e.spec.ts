// The API-key cache (api/auth.ts: keys admitted before are taken from memory; api/accounts/answers.ts:
// account answers kept serialised, checked with the key's row read in the same statement as the read
// models' stamp) on two instances sharing one database: a key revoked through one instance is refused
// at its very next request on the other, whichever path that request takes (an account read served
// from a kept answer, the list, any other route), and a blocked customer's key likewise.
import { expect } from 'chai';
import { DEFAULT_PROJECT_ID } from '../../domain/project/decider.js';
import { startTestService, type TestResponse, type TestService, validAccount, whileCustomerBlocked } from '../support/service.js';

const KEYS = `/projects/${DEFAULT_PROJECT_ID}/apiKeys`;

const expectError = (res: TestResponse, status: number, code: string): void => {
  expect(res.status, JSON.stringify(res.body)).to.equal(status);
  expect(res.body.error).to.equal(code);
};

describe('API-key cache on two instances of one database', function () {
  // Two services start on one database.
  this.timeout(120_000);
  let a: TestService;
  let b: TestService;
  let accountId: string;

  before(async () => {
    a = await startTestService({ venueTicker: false });
    b = await startTestService({ databaseUrl: a.databaseUrl, dataDir: a.dataDir, venueTicker: false });
    const created = await a.call('POST', '/accounts', { body: validAccount({ loginAccountNumber: '4242001' }) });
    expect(created.status, JSON.stringify(created.body)).to.equal(200);
    accountId = created.body.id;
  });
  after(async () => {
    await b?.stop();
    await a?.stop();
  });

  const issue = async (name: string): Promise<{ id: string; key: string }> => {
    const res = await a.call('POST', KEYS, { body: { name } });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body as { id: string; key: string };
  };

  /** Reads on both instances until each has the key in memory and the account's answer kept. */
  const warm = async (key: string): Promise<void> => {
    for (const t of [a, b]) {
      for (let i = 0; i < 3; i++) {
        const one = await t.call('GET', `/accounts/${accountId}`, { key });
        expect(one.status, JSON.stringify(one.body)).to.equal(200);
        expect(one.body.id).to.equal(accountId);
        expect((await t.call('GET', '/accounts', { key })).status).to.equal(200);
      }
    }
  };

  it('a key revoked through one instance is refused at its very next request on the other (401), on every path', async () => {
    const issued = await issue('revoked elsewhere');
    await warm(issued.key);
    const revoked = await a.call('POST', `${KEYS}/${issued.id}/revoke`);
    expect(revoked.status, JSON.stringify(revoked.body)).to.equal(200);
    expectError(await b.call('GET', `/accounts/${accountId}`, { key: issued.key }), 401, '[API_KEY_REVOKED]');
    expectError(await b.call('GET', '/accounts', { key: issued.key }), 401, '[API_KEY_REVOKED]');
    expectError(await b.call('GET', '/apiKeys/current', { key: issued.key }), 401, '[API_KEY_REVOKED]');
    expectError(await a.call('GET', `/accounts/${accountId}`, { key: issued.key }), 401, '[API_KEY_REVOKED]');
    // Other keys of the project still read, from the kept answer.
    expect((await b.call('GET', `/accounts/${accountId}`)).status).to.equal(200);
  });

  it('a key rotated through one instance: the old value is refused on the other at once, the new one reads', async () => {
    const issued = await issue('rotated elsewhere');
    await warm(issued.key);
    const rotated = await a.call('POST', `${KEYS}/${issued.id}/rotate`);
    expect(rotated.status, JSON.stringify(rotated.body)).to.equal(200);
    expectError(await b.call('GET', `/accounts/${accountId}`, { key: issued.key }), 401, '[API_KEY_INVALID]');
    expect((await b.call('GET', `/accounts/${accountId}`, { key: rotated.body.key })).status).to.equal(200);
  });

  it("a blocked customer's key is refused at its next request, also when the account's answer is served from memory", async () => {
    const issued = await issue('customer key');
    await warm(issued.key);
    // The read models' stamp does not move while the block is written, so the kept answer would be
    // served if the key's row read with the stamp did not carry the block.
    await whileCustomerBlocked(a, DEFAULT_PROJECT_ID, async () => {
      for (const t of [b, a]) {
        expectError(await t.call('GET', `/accounts/${accountId}`, { key: issued.key }), 403, '[CUSTOMER_BLOCKED]');
        expectError(await t.call('GET', '/accounts', { key: issued.key }), 403, '[CUSTOMER_BLOCKED]');
        expectError(await t.call('GET', '/apiKeys/current', { key: issued.key }), 403, '[CUSTOMER_BLOCKED]');
      }
    });
    expect((await b.call('GET', `/accounts/${accountId}`, { key: issued.key })).status).to.equal(200);
  });
});
