// The charting data aggregate (domain/chartingWebhook/decider.ts): an alert is received once, its
// attempts follow each other, and nothing is recorded of it after its deletion.
import { chartingDataDecider } from '../../../domain/chartingWebhook/decider.js';
import type { ChartingDataEvent } from '../../../domain/chartingWebhook/events.js';
import { systemContext } from '../../../domain/shared/command.js';
import { givenDecider } from '../givenDecider.js';

const given = givenDecider(chartingDataDecider);
const AT = '2026-01-07T10:00:00.000Z';
const metadata = { now: AT, context: systemContext('t') };
const IDS = { dataId: 'd1', accountId: 'a1' };
const received: ChartingDataEvent = {
  type: 'ChartingAlertReceived',
  data: { ...IDS, at: AT, projectId: 'p1', featureId: 'f1', format: 'TEXT', message: 'close EURUSD', alert: null, retryUntil: null },
};
const attempt = (n: number) => ({
  ...IDS,
  attempt: n,
  outcomes: [],
  status: 'RETRYING' as const,
  remaining: { openLegs: [1], closePositions: [] },
  nextAttemptAt: null,
});

describe('charting data aggregate', () => {
  it('records a received alert once', () => {
    const { type: _type, data } = received;
    const { at: _at, ...command } = data as Extract<ChartingDataEvent, { type: 'ChartingAlertReceived' }>['data'];
    given([]).when({ type: 'ReceiveChartingAlert', data: command, metadata }).then([received]);
    given([received]).when({ type: 'ReceiveChartingAlert', data: command, metadata }).then([]);
  });

  it('records attempts in order; an attempt decided twice is recorded once', () => {
    given([received])
      .when({ type: 'RecordChartingAttempt', data: attempt(1), metadata })
      .then([{ type: 'ChartingAlertAttempted', data: { ...attempt(1), at: AT } }]);
    const first: ChartingDataEvent = { type: 'ChartingAlertAttempted', data: { ...attempt(1), at: AT } };
    given([received, first])
      .when({ type: 'RecordChartingAttempt', data: attempt(1), metadata })
      .then([]);
    given([received, first])
      .when({ type: 'RecordChartingAttempt', data: attempt(3), metadata })
      .thenRefuses('[CONCURRENT_MODIFICATION]', 'conflict');
  });

  it('records nothing after the deletion, and refuses a second deletion or one through another account', () => {
    const deleted: ChartingDataEvent = { type: 'ChartingDataDeleted', data: { ...IDS, at: AT } };
    given([received]).when({ type: 'DeleteChartingData', data: IDS, metadata }).then([deleted]);
    given([received])
      .when({ type: 'DeleteChartingData', data: { ...IDS, accountId: 'other' }, metadata })
      .thenRefuses('[CHARTING_DATA_NOT_FOUND]', 'notFound');
    given([received, deleted])
      .when({ type: 'RecordChartingAttempt', data: attempt(1), metadata })
      .then([]);
    given([received, deleted]).when({ type: 'DeleteChartingData', data: IDS, metadata }).thenRefuses('[CHARTING_DATA_NOT_FOUND]', 'notFound');
  });
});
