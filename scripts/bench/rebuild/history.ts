// A generated, realistic history for the rebuild benchmark, in the real event shapes of domain/*/events.ts:
// one project and its key; masters, each followed by slaves through copiers (created and started by
// API requests, with the request context in the metadata); the masters trade (requests, opens, stop
// changes, partial and full closes, a few pending orders) and the engine copies every trade to each
// slave (CopyExecuted, the slave's own venue events) or skips it with a reason; a data collector
// samples some accounts. Seeded, so every run rebuilds the same history.
import { randomUUID } from 'node:crypto';
import { AccountStatus } from '../../../domain/account/enums.js';
import { defaultCopierSettings } from '../../../domain/copier/settings.js';
import { closeTrade, modifyTrade, openTrade, pendingOrder } from './historyTrades.js';
import { History, type HistoryEvent, type Master, SYMBOLS } from './historyWriter.js';

export type { HistoryEvent } from './historyWriter.js';

export interface HistoryShape {
  readonly masters: number;
  readonly slavesPerMaster: number;
  /** Accounts with a data collector. */
  readonly sampledAccounts: number;
}

/** Yields at least `total` events (a trade's copies are never cut off), in the order they are appended. */
export function* generateHistory(total: number, shape: HistoryShape, seed = 42): Generator<HistoryEvent> {
  const h = new History(seed);
  yield* projectAndKey(h);
  yield* mastersAndSlaves(h, shape);
  yield* dataCollectors(h, shape.sampledAccounts);
  while (h.count < total) yield* step(h);
}

function* projectAndKey(h: History): Generator<HistoryEvent> {
  const { projectId, apiKeyId } = h;
  yield h.make(`project-${projectId}`, { type: 'ProjectCreated', data: { projectId, name: 'Bench', owner: null, at: h.now() } }, h.api('POST', '/projects'));
  yield h.make(
    `apiKey-${apiKeyId}`,
    {
      type: 'ApiKeyIssued',
      data: {
        apiKeyId,
        projectId,
        accountId: null,
        level: 'PROJECT',
        keyType: 'INTEGRATION',
        name: 'bench',
        keyHash: 'a'.repeat(64),
        keyPrefix: 'ct_bench',
        expiresAt: null,
        at: h.now(),
      },
    },
    h.api('POST', `/projects/${projectId}/apiKeys`),
  );
}

/** An account created, started, connected and funded; returns its id. */
function* openAccount(h: History, alias: string): Generator<HistoryEvent, string> {
  const accountId = randomUUID();
  h.accounts.push(accountId);
  yield h.make(
    `account-${accountId}`,
    {
      type: 'AccountCreated',
      data: {
        accountId,
        projectId: h.projectId,
        at: h.now(),
        settings: {
          loginServer: 'Bench-Demo',
          loginAccountNumber: String(500000 + h.accounts.length),
          passwordCiphertext: 'v1:bench:' + 'x'.repeat(40),
          alias,
          accountTypeId: 1,
          regionId: 2,
          propFirm: false,
          tradingDisabled: false,
          nativeMode: false,
          closeUnmanagedPositions: false,
          dedicatedIp: null,
          myHomeIp: null,
          labels: [],
          skipCredentialCheck: false,
          ctraderClientId: null,
          ctraderClientSecretCiphertext: null,
          proxy: null,
        },
      },
    },
    h.api('POST', '/accounts'),
  );
  yield h.make(
    `account-${accountId}`,
    { type: 'AccountStarted', data: { accountId, from: AccountStatus.New, at: h.now() } },
    h.api('POST', `/accounts/${accountId}/actions/start`),
  );
  yield h.make(
    `positions-${accountId}`,
    { type: 'VenueConnected', data: { accountId, at: h.now(), venue: 'simulated', login: `Bench-Demo/${500000 + h.accounts.length}` } },
    h.venue(accountId),
  );
  yield h.make(
    `positions-${accountId}`,
    {
      type: 'BalanceChanged',
      data: { accountId, at: h.now(), operation: { operationId: String(h.nextId++), time: h.now(), amount: 10_000, comment: 'initial deposit' } },
    },
    h.venue(accountId),
  );
  h.tick(50);
  return accountId;
}

/** Each master and its slaves, each slave following through a copier of its own. */
function* mastersAndSlaves(h: History, shape: HistoryShape): Generator<HistoryEvent> {
  for (let m = 0; m < shape.masters; m++) {
    const master: Master = { id: yield* openAccount(h, `master ${m}`), slaves: [], open: [] };
    for (let s = 0; s < shape.slavesPerMaster; s++) {
      const accountId = yield* openAccount(h, `slave ${m}.${s}`);
      const copierId = randomUUID();
      const settings = { ...defaultCopierSettings, multiplier: 1 + (s % 3) };
      yield h.make(
        `copier-${copierId}`,
        { type: 'CopierCreated', data: { copierId, projectId: h.projectId, fromAccountId: master.id, toAccountId: accountId, settings, at: h.now() } },
        h.api('POST', `/accounts/${accountId}/copiers`),
      );
      if (h.rnd() < 0.1) {
        yield h.make(
          `copier-${copierId}`,
          { type: 'CopierUpdated', data: { copierId, toAccountId: accountId, changes: { maxLotSize: 1 }, at: h.now() } },
          h.api('PATCH', `/accounts/${accountId}/copiers/${copierId}`),
        );
      }
      master.slaves.push({ accountId, copierId });
    }
    h.masters.push(master);
  }
}

function* dataCollectors(h: History, sampledAccounts: number): Generator<HistoryEvent> {
  h.sampled = h.accounts.slice(0, sampledAccounts);
  for (const accountId of h.sampled) {
    const featureId = randomUUID();
    yield h.make(
      `feature-${featureId}`,
      {
        type: 'FeatureAdded',
        data: {
          featureId,
          projectId: h.projectId,
          scope: { kind: 'account', accountId },
          setting: {
            type: 'FeatureDataCollectorDTO',
            activateDataCollector: true,
            collectionIntervalSeconds: 60,
            recordBalance: true,
            recordEquity: true,
            recordFloatingPnL: true,
            normalizeValues: false,
            retentionDays: null,
          },
          at: h.now(),
        },
      },
      h.api('POST', `/accounts/${accountId}/features`),
    );
  }
}

/** Some time passes; now and then a sample; a master opens a trade, or changes or closes one of its open trades. */
function* step(h: History): Generator<HistoryEvent> {
  const master = h.masters[Math.floor(h.rnd() * h.masters.length)]!;
  h.tick(200 + Math.floor(h.rnd() * 800));
  if (h.sampled.length && h.rnd() < 0.3) yield sample(h);
  const roll = h.rnd();
  if (master.open.length < 3 && (master.open.length === 0 || roll < 0.45)) {
    const symbolIndex = Math.floor(h.rnd() * SYMBOLS.length);
    if (h.rnd() < 0.04) yield* pendingOrder(h, master, symbolIndex);
    else yield* openTrade(h, master, symbolIndex);
    return;
  }
  const index = Math.floor(h.rnd() * master.open.length);
  const trade = master.open[index]!;
  const { price, digits } = SYMBOLS[trade.symbolIndex]!;
  const move = Number((price * (1 + (h.rnd() - 0.5) * 0.004)).toFixed(digits));
  const action = h.rnd();
  if (action < 0.25) yield* modifyTrade(h, master, trade);
  else yield* closeTrade(h, master, index, move, action < 0.45 && trade.position.volume >= 0.04);
}

/** One sample per account and minute, the start of the minute, as the data collector takes them. */
const sample = (h: History): HistoryEvent => {
  const accountId = h.sampled[Math.floor(h.rnd() * h.sampled.length)]!;
  const at = Math.max((h.lastSample.get(accountId) ?? 0) + 60_000, Math.floor(h.clock / 60_000) * 60_000);
  h.lastSample.set(accountId, at);
  const balance = 10_000 + Math.round(h.rnd() * 2000);
  return h.make(
    `samples-${accountId}`,
    { type: 'AccountSampled', data: { accountId, at: new Date(at).toISOString(), balance, equity: balance - 12.5, floatingPnl: -12.5, margin: 108.5 } },
    { correlationId: `sample:${accountId}`, receivedAt: h.now() },
  );
};
