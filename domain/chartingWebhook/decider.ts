// The charting data aggregate: one alert. It is received once, attempted one attempt after another
// (the attempt numbers follow each other, so two writers of the same attempt meet at the revision), and
// deleted by its account's callers; attempts that finish after a deletion are not recorded.
import { v5 as uuidv5 } from 'uuid';
import type { Decider } from '../shared/command.js';
import { illegalState, notFound } from '../shared/errors.js';
import type { ChartingDataCommand } from './commands.js';
import type { ChartingDataEvent, ChartingStatus } from './events.js';

export interface ChartingData {
  readonly exists: boolean;
  readonly deleted: boolean;
  readonly accountId: string | null;
  readonly attempts: number;
  readonly status: ChartingStatus | null;
}

export const initialState: ChartingData = { exists: false, deleted: false, accountId: null, attempts: 0, status: null };

export const decide = (command: ChartingDataCommand, state: ChartingData): ChartingDataEvent[] => {
  const at = command.metadata.now;
  switch (command.type) {
    case 'ReceiveChartingAlert':
      return state.exists ? [] : [{ type: 'ChartingAlertReceived', data: { ...command.data, at } }];
    case 'RecordChartingAttempt':
      if (!state.exists) throw notFound('[CHARTING_DATA_NOT_FOUND]', `charting data ${command.data.dataId} not found`);
      if (state.deleted || command.data.attempt <= state.attempts) return [];
      if (command.data.attempt !== state.attempts + 1) {
        throw illegalState('[CONCURRENT_MODIFICATION]', `attempt ${command.data.attempt} follows attempt ${state.attempts}`);
      }
      return [{ type: 'ChartingAlertAttempted', data: { ...command.data, at } }];
    case 'DeleteChartingData':
      if (!state.exists || state.deleted || state.accountId !== command.data.accountId) {
        throw notFound('[CHARTING_DATA_NOT_FOUND]', `charting data ${command.data.dataId} not found`);
      }
      return [{ type: 'ChartingDataDeleted', data: { ...command.data, at } }];
    default: {
      const unhandled: never = command;
      throw new Error(`unhandled command ${JSON.stringify(unhandled)}`);
    }
  }
};

export const evolve = (state: ChartingData, event: ChartingDataEvent): ChartingData => {
  switch (event.type) {
    case 'ChartingAlertReceived':
      return { ...state, exists: true, accountId: event.data.accountId };
    case 'ChartingAlertAttempted':
      return { ...state, attempts: event.data.attempt, status: event.data.status };
    case 'ChartingDataDeleted':
      return { ...state, deleted: true };
    default:
      return state;
  }
};

export const chartingDataDecider: Decider<ChartingDataCommand, ChartingDataEvent, ChartingData> = { decide, evolve, initialState };

/** Fixed forever: event ids and client order ids of charting alerts derive from it. */
export const CHARTING_NAMESPACE = '3b7f2c1a-9d4e-4a8b-b6c5-1e0f7a2d9c38';

/** Each event once, whoever decides it again (a retried request, a second instance). */
export const chartingEventId = (event: ChartingDataEvent): string =>
  uuidv5(`${event.data.dataId}/${event.type}/${event.type === 'ChartingAlertAttempted' ? event.data.attempt : ''}`, CHARTING_NAMESPACE);

/** The client order id of an open leg: every attempt places it under the same id, so it opens once. */
export const openLegRequestId = (dataId: string, leg: number): string => uuidv5(`${dataId}/open/${leg}`, CHARTING_NAMESPACE);

/** The client request id of closing one position for an alert. */
export const closeRequestId = (dataId: string, positionId: string): string => uuidv5(`${dataId}/close/${positionId}`, CHARTING_NAMESPACE);

/** The client request id of modifying one position for an alert. */
export const modifyRequestId = (dataId: string, positionId: string): string => uuidv5(`${dataId}/modify/${positionId}`, CHARTING_NAMESPACE);
