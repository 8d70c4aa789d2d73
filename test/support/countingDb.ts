// A kysely database for unit specs that answers every query with the rows given for the table it reads
// (none by default) and counts the queries per table read (the first `from "table"` of each query; a
// raw SQL query without one is named by its text). `rowsOf` may also be a function of that name.
import { type DatabaseConnection, DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, type QueryResult } from 'kysely';
import type { ReadModels } from '../../projections/schema.js';

export const countingDb = (rowsOf: Readonly<Record<string, readonly unknown[]>> | ((table: string) => readonly unknown[]) = {}) => {
  const queries: string[] = [];
  const connection: DatabaseConnection = {
    executeQuery: async <R>(compiled: { sql: string }): Promise<QueryResult<R>> => {
      const table = /from "(\w+)"/.exec(compiled.sql)?.[1] ?? compiled.sql;
      queries.push(table);
      return { rows: [...((typeof rowsOf === 'function' ? rowsOf(table) : rowsOf[table]) ?? [])] as R[] };
    },
    // eslint-disable-next-line require-yield
    streamQuery: async function* () {
      throw new Error('not used');
    },
  };
  class Driver extends DummyDriver {
    override acquireConnection(): Promise<DatabaseConnection> {
      return Promise.resolve(connection);
    }
  }
  const db = new Kysely<ReadModels>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new Driver(),
      createIntrospector: (k) => new PostgresIntrospector(k),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  });
  return { db, queries };
};
