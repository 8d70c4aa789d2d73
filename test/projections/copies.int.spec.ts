// The copies read model's folds, applied the way the runner and the rebuild apply them (applyEvents into
// a generation's schema), against a real PostgreSQL: the martingale count each closed copy moves, and
// the account logs written a batch at a time.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { type Kysely, sql } from 'kysely';
import { describeAction } from '../../domain/copy/decision.js';
import type { CopyEvent } from '../../domain/copy/events.js';
import type { TradeAction } from '../../domain/copy/types.js';
import { accountLogsProjection } from '../../projections/accountLogs/projector.js';
import { copiesProjection } from '../../projections/copies/projector.js';
import { createReadModelDb } from '../../projections/database.js';
import type { Projection } from '../../projections/projection.js';
import { applyEvents } from '../../projections/rebuild.js';
import type { ReadModels } from '../../projections/schema.js';
import type { RecordedEvent } from '../../store/port.js';
import { freshDatabase } from '../support/postgres.js';

const COPIER = randomUUID();
const MASTER = randomUUID();
const SLAVE = randomUUID();
let prepare = 0n;

const recorded = (event: CopyEvent): RecordedEvent => {
  prepare += 1n;
  return {
    id: randomUUID(),
    streamId: `copies-${COPIER}`,
    revision: prepare,
    type: event.type,
    data: event.data,
    metadata: {},
    created: new Date(),
    position: { commit: 1n, prepare },
  };
};

const base = () => ({
  copierId: COPIER,
  masterAccountId: MASTER,
  slaveAccountId: SLAVE,
  at: new Date().toISOString(),
  source: { eventId: randomUUID(), position: '1:1', type: 'PositionOpened' },
  masterEventAt: null,
});

/** A copy opened and then closed by the copier with `result`: two CopyExecuted events. */
const copyClosedWith = (n: number, result: number): RecordedEvent[] => {
  const masterPositionId = `m${n}`;
  const slavePositionId = `s${n}`;
  const common = { clientOrderId: `c${n}`, masterPositionId, symbol: 'EURUSD' };
  const time = new Date().toISOString();
  return [
    recorded({
      type: 'CopyExecuted',
      data: {
        ...base(),
        action: { ...common, type: 'open', orderType: 'Buy', volume: 1, openPrice: null, stopLoss: null, takeProfit: null, comment: null, magicNumber: null },
        result: { type: 'opened', slavePositionId, kind: 'position', price: 1.1, volume: 1, time },
      },
    } as unknown as CopyEvent),
    recorded({
      type: 'CopyExecuted',
      data: {
        ...base(),
        action: { ...common, clientOrderId: `c${n}-close`, type: 'close', slavePositionId, volume: 1 },
        result: { type: 'closed', volume: 1, result, closePrice: 1.2, time },
      },
    } as unknown as CopyEvent),
  ];
};

describe('the copies read model', () => {
  let db: Kysely<ReadModels>;
  let schema: string;
  let n = 0;
  const apply = (projection: Projection, events: readonly RecordedEvent[]) => applyEvents(db, schema, projection, events);
  const losses = async () =>
    (await db.withSchema(schema).selectFrom('copier_martingale').select('consecutive_losses').where('copier_id', '=', COPIER).executeTakeFirst())
      ?.consecutive_losses;

  before(async () => {
    ({ db } = createReadModelDb(await freshDatabase(), 2));
    schema = 'rm_copies_spec';
    await sql`CREATE SCHEMA ${sql.id(schema)}`.execute(db);
    await copiesProjection.createTables(db, schema);
    await accountLogsProjection.createTables(db, schema);
  });
  after(() => db.destroy());

  it('counts losses in a row, resets on a win and leaves a break-even close alone, as the martingale rule says', async () => {
    const steps: [number, number | undefined][] = [
      [0, undefined],
      [-5, 1],
      [-2.5, 2],
      [0, 2],
      [-1, 3],
      [7, 0],
      [3, 0],
      [-4, 1],
    ];
    for (const [result, expected] of steps) {
      await apply(copiesProjection, copyClosedWith(++n, result));
      expect(await losses(), `after a close of ${result}`).to.equal(expected);
    }
  });

  it('folds the same counts when the whole history comes in one batch', async () => {
    await db.withSchema(schema).deleteFrom('copier_martingale').execute();
    await apply(
      copiesProjection,
      [-1, -1, 2, -3, -3, -3].flatMap((r) => copyClosedWith(++n, r)),
    );
    expect(await losses()).to.equal(3);
  });

  it('a close the slave venue reported first is the close the copier made all the same, and counts once', async () => {
    await db.withSchema(schema).deleteFrom('copier_martingale').execute();
    const [open, close] = copyClosedWith(++n, -3);
    const time = new Date().toISOString();
    const venueClose = recorded({
      type: 'PositionClosed',
      data: {
        accountId: SLAVE,
        at: time,
        trade: {
          positionId: `s${n}`,
          tradeId: `t${n}`,
          symbol: 'EURUSD',
          orderType: 'Buy',
          volume: 1,
          openPrice: 1.1,
          openTime: time,
          closePrice: 1.2,
          closeTime: time,
          profit: -3,
          swap: 0,
          commission: 0,
          reason: 'manual',
        },
      },
    } as unknown as CopyEvent);
    await apply(copiesProjection, [open!, venueClose, { ...close!, data: { ...(close!.data as object), by: 'FeatureScheduledCloseReopenDTO' } }]);
    const row = await db
      .withSchema(schema)
      .selectFrom('copies')
      .select(['status', 'closed_by', 'result'])
      .where('master_position_id', '=', `m${n}`)
      .executeTakeFirstOrThrow();
    expect(row).to.deep.equal({ status: 'closed', closed_by: 'FeatureScheduledCloseReopenDTO', result: -3 });
    expect(await losses()).to.equal(1);
  });

  it('writes the log line of every event of a batch (one INSERT for the batch), and a replayed batch adds none', async () => {
    const events = [1, -1, 2].flatMap((r) => copyClosedWith(++n, r));
    const count = async () =>
      Number(
        (
          await db
            .withSchema(schema)
            .selectFrom('account_logs')
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await count();
    expect(await apply(accountLogsProjection, events)).to.equal(events.length);
    expect(await count()).to.equal(before + events.length);
    await apply(accountLogsProjection, events);
    expect(await count()).to.equal(before + events.length);
    const lines = await db.withSchema(schema).selectFrom('account_logs').select(['message', 'account_id']).where('id', '=', events[1]!.id).execute();
    expect(lines).to.have.length(1);
    expect(lines[0]!.account_id).to.equal(SLAVE);
    expect(lines[0]!.message).to.equal(
      `Copied from master ${MASTER} (position #m${n - 2}): ${describeAction((events[1]!.data as { action: TradeAction }).action)}`,
    );
  });
});
