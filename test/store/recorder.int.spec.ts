// The one write path besides the command handler: facts recorded as they happened (store/recorder.ts),
// once each by their deterministic ids, and the command handler's options for writers that keep their
// own ids, metadata or state (store/commandHandler.ts).
import { expect } from 'chai';
import { v5 as uuidv5 } from 'uuid';
import { type Decider, systemContext } from '../../domain/shared/command.js';
import { handleCommand } from '../../store/commandHandler.js';
import { WrongExpectedVersionError } from '../../store/errors.js';
import type { EventStore } from '../../store/port.js';
import { PostgresEventStore } from '../../store/postgres/postgresEventStore.js';
import { recordFacts } from '../../store/recorder.js';
import { freshEventStoreDatabase } from '../support/postgres.js';

const NAMESPACE = '0f9e8d7c-6b5a-4c3d-8e2f-1a0b9c8d7e6f';
const fact = (key: string, data: unknown = { key }) => ({ id: uuidv5(key, NAMESPACE), type: 'Seen', data });

const typesOf = async (store: EventStore, stream: string) => {
  const out: string[] = [];
  for await (const { event } of store.readStream(stream)) out.push(`${event.type}:${JSON.stringify(event.data)}`);
  return out;
};

/** A counter that counts one up while below a limit: enough of a rule to see what the handler decided on. */
type CounterEvent = { type: 'Counted'; data: { n: number } };
type CounterCommand = { type: 'Count'; data: { upTo: number }; metadata: { now: string; context: ReturnType<typeof systemContext> } };
const counter: Decider<CounterCommand, CounterEvent, number> = {
  initialState: 0,
  evolve: (state, event) => event.data.n,
  decide: (command, state) => (state < command.data.upTo ? [{ type: 'Counted', data: { n: state + 1 } }] : []),
};
const ONE_ATTEMPT = { maxAttempts: 1, budgetMs: 0, baseMs: 0, capMs: 0 };
const count = (upTo: number): CounterCommand => ({
  type: 'Count',
  data: { upTo },
  metadata: { now: '2026-03-02T09:30:00.000Z', context: systemContext('spec') },
});

describe('recording facts and handling commands with writer-given ids, metadata and state', () => {
  let store: PostgresEventStore;
  before(async () => {
    const url = await freshEventStoreDatabase();
    store = await PostgresEventStore.connect(url);
  });
  after(() => store.dispose());

  it('records facts in one append with the given metadata, whatever the stream holds', async () => {
    const stream = `facts-${crypto.randomUUID()}`;
    await recordFacts(store, stream, [fact('a')], { correlationId: 'venue:1' });
    const result = await recordFacts(store, stream, [fact('b'), fact('c')], { correlationId: 'venue:1' });
    expect(result.nextExpectedRevision).to.equal(2n);
    expect(await typesOf(store, stream)).to.deep.equal(['Seen:{"key":"a"}', 'Seen:{"key":"b"}', 'Seen:{"key":"c"}']);
    for await (const { event } of store.readStream(stream)) expect(event.metadata).to.deep.equal({ correlationId: 'venue:1' });
  });

  it('records a fact seen again (live, then by a reconciliation) once, answering where it was recorded', async () => {
    const stream = `facts-${crypto.randomUUID()}`;
    const first = await recordFacts(store, stream, [fact('opened/1')], {});
    await recordFacts(store, stream, [fact('modified/1/2')], {});
    const again = await recordFacts(store, stream, [fact('opened/1')], {});
    expect(again.nextExpectedRevision).to.equal(0n);
    expect(again.position).to.deep.equal(first.position);
    expect(await typesOf(store, stream)).to.have.length(2);
  });

  it('gives events the ids the writer derives from them', async () => {
    const stream = `counter-${crypto.randomUUID()}`;
    const eventId = (e: CounterEvent) => uuidv5(`counted/${e.data.n}`, NAMESPACE);
    const handled = await handleCommand(store, stream, counter, count(1), { eventId });
    expect(handled.events).to.deep.equal([{ type: 'Counted', data: { n: 1 } }]);
    const ids: string[] = [];
    for await (const { event } of store.readStream(stream)) ids.push(event.id);
    expect(ids).to.deep.equal([uuidv5('counted/1', NAMESPACE)]);
  });

  it("writes the writer's own metadata instead of the command's request context", async () => {
    const stream = `counter-${crypto.randomUUID()}`;
    await handleCommand(store, stream, counter, count(1), { eventMetadata: { correlationId: 'protection:1', receivedAt: 'then' } });
    for await (const { event } of store.readStream(stream)) expect(event.metadata).to.deep.equal({ correlationId: 'protection:1', receivedAt: 'then' });
  });

  it('decides on the state the writer already folded, without reading the stream, and appends at its revision', async () => {
    const stream = `counter-${crypto.randomUUID()}`;
    for (const upTo of [1, 2]) await handleCommand(store, stream, counter, count(upTo));
    // A writer whose state is behind (it saw n = 1 at revision 0) and may not retry meets the conflict.
    const error = await handleCommand(store, stream, counter, count(3), { known: { state: 1, revision: 0n }, retry: ONE_ATTEMPT }).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(WrongExpectedVersionError);
    // The known state is trusted as given: n = 10 at revision 1 decides nothing, though the stream says n = 2.
    const trusted = await handleCommand(store, stream, counter, count(3), { known: { state: 10, revision: 1n } });
    expect(trusted.events).to.deep.equal([]);
    const handled = await handleCommand(store, stream, counter, count(3), { known: { state: 2, revision: 1n } });
    expect(handled.events).to.deep.equal([{ type: 'Counted', data: { n: 3 } }]);
    expect(handled.nextExpectedRevision).to.equal(2n);
  });

  it('after a conflict, reads on from the known state and decides again on what it missed', async () => {
    const stream = `counter-${crypto.randomUUID()}`;
    for (const upTo of [1, 2]) await handleCommand(store, stream, counter, count(upTo));
    const handled = await handleCommand(store, stream, counter, count(3), { known: { state: 1, revision: 0n } });
    expect(handled.events).to.deep.equal([{ type: 'Counted', data: { n: 3 } }]);
    expect(await typesOf(store, stream)).to.deep.equal(['Counted:{"n":1}', 'Counted:{"n":2}', 'Counted:{"n":3}']);
  });
});
