// Where master symbols go at a slave account, now (reference SymbolMappingDTO as "mappings in
// effect"): for a copier (GET .../copiers/{copierId}/symbolMappings/current) and for an account and a
// list of symbols (POST /accounts/{accountId}/symbolMappings). The same resolution as the copy engine's
// (domain/copy/symbolMapping.ts): the copier's own mappings, the project's mappings that apply to the
// two brokers (loginServer), then the name.
import { resolveSymbol, type SymbolResolution } from '../domain/copy/symbolMapping.js';
import { mappingsBetween } from '../projections/symbolMappings/queries.js';
import type { Services } from './services.js';

export interface MappingInEffect {
  readonly masterSymbol: string;
  readonly brokerFrom: string;
  readonly brokerTo: string;
  readonly resolution: SymbolResolution;
}

/**
 * The symbols an account trades: its broker's list when it is connected, else the built-in venue's
 * catalogue. Both through the venue sessions (on whichever instance holds them), never the venue itself.
 */
export const symbolsOfAccount = async (services: Pick<Services, 'connections'>, accountId: string): Promise<string[]> => {
  const connection = services.connections.connection(accountId);
  return (connection ? await connection.symbols() : await services.connections.catalogueSymbols()).map((s) => s.symbol);
};

export const mappingsInEffect = async (
  services: Pick<Services, 'db' | 'connections'>,
  request: {
    readonly projectId: string;
    readonly masterSymbols: readonly string[];
    /** The master's broker (loginServer); '' when not known. */
    readonly brokerFrom: string;
    readonly slave: { readonly id: string; readonly login_server: string };
    /** The copier's own mappings, master symbol to slave symbol. */
    readonly overrides?: Readonly<Record<string, string>>;
  },
): Promise<MappingInEffect[]> => {
  const slaveSymbols = await symbolsOfAccount(services, request.slave.id);
  const mappings = await mappingsBetween(services.db, request.projectId, request.brokerFrom, request.slave.login_server);
  return request.masterSymbols.map((masterSymbol) => ({
    masterSymbol,
    brokerFrom: request.brokerFrom,
    brokerTo: request.slave.login_server,
    resolution: resolveSymbol(masterSymbol, slaveSymbols, request.overrides ?? {}, mappings),
  }));
};
