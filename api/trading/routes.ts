// The Trading API (spec: "Positions and orders" and the Trading API rows of "Accounts"): positions and
// pending orders, orders, closeAllPositions (an account's and a project's), history, information, quote,
// symbols. It talks to the account's live venue session (app/trading/session.ts); every trading request
// is recorded as TradeRequested (the audit log says who asked), a refusal as TradeRequestRejected (the
// account logs say why), both through the recorder (domain/positions/requests.ts), and the venue's
// changes arrive as events of their own.
import type { Routes } from '../route.js';
import type { Services } from '../../app/services.js';
import { positionRoutes } from './positions.js';
import { projectTradingRoutes } from './projectRoutes.js';
import { tradingRequests } from './requests.js';
import { symbolRoutes } from './symbols.js';

export const tradingRoutes = (routes: Routes, services: Services): void => {
  const trading = tradingRequests(services);
  positionRoutes(routes, services, trading);
  projectTradingRoutes(routes, services, trading);
  symbolRoutes(routes, trading);
};
