import type { CommandMetadata } from '../shared/command.js';
import type { ChartingDataEvent } from './events.js';

type DataOf<T extends ChartingDataEvent['type']> = Omit<Extract<ChartingDataEvent, { type: T }>['data'], 'at'>;

export type ChartingDataCommand =
  | { type: 'ReceiveChartingAlert'; data: DataOf<'ChartingAlertReceived'>; metadata: CommandMetadata }
  | { type: 'RecordChartingAttempt'; data: DataOf<'ChartingAlertAttempted'>; metadata: CommandMetadata }
  | { type: 'DeleteChartingData'; data: { readonly dataId: string; readonly accountId: string }; metadata: CommandMetadata };
