import { expect } from 'chai';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { accountDecider } from '../../domain/account/decider.js';
import { accountStream, type AccountSettings } from '../../domain/account/events.js';
import { systemContext } from '../../domain/shared/command.js';
import { aggregateStream, handleCommand } from '../../store/commandHandler.js';
import { PostgresEventStore } from '../../store/postgres/postgresEventStore.js';
import { migrateEventStore } from '../../store/postgres/schema.js';
import { freshDatabase } from '../support/postgres.js';

const PROJECT = '22222222-2222-4222-8222-222222222222';
const settings: AccountSettings = {
  loginServer: 'S', loginAccountNumber: '1', passwordCiphertext: 'c', alias: 'a', accountTypeId: 1, regionId: 1,
  propFirm: false, tradingDisabled: false, nativeMode: false, closeUnmanagedPositions: false, dedicatedIp: null,
  myHomeIp: null, proxy: null,
};
const metadata = (correlationId = 'test') => ({
  now: new Date().toISOString(),
  context: { ...systemContext(correlationId), projectId: PROJECT, clientIp: '10.0.0.1', method: 'POST', path: '/x', apiKeyId: null },
});

describe('command handling: read, fold, decide, append with the expected revision', () => {
  let store: PostgresEventStore;
  before(async () => {
    const url = await freshDatabase();
    const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 2 }) }) });
    await migrateEventStore(db);
    await db.destroy();
    store = await PostgresEventStore.connect(url);
  });
  after(() => store.dispose());

  it('appends the decided events with the request context in their metadata', async () => {
    const accountId = crypto.randomUUID();
    const result = await handleCommand(store, accountStream(accountId), accountDecider, {
      type: 'CreateAccount', data: { accountId, projectId: PROJECT, settings }, metadata: metadata('corr-1'),
    });
    expect(result.events.map((e) => e.type)).to.deep.equal(['AccountCreated']);
    expect(result.nextExpectedRevision).to.equal(0n);
    for await (const { event } of store.readStream(accountStream(accountId))) {
      expect(event.metadata).to.deep.include({ correlationId: 'corr-1', clientIp: '10.0.0.1', method: 'POST', projectId: PROJECT });
    }
  });

  it('retries when concurrent commands race, so every one of them lands exactly once', async () => {
    const accountId = crypto.randomUUID();
    const stream = accountStream(accountId);
    await handleCommand(store, stream, accountDecider, { type: 'CreateAccount', data: { accountId, projectId: PROJECT, settings }, metadata: metadata() });
    await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        handleCommand(store, stream, accountDecider, {
          type: 'UpdateAccount', data: { accountId, projectId: PROJECT, changes: { alias: `alias-${i}` } }, metadata: metadata(),
        }),
      ),
    );
    const types: string[] = [];
    for await (const { event } of store.readStream(stream)) types.push(event.type);
    expect(types).to.deep.equal(['AccountCreated', 'AccountUpdated', 'AccountUpdated', 'AccountUpdated', 'AccountUpdated']);
  });

  it('a command that decides nothing appends nothing', async () => {
    const accountId = crypto.randomUUID();
    const stream = accountStream(accountId);
    await handleCommand(store, stream, accountDecider, { type: 'CreateAccount', data: { accountId, projectId: PROJECT, settings }, metadata: metadata() });
    await handleCommand(store, stream, accountDecider, { type: 'StartAccount', data: { accountId, projectId: PROJECT }, metadata: metadata() });
    const again = await handleCommand(store, stream, accountDecider, { type: 'StartAccount', data: { accountId, projectId: PROJECT }, metadata: metadata() });
    expect(again.events).to.deep.equal([]);
    expect(again.position).to.equal(null);
    const { revision, state } = await aggregateStream(store, stream, accountDecider.evolve, accountDecider.initialState);
    expect(revision).to.equal(1n);
    expect(state.status).to.equal(2);
  });

  it('the same command id appends its events once, even when the command is handled twice', async () => {
    const accountId = crypto.randomUUID();
    const stream = accountStream(accountId);
    const create = { type: 'CreateAccount' as const, data: { accountId, projectId: PROJECT, settings }, metadata: metadata() };
    await handleCommand(store, stream, accountDecider, create, { commandId: 'cmd-1' });
    const update = { type: 'UpdateAccount' as const, data: { accountId, projectId: PROJECT, changes: { alias: 'b' } }, metadata: metadata() };
    const first = await handleCommand(store, stream, accountDecider, update, { commandId: 'cmd-2' });
    // A replay of the append itself (the reply was lost): the store recognises the event ids.
    const ids: string[] = [];
    for await (const { event } of store.readStream(stream)) ids.push(event.id);
    const replay = await store.appendToStream(stream, [{ id: ids[1]!, type: 'AccountUpdated', data: first.events[0]!.data }], { expectedRevision: 0n });
    expect(replay.nextExpectedRevision).to.equal(1n);
    expect(ids).to.have.length(2);
  });
});
