// What a copier's copies stream holds last (engine/copy/outcomes.ts): read once per copier, ahead of the
// first fan-out when priming asks (readAhead), shared by whoever asks while it reads, and never older
// than an outcome appended while it read. Counted by the reads of copies streams the store served.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { CopyEvent, CopySource } from '../../../domain/copy/events.js';
import type { CopierRow } from '../../../engine/copy/inputs.js';
import { Outcomes } from '../../../engine/copy/outcomes.js';
import { PostgresEventStore } from '../../../store/postgres/postgresEventStore.js';
import { type EventStore, positionFromString } from '../../../store/port.js';
import { freshEventStoreDatabase } from '../../support/postgres.js';

const log = { info: () => undefined, warn: () => undefined, error: () => undefined };

describe('copy outcomes: what each copies stream holds last is read once, ahead of the first fan-out', function () {
  this.timeout(60_000);
  let inner: PostgresEventStore;
  /** Reads of copies streams served so far; while `gate` is set, each waits for it first. */
  let copiesReads = 0;
  let gate: Promise<void> | null = null;
  let store: EventStore;

  before(async () => {
    inner = await PostgresEventStore.connect(await freshEventStoreDatabase());
    store = new Proxy(inner, {
      get(target, key, receiver) {
        if (key !== 'readStream') return Reflect.get(target, key, receiver) as unknown;
        return (name: string, options: Parameters<EventStore['readStream']>[1]) => {
          if (!name.startsWith('copies-')) return target.readStream(name, options);
          copiesReads += 1;
          const waitFor = gate;
          return (async function* () {
            if (waitFor) await waitFor;
            yield* target.readStream(name, options);
          })();
        };
      },
    });
  });
  after(async () => {
    await inner?.dispose();
  });

  const outcomes = () => new Outcomes({ store, waitForReadModels: async () => true, clock: () => new Date(), log }, () => false);
  const copier = (id: string) => ({ id }) as CopierRow;
  /** An outcome of the copier caused by the store event at `position`. */
  const outcome = (of: Outcomes, copierId: string, position: string) => {
    const source: CopySource = { eventId: randomUUID(), position, type: 'PositionOpened' };
    const event = { type: 'CopyFailed', data: { source, at: new Date().toISOString() } } as unknown as CopyEvent;
    return of.appendWithIds(copier(copierId), 'master', source, [{ id: randomUUID(), event }], true);
  };

  it('reads each copier once, ahead or on demand, and answers from memory after', async () => {
    const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
    await outcome(outcomes(), a, '5:5');

    // A new term: priming reads the three copiers ahead; the fan-out reads nothing more.
    const term = outcomes();
    copiesReads = 0;
    await term.readAhead([a, b, c]);
    expect(copiesReads).to.equal(3);
    expect(await term.notHandled(a, positionFromString('5:5')), 'handled before').to.equal(false);
    expect(await term.notHandled(a, positionFromString('6:6'))).to.equal(true);
    expect(await term.notHandled(b, positionFromString('5:5')), 'a stream not written yet').to.equal(true);
    await term.readAhead([a, b, c]);
    expect(copiesReads, 'nothing read again').to.equal(3);

    // A fan-out that asks while priming reads shares its read.
    const other = outcomes();
    copiesReads = 0;
    const [notHandled] = await Promise.all([other.notHandled(a, positionFromString('5:5')), other.readAhead([a])]);
    expect(notHandled).to.equal(false);
    expect(copiesReads).to.equal(1);
  });

  it('keeps an outcome appended while the stream was read ahead, which is newer than the read', async () => {
    const a = randomUUID();
    await outcome(outcomes(), a, '5:5');
    const term = outcomes();
    let open = () => undefined as void;
    gate = new Promise((resolve) => (open = resolve));
    const reading = term.readAhead([a]);
    // The read has begun and waits; the engine appends the outcome of a later cause meanwhile.
    while (term.readsUnderWay === 0) await new Promise((r) => setTimeout(r, 5));
    gate = null;
    await outcome(term, a, '9:9');
    open();
    await reading;
    expect(await term.notHandled(a, positionFromString('9:9')), 'the newer outcome stays').to.equal(false);
    expect(await term.notHandled(a, positionFromString('10:10'))).to.equal(true);
  });
});
