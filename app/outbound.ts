// What the use cases offer the API about the service's outgoing HTTP: the guard every URL a client
// gives is checked with (callbacks, webhooks; engine/delivery/outboundUrl.ts), and the deliveries of a
// webhook as the durable outbox records them. The API reaches the engine's delivery through here only.
import { type DeliveryStatus, Outbox, type WebhookDeliveryRow } from '../engine/delivery/outbox.js';
import type { Services } from './services.js';

export { checkOutboundUrl, OutboundUrlError, type OutboundRefusal, parseOutboundUrl } from '../engine/delivery/outboundUrl.js';
export type { DeliveryStatus, WebhookDeliveryRow };

/** A webhook's deliveries, newest first (finished ones are kept 7 days). */
export const webhookDeliveries = (
  services: Services,
  featureId: string,
  options: { readonly limit: number; readonly status?: DeliveryStatus; readonly accountId?: string },
): Promise<WebhookDeliveryRow[]> => Outbox.deliveries(services.db, featureId, options);
