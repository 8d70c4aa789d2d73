import { expect } from 'chai';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { accountDecider } from '../../domain/account/decider.js';
import { accountStream, type AccountSettings } from '../../domain/account/events.js';
import { systemContext } from '../../domain/shared/command.js';
import { aggregateStream, type ConflictRetryPolicy, conflictRetryDelay, handleCommand } from '../../store/commandHandler.js';
import { WrongExpectedVersionError } from '../../store/errors.js';
import type { EventStore } from '../../store/port.js';
import { PostgresEventStore } from '../../store/postgres/postgresEventStore.js';
import { migrateEventStore } from '../../store/postgres/schema.js';
import { freshDatabase } from '../support/postgres.js';

const PROJECT = '22222222-2222-4222-8222-222222222222';
const settings: AccountSettings = {
  loginServer: 'S',
  loginAccountNumber: '1',
  passwordCiphertext: 'c',
  alias: 'a',
  accountTypeId: 1,
  regionId: 1,
  propFirm: false,
  tradingDisabled: false,
  nativeMode: false,
  closeUnmanagedPositions: false,
  dedicatedIp: null,
  myHomeIp: null,
  labels: [],
  skipCredentialCheck: false,
  ctraderClientId: null,
  ctraderClientSecretCiphertext: null,
  proxy: null,
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
      type: 'CreateAccount',
      data: { accountId, projectId: PROJECT, settings },
      metadata: metadata('corr-1'),
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
          type: 'UpdateAccount',
          data: { accountId, projectId: PROJECT, changes: { alias: `alias-${i}` } },
          metadata: metadata(),
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

  it('a known state that may be behind: a decision of nothing reads on and decides again, a decision of events is confirmed by its append', async () => {
    const accountId = crypto.randomUUID();
    const stream = accountStream(accountId);
    const command = (type: 'StartAccount' | 'StopAccount') => ({ type, data: { accountId, projectId: PROJECT }, metadata: metadata() });
    await handleCommand(store, stream, accountDecider, { type: 'CreateAccount', data: { accountId, projectId: PROJECT, settings }, metadata: metadata() });
    await handleCommand(store, stream, accountDecider, command('StartAccount'));
    // Read as Active (a start would decide nothing); stopped meanwhile by another writer.
    const active = await aggregateStream(store, stream, accountDecider.evolve, accountDecider.initialState);
    await handleCommand(store, stream, accountDecider, command('StopAccount'));
    const reads: string[] = [];
    const counting = Object.assign(Object.create(store) as EventStore, {
      readStream: (...args: Parameters<EventStore['readStream']>) => {
        reads.push(`${args[1]?.fromRevision ?? 'start'}`);
        return store.readStream(...args);
      },
    });
    const started = await handleCommand(counting, stream, accountDecider, command('StartAccount'), { known: active, knownMayBeBehind: true });
    expect(started.events.map((e) => e.type)).to.deep.equal(['AccountStarted']);
    expect(reads).to.deep.equal(['2']);
    // Read as it is (Active): a start decides nothing, and one read on from there finds nothing new.
    const current = { state: started.state, revision: started.nextExpectedRevision };
    reads.length = 0;
    const nothing = await handleCommand(counting, stream, accountDecider, command('StartAccount'), { known: current, knownMayBeBehind: true });
    expect(nothing.events).to.deep.equal([]);
    expect(reads).to.deep.equal(['4']);
    // A stop is decided on it without a read; its append at the known revision confirms it.
    reads.length = 0;
    const stopped = await handleCommand(counting, stream, accountDecider, command('StopAccount'), { known: current, knownMayBeBehind: true });
    expect(stopped.events.map((e) => e.type)).to.deep.equal(['AccountStopped']);
    expect(reads).to.deep.equal([]);
    // Without knownMayBeBehind a decision of nothing on the known state stands (a process that owns its stream).
    const stale = await handleCommand(counting, stream, accountDecider, command('StartAccount'), { known: current });
    expect(stale.events).to.deep.equal([]);
    expect(reads).to.deep.equal([]);
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

  it('50 concurrent commands on one stream all land (the old five immediate retries lost two thirds of them)', async () => {
    const accountId = crypto.randomUUID();
    const stream = accountStream(accountId);
    await handleCommand(store, stream, accountDecider, { type: 'CreateAccount', data: { accountId, projectId: PROJECT, settings }, metadata: metadata() });
    await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        handleCommand(store, stream, accountDecider, {
          type: 'UpdateAccount',
          data: { accountId, projectId: PROJECT, changes: { alias: `alias-${i}` } },
          metadata: metadata(),
        }),
      ),
    );
    const aliases = new Set<unknown>();
    for await (const { event } of store.readStream(stream))
      if (event.type === 'AccountUpdated') aliases.add((event.data as { changes: { alias: string } }).changes.alias);
    expect(aliases.size).to.equal(50);
  });

  /**
   * An account whose stream another writer appends to between every read and append of ours: the
   * store to hand the command handler, and the aliases the rival wrote so far.
   */
  const contendedAccount = async () => {
    const accountId = crypto.randomUUID();
    const stream = accountStream(accountId);
    await handleCommand(store, stream, accountDecider, { type: 'CreateAccount', data: { accountId, projectId: PROJECT, settings }, metadata: metadata() });
    const rivals: string[] = [];
    const contended: EventStore = Object.assign(Object.create(store) as EventStore, {
      appendToStream: async (...args: Parameters<EventStore['appendToStream']>) => {
        rivals.push(`rival-${rivals.length + 1}`);
        await store.appendToStream(stream, [{ id: crypto.randomUUID(), type: 'AccountUpdated', data: { accountId, changes: { alias: rivals.at(-1) } } }], {
          expectedRevision: 'any',
        });
        return store.appendToStream(...args);
      },
    });
    const update = (retry: ConflictRetryPolicy) =>
      handleCommand(
        contended,
        stream,
        accountDecider,
        {
          type: 'UpdateAccount',
          data: { accountId, projectId: PROJECT, changes: { alias: 'mine' } },
          metadata: metadata(),
        },
        { retry },
      ).then(
        () => null,
        (e: unknown) => e,
      );
    return { stream, rivals, update };
  };

  it('gives up with the WrongExpectedVersionError once the conflicts outlast its attempts, having appended nothing', async () => {
    const { stream, rivals, update } = await contendedAccount();

    const error = await update({ maxAttempts: 4, budgetMs: 10_000, baseMs: 1, capMs: 2 });

    expect(error).to.be.instanceOf(WrongExpectedVersionError);
    const aliases: string[] = [];
    for await (const { event } of store.readStream(stream))
      if (event.type === 'AccountUpdated') aliases.push((event.data as { changes: { alias: string } }).changes.alias);
    expect(aliases).to.deep.equal(['rival-1', 'rival-2', 'rival-3', 'rival-4']);
    expect(rivals).to.have.length(4);
  });

  it('gives up before its time budget runs out, however many attempts it has left', async () => {
    const { rivals, update } = await contendedAccount();
    const started = Date.now();

    const error = await update({ maxAttempts: 1000, budgetMs: 300, baseMs: 20, capMs: 40 });

    expect(error).to.be.instanceOf(WrongExpectedVersionError);
    expect(Date.now() - started).to.be.lessThan(1_000);
    expect(rivals.length).to.be.greaterThan(1).and.lessThan(1000);
  });

  it('backs off with full jitter, doubling up to the cap', () => {
    const policy: ConflictRetryPolicy = { maxAttempts: 30, budgetMs: 5_000, baseMs: 5, capMs: 250 };
    expect([1, 2, 3, 4, 10, 100].map((n) => conflictRetryDelay(policy, n, () => 0.999999))).to.deep.equal([4, 9, 19, 39, 249, 249]);
    expect(conflictRetryDelay(policy, 7, () => 0)).to.equal(0);
    expect(conflictRetryDelay(policy, 7, () => 0.5)).to.equal(125);
  });
});
