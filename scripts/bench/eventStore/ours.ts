// Our PostgreSQL event store, as the service opens it (pool of 10, LISTEN client), through the port.
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { PostgresEventStore } from '../../../store/postgres/postgresEventStore.js';
import { migrateEventStore } from '../../../store/postgres/schema.js';
import type { StoreUnderTest } from './system.js';

export const openOurs = async (connectionString: string): Promise<StoreUnderTest> => {
  const migrations = new Kysely({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString, max: 1 }) }) });
  await migrateEventStore(migrations);
  await migrations.destroy();
  const store = await PostgresEventStore.connect(connectionString);
  return {
    async append(stream, revision, events) {
      await store.appendToStream(stream, events, { expectedRevision: revision < 0 ? 'no_stream' : BigInt(revision) });
    },
    async readAll(count) {
      let read = 0;
      for await (const _ of store.readAll({ maxCount: count })) read++;
      return read;
    },
    close: () => store.dispose(),
  };
};
