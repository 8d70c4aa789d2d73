// The symbols of an account and their prices (Trading API): GET .../symbols (the reference's SymbolDTO),
// GET .../symbols/{symbol} (SymbolInfoDTO), GET .../quote/{symbol} (MarketQuoteDTO).
import { type Static, Type } from '@sinclair/typebox';
import { AccountIdParams } from '../accounts/schemas.js';
import type { Routes } from '../route.js';
import type { TradingRequests } from './requests.js';
import { tradingErrors } from './positions.js';
import { MarketQuoteDTO, QuoteQuery, SymbolDTO, SymbolInfoDTO, SymbolParams } from './schemas.js';
import { symbolInfoView, symbolView } from './views.js';

export const symbolRoutes = (routes: Routes, { session }: TradingRequests): void => {
  routes.add<{ accountId: string }, unknown, unknown>({
    method: 'get',
    path: '/accounts/{accountId}/symbols',
    tag: 'Trading',
    operationId: 'symbols',
    summary: 'The symbols the account can trade',
    description: "Read from the broker now, by name. GET .../symbols/{symbol} gives one symbol's whole trading specification.",
    params: AccountIdParams,
    responses: { 200: { description: 'the symbols', schema: Type.Array(SymbolDTO) }, ...tradingErrors },
    async handler({ params, caller }) {
      const { connection } = await session(caller, params.accountId, false);
      const symbols = [...(await connection.symbols())].sort((a, b) => a.symbol.localeCompare(b.symbol));
      return { body: symbols.map(symbolView) };
    },
  });

  routes.add<{ accountId: string; symbol: string }, Static<typeof QuoteQuery>, unknown>({
    method: 'get',
    path: '/accounts/{accountId}/quote/{symbol}',
    tag: 'Trading',
    operationId: 'quote',
    summary: 'Bid and ask of a symbol now',
    description: 'symbolInfo is filled only with includeSymbolInfo=true. An unknown symbol gives 404 [SYMBOL_NOT_FOUND].',
    params: SymbolParams,
    query: QuoteQuery,
    responses: { 200: { description: 'the quote', schema: MarketQuoteDTO }, ...tradingErrors },
    async handler({ params, caller, query }) {
      const { connection } = await session(caller, params.accountId, false);
      const quote = await connection.quote(params.symbol);
      const symbolInfo = query.includeSymbolInfo ? symbolInfoView(await connection.symbolInfo(params.symbol)) : null;
      return { body: { symbol: quote.symbol, bid: quote.bid, ask: quote.ask, timestamp: quote.time, symbolInfo } };
    },
  });

  routes.add<{ accountId: string; symbol: string }, unknown, unknown>({
    method: 'get',
    path: '/accounts/{accountId}/symbols/{symbol}',
    tag: 'Trading',
    operationId: 'symbol',
    summary: 'One symbol of the account: its trading specification',
    description: 'An unknown symbol gives 404 [SYMBOL_NOT_FOUND].',
    params: SymbolParams,
    responses: { 200: { description: 'the symbol', schema: SymbolInfoDTO }, ...tradingErrors },
    async handler({ params, caller }) {
      const { connection } = await session(caller, params.accountId, false);
      return { body: symbolInfoView(await connection.symbolInfo(params.symbol)) };
    },
  });
};
