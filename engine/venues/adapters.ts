// The real venue adapters the service knows, by the name ACCOUNT_TYPE_VENUES uses (engine/venues/registry.ts).
// One line per adapter.
import { ccxtAdapter } from './ccxt/adapter.js';
import { ctraderAdapter } from './ctrader/adapter.js';
import type { VenueAdapter } from './registry.js';
import { mtBridgeAdapter } from './mtBridge/adapter.js';

export const VENUE_ADAPTERS: Readonly<Record<string, VenueAdapter>> = {
  ccxt: ccxtAdapter as VenueAdapter,
  ctrader: ctraderAdapter as VenueAdapter,
  mtbridge: mtBridgeAdapter as VenueAdapter,
};
