// Deleting an alert's charting data (spec: DELETE /webhooks/charting/accounts/{accountId}/data/{dataId}).
// A deleted alert is no longer retried: its row leaves the read model the retry job reads, and the
// aggregate records no attempt after the deletion.
import { chartingDataDecider, chartingEventId } from '../../domain/chartingWebhook/decider.js';
import { chartingDataStream } from '../../domain/chartingWebhook/events.js';
import type { RequestContext } from '../../domain/shared/command.js';
import { handleCommand } from '../../store/commandHandler.js';
import { commandMetadata, readYourWrites, type Services } from '../services.js';

export const deleteChartingData = async (services: Services, target: { readonly accountId: string; readonly dataId: string }, context: RequestContext) => {
  const result = await handleCommand(
    services.store,
    chartingDataStream(target.dataId),
    chartingDataDecider,
    { type: 'DeleteChartingData', data: target, metadata: commandMetadata(services, context) },
    { eventId: chartingEventId },
  );
  if (result.position) await readYourWrites(services, result.position, chartingDataStream(target.dataId));
};
