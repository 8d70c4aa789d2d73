// Group commit for facts (store/factBatches.ts), over a store in memory that only answers
// appendToStreams: what goes in one multi-stream append, the order of one stream's appends, and what a
// failed batch does to each of its callers.
import { expect } from 'chai';
import { FactBatches } from '../../store/factBatches.js';
import type { AppendResult, EventStore, StreamAppend } from '../../store/port.js';

/** Records each appendToStreams call; the calls numbered in `failing` (from 1) fail; each waits until released. */
class MemoryStore {
  readonly calls: string[][] = [];
  readonly stored: { stream: string; id: string }[] = [];
  readonly failing = new Set<number>();
  private releases: (() => void)[] = [];

  readonly port = {
    appendToStreams: async (appends: readonly StreamAppend[]): Promise<readonly AppendResult[]> => {
      this.calls.push(appends.map((a) => a.streamName));
      const call = this.calls.length;
      await new Promise<void>((resolve) => this.releases.push(resolve));
      if (this.failing.has(call)) throw new Error('the database went away');
      return appends.map((a) => {
        for (const e of a.events) this.stored.push({ stream: a.streamName, id: e.id });
        return { success: true, nextExpectedRevision: BigInt(this.stored.length - 1), position: { commit: BigInt(this.stored.length), prepare: 0n } };
      });
    },
  } as unknown as EventStore;

  /** Lets the calls waiting so far answer. */
  async release(): Promise<void> {
    const waiting = this.releases;
    this.releases = [];
    for (const resolve of waiting) resolve();
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const fact = (id: string) => [{ id, type: 'Fact', data: { id } }];

describe('fact batches (group commit over appendToStreams)', () => {
  it('writes what is asked for while a batch is written in one multi-stream append, and answers each caller', async () => {
    const store = new MemoryStore();
    const batches = new FactBatches(store.port);
    const first = batches.record('s-1', fact('a'), {});
    const waiting = ['s-2', 's-3', 's-4'].map((stream, i) => batches.record(stream, fact(`b${i}`), {}));
    expect(store.calls).to.deep.equal([['s-1']]);
    await store.release();
    expect(store.calls).to.deep.equal([['s-1'], ['s-2', 's-3', 's-4']]);
    await store.release();
    const results = await Promise.all([first, ...waiting]);
    expect(results.map((r) => r.position.commit)).to.deep.equal([1n, 2n, 3n, 4n]);
  });

  it('keeps one stream once per batch, so its appends are stored in the order asked', async () => {
    const store = new MemoryStore();
    const batches = new FactBatches(store.port);
    const blocker = batches.record('other', fact('x'), {});
    const asked = [batches.record('s', fact('1'), {}), batches.record('t', fact('2'), {}), batches.record('s', fact('3'), {})];
    await store.release();
    expect(store.calls[1]).to.deep.equal(['s', 't']);
    await store.release();
    expect(store.calls[2]).to.deep.equal(['s']);
    await store.release();
    await Promise.all([blocker, ...asked]);
    expect(store.stored.filter((e) => e.stream === 's').map((e) => e.id)).to.deep.equal(['1', '3']);
  });

  it('fails every caller of a failed batch, and stores what they ask for again', async () => {
    const store = new MemoryStore();
    const batches = new FactBatches(store.port);
    store.failing.add(2);
    const blocker = batches.record('other', fact('x'), {});
    const asked = [batches.record('s-1', fact('a'), {}), batches.record('s-2', fact('b'), {})].map((p) =>
      p.then(
        () => 'stored',
        () => 'failed',
      ),
    );
    await store.release();
    await store.release();
    await blocker;
    expect(store.calls[1]).to.deep.equal(['s-1', 's-2']);
    expect(await Promise.all(asked)).to.deep.equal(['failed', 'failed']);
    const again = Promise.all([batches.record('s-1', fact('a'), {}), batches.record('s-2', fact('b'), {})]);
    await store.release();
    await store.release();
    await again;
    expect(store.stored.map((e) => e.id)).to.deep.equal(['x', 'a', 'b']);
  });
});
