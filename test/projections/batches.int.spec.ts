// A read model that applies a batch at once (applyBatch) must end exactly where applying its events one
// by one ends. Checked on the generated history of the rebuild benchmark (masters' trades, pending
// orders that fill or are cancelled, copies, balance operations, connections), cut into batches of
// several sizes, against a real PostgreSQL.
import { expect } from 'chai';
import { type Kysely, sql } from 'kysely';
import { allProjections } from '../../projections/all.js';
import { createReadModelDb } from '../../projections/database.js';
import type { Projection } from '../../projections/projection.js';
import type { ReadModels } from '../../projections/schema.js';
import type { RecordedEvent } from '../../store/port.js';
import { generateHistory } from '../../scripts/bench/rebuild/history.js';
import { freshDatabase } from '../support/postgres.js';

const history = (): RecordedEvent[] =>
  [...generateHistory(3000, { masters: 3, slavesPerMaster: 4, sampledAccounts: 2 })].map((e, i) => ({
    streamId: e.stream, id: e.id, revision: 0n, type: e.type, data: e.data, metadata: e.metadata as RecordedEvent['metadata'],
    created: new Date(e.created), position: { commit: 1n, prepare: BigInt(i + 1) },
  }));

const batched = allProjections.filter((p) => p.applyBatch);

const tableRows = async (db: Kysely<ReadModels>, schema: string, projection: Projection) => {
  const out: Record<string, unknown[]> = {};
  for (const table of projection.tables) {
    const { rows } = await sql<Record<string, unknown>>`SELECT * FROM ${sql.id(schema, table)}`.execute(db);
    out[table] = rows.map((r) => JSON.stringify(r)).sort();
  }
  return out;
};

describe('read models that apply a batch at once', function () {
  this.timeout(120000);
  let db: Kysely<ReadModels>;
  let events: RecordedEvent[];
  let schemas = 0;

  const build = async (projection: Projection, apply: (scoped: Kysely<ReadModels>) => Promise<void>) => {
    const schema = `rm_batch_spec_${++schemas}`;
    await sql`CREATE SCHEMA ${sql.id(schema)}`.execute(db);
    await projection.createTables(db, schema);
    await apply(db.withSchema(schema));
    return tableRows(db, schema, projection);
  };

  before(async () => {
    ({ db } = createReadModelDb(await freshDatabase(), 2));
    events = history();
  });
  after(() => db.destroy());

  it('are the ones that matter for a rebuild: positions, history and account logs', () => {
    expect(batched.map((p) => p.name).sort()).to.deep.equal(['account_logs', 'history', 'positions']);
  });

  for (const size of [7, 1000]) {
    it(`end where one event at a time ends, in batches of ${size}`, async () => {
      for (const projection of batched) {
        const handled = events.filter((e) => projection.handles.includes(e.type));
        expect(handled.length, projection.name).to.be.greaterThan(100);
        const oneByOne = await build(projection, async (scoped) => {
          for (const event of handled) await projection.apply(scoped, event);
        });
        const inBatches = await build(projection, async (scoped) => {
          for (let i = 0; i < handled.length; i += size) await projection.applyBatch!(scoped, handled.slice(i, i + size));
        });
        expect(inBatches, projection.name).to.deep.equal(oneByOne);
        expect(Object.values(oneByOne).some((rows) => rows.length > 0), projection.name).to.equal(true);
      }
    });
  }

  it('positions: an order that fills into a position of its id, and a cancel of an order id that is a position, as one by one', async () => {
    const positions = batched.find((p) => p.name === 'positions')!;
    const accountId = '33333333-3333-4333-8333-333333333333';
    const at = '2026-11-20T10:00:00.000Z';
    const order = { orderId: 'X', symbol: 'EURUSD', orderType: 'BuyLimit', volume: 1, openPrice: 1.05, openTime: at, stopLoss: null,
      takeProfit: null, expiry: null, comment: null, magicNumber: null, clientOrderId: null };
    const position = (positionId: string) => ({ positionId, symbol: 'EURUSD', orderType: 'Buy', volume: 1, openPrice: 1.05, openTime: at,
      stopLoss: null, takeProfit: null, swap: 0, commission: 0, comment: null, magicNumber: null, clientOrderId: null });
    const recorded = (type: string, data: object, i: number): RecordedEvent => ({
      streamId: `positions-${accountId}`, id: crypto.randomUUID(), revision: BigInt(i), type, data: { accountId, at, ...data }, metadata: {},
      created: new Date(at), position: { commit: 1n, prepare: BigInt(i + 1) },
    });
    const sequence = [
      recorded('PendingOrderPlaced', { order }, 0),
      recorded('PendingOrderFilled', { order, price: 1.05 }, 1),
      recorded('PositionOpened', { position: position('X'), fromPendingOrder: true }, 2),
      recorded('PositionOpened', { position: position('Y') }, 3),
      recorded('PendingOrderCancelled', { order: { ...order, orderId: 'Y' }, reason: 'manual' }, 4),
      recorded('PendingOrderPlaced', { order: { ...order, orderId: 'Z' } }, 5),
      recorded('PendingOrderCancelled', { order: { ...order, orderId: 'Z' }, reason: 'expired' }, 6),
      recorded('VenueConnected', { venue: 'sim', login: 'a/1' }, 7),
      recorded('BalanceChanged', { operation: { operationId: 'b1', time: at, amount: 10, comment: null } }, 8),
      recorded('VenueDisconnected', { reason: 'stopped' }, 9),
    ];
    for (let cut = 0; cut <= sequence.length; cut++) {
      // A database that already holds the first `cut` events, then the rest as one batch.
      const oneByOne = await build(positions, async (scoped) => {
        for (const event of sequence) await positions.apply(scoped, event);
      });
      const split = await build(positions, async (scoped) => {
        for (const event of sequence.slice(0, cut)) await positions.apply(scoped, event);
        await positions.applyBatch!(scoped, sequence.slice(cut));
      });
      expect(split, `first ${cut} one by one`).to.deep.equal(oneByOne);
      expect(oneByOne.positions!.map((r) => JSON.parse(String(r)) as { id: string; kind: string }).map((r) => `${r.id}:${r.kind}`))
        .to.deep.equal(['X:position', 'Y:position']);
    }
  });
});
