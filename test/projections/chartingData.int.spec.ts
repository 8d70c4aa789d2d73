// The charting data read model (issue 22) rebuilt from its events equals the live one.
import { expect } from 'chai';
import type { ChartingDataCommand } from '../../domain/chartingWebhook/commands.js';
import { chartingDataDecider, chartingEventId } from '../../domain/chartingWebhook/decider.js';
import { chartingDataStream } from '../../domain/chartingWebhook/events.js';
import { systemContext } from '../../domain/shared/command.js';
import { projectionByName } from '../../projections/all.js';
import { rebuildProjection } from '../../projections/rebuild.js';
import { handleCommand } from '../../store/commandHandler.js';
import type { Position } from '../../store/port.js';
import { liveReadModels } from '../support/liveReadModels.js';

describe('charting data read model: a rebuild equals the live one', function () {
  this.timeout(120_000);
  const models = liveReadModels();

  it('after alerts received, attempted, retried, refused and deleted', async () => {
    const { db, store, runner } = models;
    let last: Position | null = null;
    const accountId = crypto.randomUUID();
    const projectId = crypto.randomUUID();
    const featureId = crypto.randomUUID();
    const metadata = () => ({ now: new Date().toISOString(), context: { ...systemContext('t'), projectId } });
    const run = async (command: ChartingDataCommand) => {
      last = (await handleCommand(store, chartingDataStream(command.data.dataId), chartingDataDecider, command, { eventId: chartingEventId })).position ?? last;
    };
    const ids = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
    for (const [i, dataId] of ids.entries()) {
      await run({
        type: 'ReceiveChartingAlert',
        data: {
          dataId,
          accountId,
          projectId,
          featureId,
          format: 'TEXT',
          message: `buy EURUSD 0.${i + 1}`,
          alert: {
            action: 'open',
            symbol: 'EURUSD',
            side: 'buy',
            entry: { kind: 'market' },
            sizing: { kind: 'volume', value: 0.1 },
            stopLoss: null,
            takeProfits: [],
            comment: null,
          },
          retryUntil: new Date(Date.now() + 60_000).toISOString(),
        },
        metadata: metadata(),
      });
      const refused = { kind: 'REFUSED' as const, leg: 1, positionId: null, volume: null, code: '[MARKET_CLOSED]', message: 'closed' };
      await run({
        type: 'RecordChartingAttempt',
        data: {
          dataId,
          accountId,
          attempt: 1,
          outcomes: [refused],
          status: 'RETRYING',
          remaining: { openLegs: [1], closePositions: [] },
          nextAttemptAt: new Date().toISOString(),
        },
        metadata: metadata(),
      });
      if (i > 0) {
        const opened = { kind: 'OPENED' as const, leg: 1, positionId: `p${i}`, volume: 0.1, code: null, message: 'Buy 0.1 EURUSD' };
        await run({
          type: 'RecordChartingAttempt',
          data: {
            dataId,
            accountId,
            attempt: 2,
            outcomes: [opened],
            status: 'COMPLETED',
            remaining: { openLegs: [], closePositions: [] },
            nextAttemptAt: null,
          },
          metadata: metadata(),
        });
      }
    }
    await run({ type: 'DeleteChartingData', data: { dataId: ids[2]!, accountId }, metadata: metadata() });
    // An attempt after the deletion is not recorded; the same attempt twice is recorded once.
    await run({
      type: 'RecordChartingAttempt',
      data: { dataId: ids[2]!, accountId, attempt: 3, outcomes: [], status: 'COMPLETED', remaining: { openLegs: [], closePositions: [] }, nextAttemptAt: null },
      metadata: metadata(),
    });
    expect(await runner.waitFor(last!, 20_000)).to.equal(true);
    const snapshot = () => db.selectFrom('charting_data').selectAll().orderBy('id').execute();
    const live = await snapshot();
    expect(live).to.have.length(2);
    expect(live.map((r) => r.status).sort()).to.deep.equal(['COMPLETED', 'RETRYING']);
    expect((live.find((r) => r.status === 'COMPLETED')!.outcomes as unknown[]).length).to.equal(2);
    await rebuildProjection(db, store, projectionByName('charting_data')!);
    expect(await snapshot()).to.deep.equal(live);
  });
});
