// The peer: Emmett's PostgreSQL event store (@event-driven-io/emmett-postgresql), used as its docs show
// (getPostgreSQLEventStore, its default pool of 10), and $all read with readMessagesBatch, the reader
// its consumers use. It lives in this folder because its package (and its uuid 10 peer) is installed
// here, not at the root (see package.json beside it).
import { dumbo } from '@event-driven-io/dumbo';
import type { Event } from '@event-driven-io/emmett';
import { getPostgreSQLEventStore, readMessagesBatch } from '@event-driven-io/emmett-postgresql';
import type { StoreUnderTest } from '../eventStore/system.js';

const PAGE = 500;

export const openEmmett = async (connectionString: string): Promise<StoreUnderTest> => {
  const store = getPostgreSQLEventStore(connectionString);
  await store.schema.migrate();
  const pool = dumbo({ connectionString });
  return {
    async append(stream, revision, events) {
      // Emmett counts a stream's events from 1: version n = our revision n - 1; 0 = no stream.
      const messages = events.map((e) => ({ type: e.type, data: e.data, metadata: { ...e.metadata, messageId: e.id } }) as unknown as Event);
      await store.appendToStream(stream, messages, { expectedStreamVersion: BigInt(revision + 1) });
    },
    async readAll(count) {
      let read = 0;
      let after: bigint | null = null;
      while (read < count) {
        const batchSize = Math.min(PAGE, count - read);
        const batch: { messages: readonly unknown[]; areMessagesLeft: boolean; currentGlobalPosition: bigint } = await readMessagesBatch(
          pool.execute,
          after === null ? { from: 0n, batchSize } : { after, batchSize },
        );
        read += batch.messages.length;
        if (!batch.areMessagesLeft) break;
        after = batch.currentGlobalPosition;
      }
      return read;
    },
    async close() {
      await store.close();
      await pool.close();
    },
  };
};
