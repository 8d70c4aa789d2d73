// A read model that applies a batch at once (applyBatch) must end exactly where applying its events one
// by one ends. Checked on the generated history of the rebuild benchmark (masters' trades, pending
// orders that fill or are cancelled, copies, balance operations, connections), cut into batches of
// several sizes, against a real PostgreSQL.
import { expect } from 'chai';
import { type Kysely, sql } from 'kysely';
import { allProjections } from '../../projections/all.js';
import { createReadModelDb } from '../../projections/database.js';
import type { Projection, RebuildFold } from '../../projections/projection.js';
import type { ReadModels } from '../../projections/schema.js';
import type { RecordedEvent } from '../../store/port.js';
import { generateHistory } from '../../scripts/bench/rebuild/history.js';
import { freshDatabase } from '../support/postgres.js';
import { SIGNAL_PROVIDER } from '../../domain/signal/provider.js';
import { TRADER_FEATURE } from '../../domain/investor/features.js';

const history = (): RecordedEvent[] =>
  [...generateHistory(3000, { masters: 3, slavesPerMaster: 4, sampledAccounts: 2 })].map((e, i) => ({
    streamId: e.stream,
    id: e.id,
    revision: 0n,
    type: e.type,
    data: e.data,
    metadata: e.metadata as RecordedEvent['metadata'],
    created: new Date(e.created),
    position: { commit: 1n, prepare: BigInt(i + 1) },
  }));

const batched = allProjections.filter((p) => p.applyBatch);
/** Read models whose rows this history does not make: their batches are checked on hand-made sequences of their own. */
const WITHOUT_ROWS_HERE = new Set(['earnings']);

const tableRows = async (db: Kysely<ReadModels>, schema: string, projection: Projection) => {
  const out: Record<string, unknown[]> = {};
  for (const table of projection.tables) {
    const { rows } = await sql<Record<string, unknown>>`SELECT * FROM ${sql.id(schema, table)}`.execute(db);
    out[table] = rows.map((r) => JSON.stringify(r)).sort();
  }
  // The keys and indexes too: a fold that writes without a key (keylessFirstOfKey) must make it again.
  const { rows: indexes } = await sql<{ indexdef: string }>`SELECT indexdef FROM pg_indexes WHERE schemaname = ${schema}`.execute(db);
  out['(indexes)'] = indexes.map((r) => r.indexdef.replaceAll(schema, '<schema>')).sort();
  return out;
};

describe('read models that apply a batch at once', function () {
  this.timeout(240000);
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

  it('are the ones that matter for a rebuild: copies, positions, history, data collector, earnings, marketplace and both logs', () => {
    expect(batched.map((p) => p.name).sort()).to.deep.equal([
      'account_logs',
      'audit_logs',
      'copies',
      'data_collector',
      'earnings',
      'history',
      'marketplace',
      'positions',
    ]);
    expect(allProjections.filter((p) => p.rebuildFold).map((p) => p.name)).to.deep.equal(['positions', 'history', 'copies', 'account_logs', 'marketplace']);
  });

  for (const size of [7, 1000]) {
    for (const projection of batched) {
      it(`${projection.name}: ends where one event at a time ends, in batches of ${size}`, async () => {
        const handled = events.filter((e) => projection.handles.includes(e.type));
        expect(handled.length, projection.name).to.be.greaterThan(50);
        const oneByOne = await build(projection, async (scoped) => {
          for (const event of handled) await projection.apply(scoped, event);
        });
        const inBatches = await build(projection, async (scoped) => {
          for (let i = 0; i < handled.length; i += size) await projection.applyBatch!(scoped, handled.slice(i, i + size));
        });
        expect(inBatches, projection.name).to.deep.equal(oneByOne);
        // Earnings has rows only for signal followers, which this history has none of (earningsBatch.int.spec.ts has them).
        if (!WITHOUT_ROWS_HERE.has(projection.name)) {
          expect(
            projection.tables.some((table) => oneByOne[table]!.length > 0),
            projection.name,
          ).to.equal(true);
        }
        if (!projection.rebuildFold) return;
        // A rebuild's fold, which keeps its state in memory: one per partition, as the rebuild has them.
        const folded = await build(projection, async (scoped) => {
          const folds = new Map<string, RebuildFold>();
          for (let i = 0; i < handled.length; i += size) {
            const byPartition = new Map<string, RecordedEvent[]>();
            for (const event of handled.slice(i, i + size)) {
              const key = projection.partitionOf?.(event) ?? '';
              byPartition.set(key, [...(byPartition.get(key) ?? []), event]);
            }
            for (const [key, part] of byPartition) {
              if (!folds.has(key)) folds.set(key, projection.rebuildFold!());
              await folds.get(key)!.apply(scoped, part);
            }
          }
          for (const fold of folds.values()) await fold.finish(scoped);
        });
        expect(folded, `${projection.name}, rebuild fold`).to.deep.equal(oneByOne);
      });
    }
  }

  it('marketplace: a rebuild fold computes the facts of providers and traders once, as one by one, cut anywhere', async () => {
    const market = batched.find((p) => p.name === 'marketplace')!;
    const handled = events.filter((e) => market.handles.includes(e.type));
    const traded = [...new Set(handled.filter((e) => e.type === 'PositionClosed').map((e) => (e.data as { accountId: string }).accountId))];
    expect(traded.length).to.be.greaterThan(2);
    const feature = (type: string, accountId: string, setting: string, featureId: string): RecordedEvent => ({
      ...handled[0]!,
      streamId: `feature-${featureId}`,
      id: crypto.randomUUID(),
      type,
      data: { featureId, projectId: crypto.randomUUID(), scope: { kind: 'account', accountId }, setting: { type: setting }, at: new Date().toISOString() },
    });
    const [provider, trader, gone] = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
    const third = Math.floor(handled.length / 3);
    // A provider from early on, a trader added when two thirds of its history are written, a provider removed again.
    const sequence = [
      ...handled.slice(0, 5),
      feature('FeatureAdded', traded[0]!, SIGNAL_PROVIDER, provider),
      feature('FeatureAdded', traded[2]!, SIGNAL_PROVIDER, gone),
      ...handled.slice(5, 2 * third),
      feature('FeatureAdded', traded[1]!, TRADER_FEATURE, trader),
      ...handled.slice(2 * third, 2 * third + 40),
      feature('FeatureRemoved', traded[2]!, SIGNAL_PROVIDER, gone),
      ...handled.slice(2 * third + 40),
    ].map((e, i) => ({ ...e, position: { commit: 1n, prepare: BigInt(i + 1) } }));
    const oneByOne = await build(market, async (scoped) => {
      for (const event of sequence) await market.apply(scoped, event);
    });
    const scores = oneByOne.marketplace_scores!.map((r) => JSON.parse(String(r)) as { feature_id: string; facts: unknown });
    expect(scores.map((r) => r.feature_id).sort()).to.deep.equal([provider, trader].sort());
    for (const row of scores) expect(row.facts).to.not.equal(null);
    for (const size of [7, 1000]) {
      const folded = await build(market, async (scoped) => {
        const fold = market.rebuildFold!();
        for (let i = 0; i < sequence.length; i += size) await fold.apply(scoped, sequence.slice(i, i + size));
        await fold.finish(scoped);
      });
      expect(folded, `rebuild fold in batches of ${size}`).to.deep.equal(oneByOne);
    }
  });

  it('history, marketplace: a rebuild fold keeps the first row of a key in any spelling of its uuid, makes the keys again, cut anywhere, as one by one', async () => {
    for (const name of ['history', 'marketplace']) {
      const projection = batched.find((p) => p.name === name)!;
      const closes = [...events.filter((e) => e.type === 'BalanceChanged').slice(0, 4), ...events.filter((e) => e.type === 'PositionClosed').slice(0, 8)];
      const again = (e: RecordedEvent, accountId: string): RecordedEvent => {
        const data = e.data as { accountId: string; trade?: { profit: number }; operation?: { amount: number } };
        return {
          ...e,
          id: crypto.randomUUID(),
          // Other figures under the same key: the first row stays.
          data: {
            ...data,
            accountId,
            ...(data.trade ? { trade: { ...data.trade, profit: data.trade.profit + 1 } } : {}),
            ...(data.operation ? { operation: { ...data.operation, amount: data.operation.amount + 1 } } : {}),
          },
        };
      };
      const upper = (e: RecordedEvent) => (e.data as { accountId: string }).accountId.toUpperCase();
      const sequence = [
        ...closes.slice(0, 6),
        again(closes[1]!, (closes[1]!.data as { accountId: string }).accountId),
        ...closes.slice(6),
        again(closes[2]!, upper(closes[2]!)),
        again(closes[7]!, `{${upper(closes[7]!)}}`),
        again(closes[8]!, upper(closes[8]!).replaceAll('-', '')),
      ].map((e, i) => ({ ...e, position: { commit: 1n, prepare: BigInt(i + 1) } }));
      const oneByOne = await build(projection, async (scoped) => {
        for (const event of sequence) await projection.apply(scoped, event);
      });
      const table = name === 'history' ? 'closed_trades' : 'marketplace_trades';
      expect(oneByOne[table]!.length, name).to.be.greaterThan(0);
      for (let cut = 0; cut <= sequence.length; cut++) {
        const folded = await build(projection, async (scoped) => {
          const fold = projection.rebuildFold!();
          await fold.apply(scoped, sequence.slice(0, cut));
          await fold.apply(scoped, sequence.slice(cut));
          await fold.finish(scoped);
        });
        expect(folded, `${name}: rebuild fold cut after ${cut}`).to.deep.equal(oneByOne);
      }
    }
  });

  it('positions: an order that fills into a position of its id, and a cancel of an order id that is a position, as one by one', async () => {
    const positions = batched.find((p) => p.name === 'positions')!;
    const accountId = '33333333-3333-4333-8333-333333333333';
    const at = '2026-11-20T10:00:00.000Z';
    const order = {
      orderId: 'X',
      symbol: 'EURUSD',
      orderType: 'BuyLimit',
      volume: 1,
      openPrice: 1.05,
      openTime: at,
      stopLoss: null,
      takeProfit: null,
      expiry: null,
      comment: null,
      magicNumber: null,
      clientOrderId: null,
    };
    const position = (positionId: string) => ({
      positionId,
      symbol: 'EURUSD',
      orderType: 'Buy',
      volume: 1,
      openPrice: 1.05,
      openTime: at,
      stopLoss: null,
      takeProfit: null,
      swap: 0,
      commission: 0,
      comment: null,
      magicNumber: null,
      clientOrderId: null,
    });
    const recorded = (type: string, data: object, i: number): RecordedEvent => ({
      streamId: `positions-${accountId}`,
      id: crypto.randomUUID(),
      revision: BigInt(i),
      type,
      data: { accountId, at, ...data },
      metadata: {},
      created: new Date(at),
      position: { commit: 1n, prepare: BigInt(i + 1) },
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
      expect(oneByOne.positions!.map((r) => JSON.parse(String(r)) as { id: string; kind: string }).map((r) => `${r.id}:${r.kind}`)).to.deep.equal([
        'X:position',
        'Y:position',
      ]);
      // A rebuild's fold, which writes only what is left at the end, in two batches cut here.
      const folded = await build(positions, async (scoped) => {
        const fold = positions.rebuildFold!();
        await fold.apply(scoped, sequence.slice(0, cut));
        await fold.apply(scoped, sequence.slice(cut));
        await fold.finish(scoped);
      });
      expect(folded, `rebuild fold cut after ${cut}`).to.deep.equal(oneByOne);
    }
  });

  it('account logs: a rebuild fold keeps the first line of an id and applies acknowledgements, cut anywhere, as one by one', async () => {
    const logs = batched.find((p) => p.name === 'account_logs')!;
    const project = '12121212-1212-4121-8121-121212121212';
    const account = '34343434-3434-4343-8343-343434343434';
    const at = '2026-11-20T10:00:00.000Z';
    let i = 0;
    const recorded = (type: string, data: object, id = crypto.randomUUID()): RecordedEvent => {
      i++;
      return {
        streamId: `logs-${i}`,
        id,
        revision: 0n,
        type,
        data,
        metadata: {},
        created: new Date(at),
        position: { commit: 1n, prepare: BigInt(i) },
      };
    };
    const connected = (login: string, id?: ReturnType<typeof crypto.randomUUID>) =>
      recorded('VenueConnected', { accountId: account, at, venue: 'sim', login }, id);
    const shared = crypto.randomUUID();
    const sequence = [
      recorded('AccountCreated', { projectId: project, accountId: account, settings: { name: 'a' } }),
      connected('one', shared),
      connected('two'),
      recorded('LogsAcknowledged', { projectId: project, logIds: [2, 3, 8], at }),
      // An event of another stream with the id of an earlier one: its line is left out.
      connected('three', shared),
      connected('four'),
      recorded('AllLogsAcknowledged', { projectId: project, at }),
      connected('five'),
    ];
    const oneByOne = await build(logs, async (scoped) => {
      for (const event of sequence) await logs.apply(scoped, event);
    });
    expect(oneByOne.account_logs).to.have.length(4);
    expect(oneByOne.account_logs!.filter((r) => (JSON.parse(String(r)) as { acknowledged: boolean }).acknowledged)).to.have.length(3);
    for (let cut = 0; cut <= sequence.length; cut++) {
      const folded = await build(logs, async (scoped) => {
        const fold = logs.rebuildFold!();
        await fold.apply(scoped, sequence.slice(0, cut));
        await fold.apply(scoped, sequence.slice(cut));
        await fold.finish(scoped);
      });
      expect(folded, `rebuild fold cut after ${cut}`).to.deep.equal(oneByOne);
    }
  });

  it('audit logs: changes without a project take the project of their key or account, cut anywhere, as one by one', async () => {
    const audit = batched.find((p) => p.name === 'audit_logs')!;
    const project = '77777777-7777-4777-8777-777777777777';
    const account = '88888888-8888-4888-8888-888888888888';
    const key = '99999999-9999-4999-8999-999999999999';
    const at = '2026-11-20T10:00:00.000Z';
    let i = 0;
    const recorded = (type: string, data: object, metadata: object = {}): RecordedEvent => {
      i++;
      return {
        streamId: `audit-${i}`,
        id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        revision: 0n,
        type,
        data,
        metadata: metadata as RecordedEvent['metadata'],
        created: new Date(at),
        position: { commit: 1n, prepare: BigInt(i) },
      };
    };
    const sequence = [
      // Neither the key nor the account is known yet: left out.
      recorded('ApiKeyRenamed', { apiKeyId: key, name: 'early', at }),
      recorded('AccountStopped', { accountId: account, from: 2 }),
      recorded('AccountCreated', { projectId: project, accountId: account, settings: { name: 'a' } }, { projectId: project, apiKeyId: key }),
      recorded('AccountUpdated', { accountId: account, changes: { name: 'b' } }),
      recorded('ApiKeyIssued', { projectId: project, apiKeyId: key, keyHash: 'h', name: 'k', at }, { projectId: project }),
      recorded('ApiKeyRenamed', { apiKeyId: key, name: 'later', at }),
      recorded('AccountStarted', { accountId: account, from: 3 }, { projectId: project, clientIp: '10.0.0.1', receivedAt: at }),
      recorded('ApiKeyRevoked', { apiKeyId: key, at }),
    ];
    const oneByOne = await build(audit, async (scoped) => {
      for (const event of sequence) await audit.apply(scoped, event);
    });
    expect(oneByOne.audit_logs).to.have.length(6);
    for (let cut = 0; cut <= sequence.length; cut++) {
      const split = await build(audit, async (scoped) => {
        await audit.applyBatch!(scoped, sequence.slice(0, cut));
        await audit.applyBatch!(scoped, sequence.slice(cut));
      });
      expect(split, `cut after ${cut}`).to.deep.equal(oneByOne);
    }
  });

  it('copies: retries, deferrals, a close seen before its copy, fills, partial closes (recorded) and old closures, cut anywhere, as one by one', async () => {
    const copies = batched.find((p) => p.name === 'copies')!;
    const copier = '44444444-4444-4444-8444-444444444444';
    const master = '55555555-5555-4555-8555-555555555555';
    const slave = '66666666-6666-4666-8666-666666666666';
    const day = (d: number, h = 0) => new Date(Date.UTC(2026, 10, d, h)).toISOString();
    let i = 0;
    const recorded = (type: string, data: object): RecordedEvent => {
      i++;
      return {
        streamId: `copies-${copier}`,
        id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        revision: BigInt(i),
        type,
        data,
        metadata: {},
        created: new Date(day(20)),
        position: { commit: 1n, prepare: BigInt(i) },
      };
    };
    const base = (at: string, source: object = { eventId: 'e', position: '1:1', type: 'PositionOpened' }) => ({
      copierId: copier,
      masterAccountId: master,
      slaveAccountId: slave,
      at,
      source,
      masterEventAt: null,
    });
    const open = (m: string, clientOrderId = `c-${m}`) => ({
      type: 'open',
      clientOrderId,
      masterPositionId: m,
      symbol: 'EURUSD',
      orderType: 'Buy',
      volume: 1,
      openPrice: null,
      stopLoss: null,
      takeProfit: null,
      comment: null,
      magicNumber: null,
    });
    const opened = (s: string, at: string, kind = 'position') => ({ type: 'opened', slavePositionId: s, kind, price: 1.1, volume: 1, time: at });
    const trade = (s: string, at: string, profit: number) => ({
      positionId: s,
      tradeId: `t-${s}-${at}`,
      symbol: 'EURUSD',
      orderType: 'Buy',
      volume: 1,
      openPrice: 1.1,
      openTime: at,
      closePrice: 1.2,
      closeTime: at,
      profit,
      swap: 0,
      commission: 0,
      reason: 'manual',
    });
    const deferred = recorded('CopyDeferred', {
      ...base(day(20, 1)),
      masterPositionId: 'm5',
      until: day(20, 2),
      masterEvent: { type: 'PositionOpened' },
      deferredBy: { type: 'LiveDelay' },
      masterEventAt: day(20, 1),
      message: 'later',
      by: 'LiveDelay',
    });
    const sequence = [
      recorded('CopyFailed', { ...base(day(20, 1)), action: open('m1'), code: '[NOT_ENOUGH_MONEY]', message: 'no', retryUntil: day(20, 3) }),
      recorded('CopyFailed', { ...base(day(20, 1)), action: open('m2'), code: '[NOT_ENOUGH_MONEY]', message: 'no', retryUntil: day(20, 3) }),
      recorded('CopyExecuted', { ...base(day(20, 2)), action: open('m1'), result: opened('s1', day(20, 2)) }),
      recorded('TradeSkipped', { ...base(day(20, 3)), masterPositionId: 'm2', reason: 'OPEN_RETRY_EXPIRED', message: 'expired' }),
      // The slave's venue reports s3 closed before the engine records the copy that opened it.
      recorded('PositionClosed', { accountId: slave, at: day(20, 4), trade: trade('s3', day(20, 4), -2) }),
      recorded('CopyExecuted', { ...base(day(20, 4)), action: open('m3'), result: opened('s3', day(20, 4)) }),
      recorded('CopyExecuted', { ...base(day(20, 5)), action: open('m4'), result: opened('o4', day(20, 5), 'pendingOrder') }),
      recorded('PendingOrderFilled', { accountId: slave, at: day(20, 6), order: { orderId: 'o4' }, price: 1.1 }),
      recorded('PositionPartiallyClosed', { accountId: slave, at: day(20, 6), position: { positionId: 'o4', volume: 0.6 }, trade: trade('o4', day(20, 6), 1) }),
      recorded('PositionPartiallyClosed', {
        accountId: slave,
        at: day(20, 6),
        position: { positionId: 'o4', volume: 0.4 },
        trade: trade('o4', day(20, 6), -2),
      }),
      // The slave's venue reports two partial closes of s9 before the engine records the copy that opened it.
      recorded('PositionPartiallyClosed', { accountId: slave, at: day(20, 6), position: { positionId: 's9', volume: 0.7 }, trade: trade('s9', day(20, 6), 2) }),
      recorded('PositionPartiallyClosed', {
        accountId: slave,
        at: day(20, 6),
        position: { positionId: 's9', volume: 0.5 },
        trade: trade('s9', day(20, 6), -1),
      }),
      recorded('CopyExecuted', { ...base(day(20, 6)), action: open('m9'), result: opened('s9', day(20, 6)) }),
      recorded('CopyExecuted', {
        ...base(day(20, 7)),
        action: {
          type: 'partialClose',
          clientOrderId: 'p1',
          masterPositionId: 'm1',
          symbol: 'EURUSD',
          slavePositionId: 's1',
          volume: 0.5,
          remainingVolume: 0.5,
        },
        result: { type: 'closed', volume: 0.5, result: 3, closePrice: 1.2, time: day(20, 7) },
      }),
      deferred,
      recorded('CopyExecuted', {
        ...base(day(20, 8), { eventId: deferred.id, position: '1:1', type: 'Deferral' }),
        action: open('m5'),
        result: opened('s5', day(20, 8)),
      }),
      recorded('PositionClosed', { accountId: slave, at: day(20, 9), trade: trade('s1', day(20, 9), -5) }),
      recorded('CopyExecuted', {
        ...base(day(20, 9)),
        action: { type: 'close', clientOrderId: 'k1', masterPositionId: 'm1', symbol: 'EURUSD', slavePositionId: 's1', volume: 0.5 },
        result: { type: 'closed', volume: 0.5, result: -5, closePrice: 1.2, time: day(20, 9) },
        by: 'FeatureTrailingStopDTO',
      }),
      recorded('CopyExecuted', {
        ...base(day(20, 10)),
        action: { type: 'close', clientOrderId: 'k4', masterPositionId: 'm4', symbol: 'EURUSD', slavePositionId: 'o4', volume: 0.4 },
        result: { type: 'closed', volume: 0.4, result: -1, closePrice: 1.2, time: day(20, 10) },
      }),
      recorded('CopyExecuted', { ...base(day(20, 11)), action: open('m6'), result: opened('o6', day(20, 11), 'pendingOrder') }),
      recorded('PendingOrderCancelled', { accountId: slave, at: day(20, 12), order: { orderId: 'o6' }, reason: 'expired' }),
      // Closures of positions nobody copied: the second, a day and more later, clears the first.
      recorded('PositionClosed', { accountId: slave, at: day(20, 13), trade: trade('x1', day(20, 13), 1) }),
      // Partial closes of positions nobody copied: the second, a day and more later, clears the first.
      recorded('PositionPartiallyClosed', {
        accountId: slave,
        at: day(20, 13),
        position: { positionId: 'x5', volume: 0.5 },
        trade: trade('x5', day(20, 13), 1),
      }),
      recorded('PositionPartiallyClosed', { accountId: slave, at: day(22, 1), position: { positionId: 'x6', volume: 0.5 }, trade: trade('x6', day(22, 1), 1) }),
      recorded('PositionClosed', { accountId: slave, at: day(22, 1), trade: trade('x2', day(22, 1), 1) }),
      recorded('CopyExecuted', { ...base(day(22, 2)), action: open('m7'), result: opened('x2', day(22, 2)) }),
      recorded('CopyExecuted', {
        ...base(day(22, 3)),
        action: { type: 'close', clientOrderId: 'k5', masterPositionId: 'm5', symbol: 'EURUSD', slavePositionId: 's5', volume: 1 },
        result: { type: 'closed', volume: 1, result: 4, closePrice: 1.2, time: day(22, 3) },
      }),
    ];
    const oneByOne = await build(copies, async (scoped) => {
      for (const event of sequence) await copies.apply(scoped, event);
    });
    expect(oneByOne.copies).to.have.length(7);
    // The partial closes of o4 at its venue, each with its volume and net result, in order.
    const o4 = oneByOne
      .copies!.map((r) => JSON.parse(r as string) as { slave_position_id: string; volume: number; partials: unknown })
      .find((r) => r.slave_position_id === 'o4');
    expect(o4).to.deep.include({
      volume: 0.4,
      partials: [
        { volume: 1, result: 1 },
        { volume: 1, result: -2 },
      ],
    });
    // Those of s9, reported before its copy was recorded, are its copy's: kept, in order, with the volume left.
    const s9 = oneByOne
      .copies!.map((r) => JSON.parse(r as string) as { slave_position_id: string; volume: number; partials: unknown; status: string })
      .find((r) => r.slave_position_id === 's9');
    expect(s9).to.deep.include({
      status: 'open',
      volume: 0.5,
      partials: [
        { volume: 1, result: 2 },
        { volume: 1, result: -1 },
      ],
    });
    expect(oneByOne.slave_partials!.map((r) => (JSON.parse(r as string) as { slave_position_id: string }).slave_position_id)).to.deep.equal(['x6']);
    expect(oneByOne.copy_retries).to.have.length(0);
    expect(oneByOne.copy_deferrals).to.have.length(0);
    for (let cut = 0; cut <= sequence.length; cut += 3) {
      const split = await build(copies, async (scoped) => {
        for (const event of sequence.slice(0, cut)) await copies.apply(scoped, event);
        await copies.applyBatch!(scoped, sequence.slice(cut));
      });
      expect(split, `first ${cut} one by one`).to.deep.equal(oneByOne);
    }
    // A rebuild's fold, which reads nothing back, in two batches cut anywhere.
    for (let cut = 0; cut <= sequence.length; cut++) {
      const folded = await build(copies, async (scoped) => {
        const fold = copies.rebuildFold!();
        await fold.apply(scoped, sequence.slice(0, cut));
        await fold.apply(scoped, sequence.slice(cut));
        await fold.finish(scoped);
      });
      expect(folded, `rebuild fold cut after ${cut}`).to.deep.equal(oneByOne);
    }
    // And stopped part-way: retries and deferrals still pending are the same rows too.
    for (const end of [2, 15]) {
      const partOneByOne = await build(copies, async (scoped) => {
        for (const event of sequence.slice(0, end)) await copies.apply(scoped, event);
      });
      const partBatch = await build(copies, (scoped) => copies.applyBatch!(scoped, sequence.slice(0, end)));
      expect(partBatch, `the first ${end}`).to.deep.equal(partOneByOne);
      expect([...partOneByOne.copy_retries!, ...partOneByOne.copy_deferrals!]).to.not.have.length(0);
    }
  });
});
