// BrokerDTO from the broker catalogue, member by member.
import type { Broker } from '../../domain/broker/catalog.js';

export const toBrokerDTO = (b: Broker) => ({ name: b.name, servers: [...b.servers], source: b.source, simulated: b.simulated });
