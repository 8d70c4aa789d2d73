// BrokerDTO (ours: the spec names GET /brokers/{brokerType}/all, "all brokers of a type", and neither
// document shows its answer).
import { Type } from '@sinclair/typebox';

export const BrokerDTO = Type.Object(
  {
    name: Type.String({ description: 'the broker or exchange' }),
    servers: Type.Array(Type.String(), {
      description:
        'server names as an account sends them in loginServer (a MetaTrader server, a platform API host); empty when the platform has none to choose or none were known',
    }),
    source: Type.String({
      description:
        'where the entry comes from: the curated list shipped with the service and its sources, the operator (DATA_DIR/brokers.json), or the built-in simulated venue',
    }),
    simulated: Type.Boolean({ description: 'true for the built-in simulated venue, listed under every account type' }),
  },
  {
    $id: 'BrokerDTO',
    additionalProperties: false,
    description: 'Ours: a broker or exchange of an account type, with its servers and where the entry comes from.',
  },
);

export const BrokerTypeParams = Type.Object(
  { brokerType: Type.String({ description: 'an account type id, 1 to 17 (GET /types/accountTypes)' }) },
  { additionalProperties: false },
);
