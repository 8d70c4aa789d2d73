// GET /brokers/{brokerType}/all: the brokers and exchanges of an account type (spec "Operations known by
// path and purpose"; the reference has no such operation). The list is data (app/brokers.ts).
import { Type } from '@sinclair/typebox';
import { listBrokers } from '../../app/brokers.js';
import type { Services } from '../../app/services.js';
import { ApiError } from '../errors.js';
import type { Routes } from '../route.js';
import { errorResponses } from '../shared/schemas.js';
import { toBrokerDTO } from './dto.js';
import { BrokerDTO, BrokerTypeParams } from './schemas.js';

export const brokerRoutes = (routes: Routes, services: Services): void => {
  routes.add<{ brokerType: string }, unknown, unknown>({
    method: 'get',
    path: '/brokers/{brokerType}/all',
    tag: 'Types',
    operationId: 'getBrokersOfType',
    summary: 'The brokers and exchanges of an account type',
    description:
      "brokerType is an account type id, 1 to 17 (GET /types/accountTypes); any other value gives 404 [ACCOUNT_TYPE_NOT_FOUND], the spec's error for an unknown account type. Ours, where both documents are silent: the answer is BrokerDTO (name, servers, source, simulated). Every type lists a curated list shipped with the service (data/brokers/brokers.json: real brokers and exchanges of the platform family the type stands for, their server names where they were known, each list with its sources), then the operator's own entries from DATA_DIR/brokers.json (the same shape: an entry with the name of a shipped one replaces it, replaceShipped: true drops the shipped list of its type; read again whenever the file changes), and last the built-in simulated venue with its servers (Simulated-Demo: hedging; Simulated-Netting-Demo: netting). Until a real adapter exists for a type, every account trades at the simulated venue whatever broker and server it names. Any key may read it.",
    params: BrokerTypeParams,
    responses: { 200: { description: 'the brokers of the type', schema: Type.Array(BrokerDTO) }, ...errorResponses(400, 401, 404) },
    async handler({ params }) {
      const id = /^[0-9]{1,2}$/.test(params.brokerType) ? Number(params.brokerType) : Number.NaN;
      const brokers = Number.isInteger(id) ? listBrokers(id, services.config.dataDir, services.log) : null;
      if (!brokers) throw new ApiError(404, '[ACCOUNT_TYPE_NOT_FOUND]', `account type ${params.brokerType} not found (1 to 17: GET /types/accountTypes)`);
      return { body: brokers.map(toBrokerDTO) };
    },
  });
};
