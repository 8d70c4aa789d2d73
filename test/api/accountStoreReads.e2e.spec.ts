// What creating and starting an account read of the event store (the 10,000-account seed of
// bench:copy-latency runs these use cases for every account): a creation decides on the account stream
// as it read it once, a start reads it once for its venue login and its decision, and a first start,
// whose VenueConnected is the positions stream's first event, reads no positions back. A later start does read them (reconciliation), and records what the venue
// did while the account had no session. A new account's key is issued without reading its stream
// (its id derives from the account, so the stream is new); one that exists is found by the append's
// conflict and rotated, as a read would have found it.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { v5 as uuidv5 } from 'uuid';
import { issueAccountKey } from '../../app/commands/apiKeys.js';
import { createAccountNow } from '../../app/commands/createAccount.js';
import { fromAccountCreateDTO } from '../../api/accounts/dto.js';
import { accountStream } from '../../domain/account/events.js';
import { apiKeyStream } from '../../domain/apiKey/events.js';
import { DEFAULT_PROJECT_ID } from '../../domain/project/decider.js';
import { EVENT_ID_NAMESPACE } from '../../store/commandHandler.js';
import { positionsStream } from '../../domain/positions/events.js';
import type { EventStore } from '../../store/port.js';
import { startTestService, type TestService, validAccount } from '../support/service.js';
import { marketHoursClock } from '../support/trading.js';

describe('creating and starting an account: its reads of the event store', function () {
  this.timeout(120_000);
  let t: TestService;
  /** The streams read since the last `clear`, in order. */
  const reads: string[] = [];

  before(async () => {
    // It trades EURUSD at the simulated venue: on a Wednesday, whatever day the suite runs on.
    t = await startTestService({ clock: marketHoursClock() });
    const store: EventStore = t.service.services.store;
    const readStream = store.readStream.bind(store);
    Object.assign(store, {
      readStream: (...args: Parameters<EventStore['readStream']>) => {
        reads.push(args[0]);
        return readStream(...args);
      },
    });
  });
  after(() => t?.stop());

  it('reads the account stream once to create it, and no positions stream at its first start', async () => {
    reads.length = 0;
    const created = await t.call('POST', '/accounts', { body: validAccount({ alias: 'reads once', loginAccountNumber: '8800001' }) });
    expect(created.status, JSON.stringify(created.body)).to.equal(200);
    const id = created.body.id as string;
    expect(reads.filter((name) => name === accountStream(id))).to.have.length(1);
    const keyId = created.headers.get('X-Account-Api-Key-Id')!;
    expect(keyId).to.equal(uuidv5(`accountKey:${id}`, EVENT_ID_NAMESPACE));
    expect(reads.filter((name) => name === apiKeyStream(keyId))).to.deep.equal([]);
    // The key answered works at once (its read model included it before the answer).
    const own = await t.call('GET', `/accounts/${id}`, { key: created.headers.get('X-Account-Api-Key')! });
    expect(own.status, JSON.stringify(own.body)).to.equal(200);
    expect(own.body.id).to.equal(id);

    reads.length = 0;
    const started = await t.call('POST', `/accounts/${id}/actions/start`);
    expect(started.status, JSON.stringify(started.body)).to.equal(200);
    expect(started.body.status.id).to.equal(2);
    expect(reads.filter((name) => name === positionsStream(id))).to.deep.equal([]);
    // The account stream once, for the venue login and the start's decision.
    expect(reads.filter((name) => name === accountStream(id))).to.have.length(1);
    expect(t.service.services.connections.isConnected(id)).to.equal(true);

    // Started again while connected: the start decides nothing on one read, as before.
    reads.length = 0;
    const again = await t.call('POST', `/accounts/${id}/actions/start`);
    expect([again.status, again.body.status.id]).to.deep.equal([200, 2]);
    expect(reads.filter((name) => name === accountStream(id))).to.have.length(1);
  });

  it("creates an account whose key's stream already exists: the append's conflict finds it and the key is rotated", async () => {
    const { services } = t.service;
    const accountId = randomUUID();
    const context = { apiKeyId: null, projectId: DEFAULT_PROJECT_ID, clientIp: null, method: 'SPEC', path: 'accountStoreReads', correlationId: randomUUID() };
    // The key of an account not created yet (as a creation that stopped between its two writes would leave it).
    const first = await issueAccountKey(services, DEFAULT_PROJECT_ID, accountId, 'early key', context);
    expect((await t.call('GET', '/accounts', { key: first.key })).status).to.equal(200);
    const settings = fromAccountCreateDTO(services, validAccount({ alias: 'key exists', loginAccountNumber: '8800003' }));
    const issued = await createAccountNow(services, { accountId, projectId: DEFAULT_PROJECT_ID, settings, failIfAccountExistsInProject: true, context });
    expect(issued.apiKeyId).to.equal(first.apiKeyId);
    expect(issued.key).to.not.equal(first.key);
    const own = await t.call('GET', `/accounts/${accountId}`, { key: issued.key });
    expect(own.status, JSON.stringify(own.body)).to.equal(200);
    expect((await t.call('GET', `/accounts/${accountId}`, { key: first.key })).status).to.equal(401);
  });

  it('reads the positions back at a later start, and records a trade made at the venue while it was stopped', async () => {
    const created = await t.call('POST', '/accounts', { body: validAccount({ alias: 'restarted', loginAccountNumber: '8800002' }) });
    const id = created.body.id as string;
    expect((await t.call('POST', `/accounts/${id}/actions/start`)).status).to.equal(200);
    expect((await t.call('POST', `/accounts/${id}/actions/stop`)).status).to.equal(200);
    // The venue login is still there while the account is stopped: a trade made at the venue directly.
    const { services } = t.service;
    const login = 'Demo-Server-01/8800002';
    const connection = services.venues.simulatedVenue().connection({ login, password: 'secret-password' });
    await connection.connect();
    const placed = await connection.placeOrder({ symbol: 'EURUSD', orderType: 'buy', volume: 0.01 }, 'while-stopped-1');
    expect(placed.status).to.equal('filled');
    await connection.disconnect();

    reads.length = 0;
    const restarted = await t.call('POST', `/accounts/${id}/actions/start`);
    expect([restarted.status, restarted.body.status.id]).to.deep.equal([200, 2]);
    expect(reads.filter((name) => name === positionsStream(id))).to.have.length(1);
    expect(reads.filter((name) => name === accountStream(id))).to.have.length(1);
    await services.connections.recorded(id);
    const positions = await t.call('GET', `/accounts/${id}/positions`);
    expect(positions.status, JSON.stringify(positions.body)).to.equal(200);
    expect(JSON.stringify(positions.body)).to.include(String(placed.status === 'filled' ? placed.positionId : null));
  });
});
