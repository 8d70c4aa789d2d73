// The copy engine's kept reads (engine/copy/inputs.ts `kept`): a read of the master's copiers or of a
// fan-out's slave accounts is answered again, without a query, while the marks of its read models
// (ProjectionRunner.version) stay the same; a moved mark, or an unknown one, reads again.
import { expect } from 'chai';
import { type DatabaseConnection, DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, type QueryResult } from 'kysely';
import { CopyInputs } from '../../../engine/copy/inputs.js';
import type { AccountSessions } from '../../../engine/venues/connections.js';
import type { ReadModels } from '../../../projections/schema.js';

/** A database that answers every query with no rows, and counts the queries per table read. */
const countingDb = () => {
  const queries: string[] = [];
  const connection: DatabaseConnection = {
    executeQuery: async <R>(compiled: { sql: string }): Promise<QueryResult<R>> => {
      queries.push(/from "(\w+)"/.exec(compiled.sql)?.[1] ?? compiled.sql);
      return { rows: [] };
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

const sessions = {} as AccountSessions;

describe('engine/copy/inputs: reads kept while their read models are unchanged', () => {
  it("answers the master's copiers again while the copiers mark stays, and reads again once it moves", async () => {
    const { db, queries } = countingDb();
    const marks = new Map<string, string | null>([['copiers', '1:1']]);
    const inputs = new CopyInputs(
      db,
      sessions,
      () => new Date(),
      (name) => marks.get(name) ?? null,
    );
    const first = inputs.copiersOf('m');
    expect(inputs.copiersOf('m')).to.equal(first);
    await first;
    expect(inputs.copiersOf('m')).to.equal(first);
    expect(queries.filter((q) => q === 'copiers')).to.have.length(1);
    marks.set('copiers', '1:2');
    const second = inputs.copiersOf('m');
    expect(second).to.not.equal(first);
    await second;
    expect(queries.filter((q) => q === 'copiers')).to.have.length(2);
  });

  it('reads every time while a mark is unknown (another instance applies the read models)', async () => {
    const { db, queries } = countingDb();
    const inputs = new CopyInputs(
      db,
      sessions,
      () => new Date(),
      () => null,
    );
    await inputs.copiersOf('m');
    await inputs.copiersOf('m');
    expect(queries.filter((q) => q === 'copiers')).to.have.length(2);
  });

  it("keeps a fan-out's slave accounts per master while the accounts, protections and risk limits marks stay and the same accounts are asked for", async () => {
    const { db, queries } = countingDb();
    const marks = new Map<string, string | null>([
      ['accounts', '1:1'],
      ['protections', '1:1'],
      ['risk_limits', '1:1'],
    ]);
    const inputs = new CopyInputs(
      db,
      sessions,
      () => new Date(),
      (name) => marks.get(name) ?? null,
    );
    const reads = () => queries.filter((q) => q === 'accounts').length;
    await inputs.slaveAccounts(['a', 'b'], 'm');
    await inputs.slaveAccounts(['a', 'b'], 'm');
    expect(reads()).to.equal(1);
    await inputs.slaveAccounts(['a', 'b', 'c'], 'm');
    expect(reads(), 'other accounts asked for').to.equal(2);
    marks.set('protections', '1:2');
    await inputs.slaveAccounts(['a', 'b', 'c'], 'm');
    expect(reads(), 'protections changed').to.equal(3);
    await inputs.slaveAccounts(['a', 'b', 'c']);
    expect(reads(), 'no master: not kept').to.equal(4);
  });

  it('drops the kept reads of deleted masters once their read models moved, keeping what is current', async () => {
    const { db } = countingDb();
    const marks = new Map<string, string | null>([['copiers', '1:1']]);
    const inputs = new CopyInputs(
      db,
      sessions,
      () => new Date(),
      (name) => marks.get(name) ?? null,
    );
    for (let i = 0; i < 60; i++) await inputs.copiersOf(`gone-${i}`);
    expect(inputs.keptCount).to.equal(60);
    // The 60 masters are deleted: their copiers leave the read model, whose mark moves; nobody asks for them again.
    marks.set('copiers', '1:2');
    for (let i = 0; i < 200; i++) await inputs.copiersOf(`live-${i}`);
    expect(inputs.keptCount, 'only the live masters are kept').to.equal(200);
    const kept = inputs.copiersOf('live-7');
    expect(inputs.copiersOf('live-7'), 'a current read is still answered again').to.equal(kept);
  });
});
