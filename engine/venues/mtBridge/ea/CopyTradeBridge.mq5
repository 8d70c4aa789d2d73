//+------------------------------------------------------------------+
//| CopyTradeBridge.mq5                                              |
//| The copy-trading service's MetaTrader 5 bridge (../PROTOCOL.md): |
//| connects out to the service, authenticates with an account-level |
//| API key, sends its book after every trade transaction and        |
//| executes the service's requests, placing nothing whose tag       |
//| (ct:<client order id>) it already holds.                         |
//| Verified against the TypeScript fake terminal of the tests only  |
//| (test/support/fakeTerminal.ts), never in a real terminal.        |
//+------------------------------------------------------------------+
#property copyright "copy-trading service"
#property version   "1.00"
#property strict

#include <Trade\Trade.mqh>
#include "CopyTradeBridgeCommon.mqh"

CTrade   g_trade;
bool     g_dirty = true;            // the book changed since it was last sent
datetime g_lastSentDeals = 0;       // deals after this time go with the next book
ulong    g_seenDeals[];

string MarginCalcModeName(const string name)
  {
   long mode = SymbolInfoInteger(name, SYMBOL_TRADE_CALC_MODE);
   if(mode == SYMBOL_CALC_MODE_FOREX) return "forex";
   if(mode == SYMBOL_CALC_MODE_FOREX_NO_LEVERAGE) return "forexNoLeverage";
   if(mode == SYMBOL_CALC_MODE_CFDLEVERAGE) return "cfdLeverage";
   return "cfd";
  }

string HelloJson()
  {
   long mode = AccountInfoInteger(ACCOUNT_MARGIN_MODE);
   return "{\"type\":\"hello\",\"protocol\":" + IntegerToString(BRIDGE_PROTOCOL) +
          ",\"token\":" + JStr(AccountToken) +
          ",\"platform\":\"MT5\"" +
          ",\"login\":" + JStr(IntegerToString(AccountInfoInteger(ACCOUNT_LOGIN))) +
          ",\"server\":" + JStr(AccountInfoString(ACCOUNT_SERVER)) +
          ",\"company\":" + JStr(AccountInfoString(ACCOUNT_COMPANY)) +
          ",\"currency\":" + JStr(AccountInfoString(ACCOUNT_CURRENCY)) +
          ",\"leverage\":" + IntegerToString(AccountInfoInteger(ACCOUNT_LEVERAGE)) +
          ",\"marginMode\":" + JStr(mode == ACCOUNT_MARGIN_MODE_RETAIL_HEDGING ? "hedging" : "netting") +
          ",\"tradeMode\":" + JStr(TradeModeName()) +
          ",\"build\":" + IntegerToString(TerminalInfoInteger(TERMINAL_BUILD)) + "}";
  }

//--- the book ------------------------------------------------------------------------------------

string PositionJson(const ulong ticket)
  {
   if(!PositionSelectByTicket(ticket)) return "";
   string sym = PositionGetString(POSITION_SYMBOL);
   int d = (int)SymbolInfoInteger(sym, SYMBOL_DIGITS);
   bool isBuy = PositionGetInteger(POSITION_TYPE) == POSITION_TYPE_BUY;
   double commission = 0;
   if(HistorySelectByPosition(PositionGetInteger(POSITION_IDENTIFIER)))
      for(int i = HistoryDealsTotal() - 1; i >= 0; i--) commission += HistoryDealGetDouble(HistoryDealGetTicket(i), DEAL_COMMISSION);
   return "{\"id\":" + JStr(IntegerToString(PositionGetInteger(POSITION_IDENTIFIER))) +
          ",\"symbol\":" + JStr(sym) +
          ",\"side\":" + JStr(SideOfBuy(isBuy)) +
          ",\"volume\":" + JNum(PositionGetDouble(POSITION_VOLUME), 8) +
          ",\"openPrice\":" + DoubleToString(PositionGetDouble(POSITION_PRICE_OPEN), d) +
          ",\"openTime\":" + JStr(IsoUtc((datetime)PositionGetInteger(POSITION_TIME))) +
          ",\"stopLoss\":" + JPriceOrNull(PositionGetDouble(POSITION_SL), d) +
          ",\"takeProfit\":" + JPriceOrNull(PositionGetDouble(POSITION_TP), d) +
          ",\"currentPrice\":" + DoubleToString(PositionGetDouble(POSITION_PRICE_CURRENT), d) +
          ",\"profit\":" + JNum(PositionGetDouble(POSITION_PROFIT), 2) +
          ",\"swap\":" + JNum(PositionGetDouble(POSITION_SWAP), 2) +
          ",\"commission\":" + JNum(commission, 2) +
          ",\"comment\":" + JStrOrNull(PositionGetString(POSITION_COMMENT)) +
          ",\"magic\":" + JInt(PositionGetInteger(POSITION_MAGIC)) + "}";
  }

string OrderTypeName(const long type)
  {
   if(type == ORDER_TYPE_BUY_LIMIT) return "buyLimit";
   if(type == ORDER_TYPE_SELL_LIMIT) return "sellLimit";
   if(type == ORDER_TYPE_BUY_STOP) return "buyStop";
   if(type == ORDER_TYPE_SELL_STOP) return "sellStop";
   return "";
  }

string OrderJson(const ulong ticket)
  {
   if(!OrderSelect(ticket)) return "";
   string type = OrderTypeName(OrderGetInteger(ORDER_TYPE));
   if(type == "") return "";
   string sym = OrderGetString(ORDER_SYMBOL);
   int d = (int)SymbolInfoInteger(sym, SYMBOL_DIGITS);
   datetime expiry = (datetime)OrderGetInteger(ORDER_TIME_EXPIRATION);
   MqlTick tick;
   SymbolInfoTick(sym, tick);
   bool buys = StringFind(type, "buy") == 0;
   return "{\"id\":" + JStr(IntegerToString((long)ticket)) +
          ",\"symbol\":" + JStr(sym) +
          ",\"type\":" + JStr(type) +
          ",\"volume\":" + JNum(OrderGetDouble(ORDER_VOLUME_CURRENT), 8) +
          ",\"openPrice\":" + DoubleToString(OrderGetDouble(ORDER_PRICE_OPEN), d) +
          ",\"openTime\":" + JStr(IsoUtc((datetime)OrderGetInteger(ORDER_TIME_SETUP))) +
          ",\"stopLoss\":" + JPriceOrNull(OrderGetDouble(ORDER_SL), d) +
          ",\"takeProfit\":" + JPriceOrNull(OrderGetDouble(ORDER_TP), d) +
          ",\"expiry\":" + (expiry > 0 ? JStr(IsoUtc(expiry)) : "null") +
          ",\"currentPrice\":" + DoubleToString(buys ? tick.ask : tick.bid, d) +
          ",\"comment\":" + JStrOrNull(OrderGetString(ORDER_COMMENT)) +
          ",\"magic\":" + JInt(OrderGetInteger(ORDER_MAGIC)) + "}";
  }

string BookJson()
  {
   string positions = "", orders = "";
   for(int i = 0; i < PositionsTotal(); i++)
     {
      string p = PositionJson(PositionGetTicket(i));
      if(p != "") positions += (positions == "" ? "" : ",") + p;
     }
   for(int i = 0; i < OrdersTotal(); i++)
     {
      string o = OrderJson(OrderGetTicket(i));
      if(o != "") orders += (orders == "" ? "" : ",") + o;
     }
   return "\"positions\":[" + positions + "],\"orders\":[" + orders + "]";
  }

string CloseReasonName(const long reason)
  {
   if(reason == DEAL_REASON_SL) return "stopLoss";
   if(reason == DEAL_REASON_TP) return "takeProfit";
   if(reason == DEAL_REASON_SO) return "stopOut";
   return "manual";
  }

// An exit deal as a closed volume (MtTrade), with its position's entry; "" for any other deal.
// Selects the position's history: call it outside another history walk.
string TradeJson(const ulong deal)
  {
   if(!HistoryDealSelect(deal)) return "";
   long entry = HistoryDealGetInteger(deal, DEAL_ENTRY);
   if(entry != DEAL_ENTRY_OUT && entry != DEAL_ENTRY_OUT_BY && entry != DEAL_ENTRY_INOUT) return "";
   long positionId = HistoryDealGetInteger(deal, DEAL_POSITION_ID);
   string sym = HistoryDealGetString(deal, DEAL_SYMBOL);
   int d = (int)SymbolInfoInteger(sym, SYMBOL_DIGITS);
   double volume = HistoryDealGetDouble(deal, DEAL_VOLUME);
   double closePrice = HistoryDealGetDouble(deal, DEAL_PRICE);
   datetime closeTime = (datetime)HistoryDealGetInteger(deal, DEAL_TIME);
   double profit = HistoryDealGetDouble(deal, DEAL_PROFIT), swap = HistoryDealGetDouble(deal, DEAL_SWAP), commission = HistoryDealGetDouble(deal, DEAL_COMMISSION);
   long reason = HistoryDealGetInteger(deal, DEAL_REASON);
   double sl = HistoryDealGetDouble(deal, DEAL_SL), tp = HistoryDealGetDouble(deal, DEAL_TP);
   // An exit deal of a buy is a sell.
   bool positionWasBuy = HistoryDealGetInteger(deal, DEAL_TYPE) == DEAL_TYPE_SELL;
   string id = IntegerToString((long)deal);
   double openPrice = 0;
   datetime openTime = 0;
   string comment = "";
   long magic = 0;
   if(HistorySelectByPosition(positionId))
      for(int i = 0; i < HistoryDealsTotal(); i++)
        {
         ulong t = HistoryDealGetTicket(i);
         if(HistoryDealGetInteger(t, DEAL_ENTRY) != DEAL_ENTRY_IN) continue;
         openPrice = HistoryDealGetDouble(t, DEAL_PRICE);
         openTime = (datetime)HistoryDealGetInteger(t, DEAL_TIME);
         comment = HistoryDealGetString(t, DEAL_COMMENT);
         magic = HistoryDealGetInteger(t, DEAL_MAGIC);
         commission += HistoryDealGetDouble(t, DEAL_COMMISSION) * volume / MathMax(HistoryDealGetDouble(t, DEAL_VOLUME), 1e-8);
         break;
        }
   return "{\"id\":" + JStr(id) +
          ",\"positionId\":" + JStr(IntegerToString(positionId)) +
          ",\"symbol\":" + JStr(sym) +
          ",\"side\":" + JStr(SideOfBuy(positionWasBuy)) +
          ",\"volume\":" + JNum(volume, 8) +
          ",\"openPrice\":" + DoubleToString(openPrice, d) +
          ",\"openTime\":" + JStr(IsoUtc(openTime)) +
          ",\"closePrice\":" + DoubleToString(closePrice, d) +
          ",\"closeTime\":" + JStr(IsoUtc(closeTime)) +
          ",\"profit\":" + JNum(profit, 2) +
          ",\"swap\":" + JNum(swap, 2) +
          ",\"commission\":" + JNum(commission, 2) +
          ",\"reason\":" + JStr(CloseReasonName(reason)) +
          ",\"stopLoss\":" + JPriceOrNull(sl, d) +
          ",\"takeProfit\":" + JPriceOrNull(tp, d) +
          ",\"comment\":" + JStrOrNull(comment) +
          ",\"magic\":" + JInt(magic) + "}";
  }

string BalanceJson(const ulong deal)
  {
   if(!HistoryDealSelect(deal)) return "";
   long type = HistoryDealGetInteger(deal, DEAL_TYPE);
   if(type != DEAL_TYPE_BALANCE && type != DEAL_TYPE_CREDIT && type != DEAL_TYPE_BONUS) return "";
   return "{\"id\":" + JStr(IntegerToString((long)deal)) +
          ",\"time\":" + JStr(IsoUtc((datetime)HistoryDealGetInteger(deal, DEAL_TIME))) +
          ",\"amount\":" + JNum(HistoryDealGetDouble(deal, DEAL_PROFIT), 2) +
          ",\"comment\":" + JStrOrNull(HistoryDealGetString(deal, DEAL_COMMENT)) + "}";
  }

// The closed volumes and balance operations between `from` and `to` (server times).
void HistoryJson(const datetime from, const datetime to, string &trades, string &balances)
  {
   trades = "";
   balances = "";
   if(!HistorySelect(from, to)) return;
   ulong deals[];
   int n = HistoryDealsTotal();
   ArrayResize(deals, n);
   for(int i = 0; i < n; i++) deals[i] = HistoryDealGetTicket(i);
   for(int i = 0; i < n; i++)
     {
      string b = BalanceJson(deals[i]);
      if(b != "") { balances += (balances == "" ? "" : ",") + b; continue; }
      string t = TradeJson(deals[i]);
      if(t != "") trades += (trades == "" ? "" : ",") + t;
     }
  }

void SendBook()
  {
   datetime now = TimeTradeServer();
   string trades, balances;
   HistoryJson(g_lastSentDeals, now + 60, trades, balances);
   g_lastSentDeals = now - 1;
   SendLine("{\"type\":\"book\"," + BookJson() + ",\"trades\":[" + trades + "],\"balances\":[" + balances + "],\"account\":" + AccountJson() + "}");
   g_dirty = false;
  }

//--- requests ------------------------------------------------------------------------------------

// The duplicate check: a position, pending order or (last 7 days) deal whose comment is the tag.
string FindTag(const string tag)
  {
   for(int i = 0; i < PositionsTotal(); i++)
     {
      ulong ticket = PositionGetTicket(i);
      if(PositionGetString(POSITION_COMMENT) != tag) continue;
      string sym = PositionGetString(POSITION_SYMBOL);
      int d = (int)SymbolInfoInteger(sym, SYMBOL_DIGITS);
      string id = IntegerToString(PositionGetInteger(POSITION_IDENTIFIER));
      return "{\"status\":\"filled\",\"order\":" + JStr(id) + ",\"position\":" + JStr(id) +
             ",\"price\":" + DoubleToString(PositionGetDouble(POSITION_PRICE_OPEN), d) +
             ",\"volume\":" + JNum(PositionGetDouble(POSITION_VOLUME), 8) +
             ",\"time\":" + JStr(IsoUtc((datetime)PositionGetInteger(POSITION_TIME))) + ",\"existing\":true}";
     }
   for(int i = 0; i < OrdersTotal(); i++)
     {
      ulong ticket = OrderGetTicket(i);
      if(OrderGetString(ORDER_COMMENT) != tag) continue;
      int d = (int)SymbolInfoInteger(OrderGetString(ORDER_SYMBOL), SYMBOL_DIGITS);
      return "{\"status\":\"placed\",\"order\":" + JStr(IntegerToString((long)ticket)) +
             ",\"price\":" + DoubleToString(OrderGetDouble(ORDER_PRICE_OPEN), d) +
             ",\"volume\":" + JNum(OrderGetDouble(ORDER_VOLUME_CURRENT), 8) +
             ",\"time\":" + JStr(IsoUtc((datetime)OrderGetInteger(ORDER_TIME_SETUP))) + ",\"existing\":true}";
     }
   if(HistorySelect(TimeTradeServer() - 7 * 86400, TimeTradeServer() + 60))
      for(int i = HistoryDealsTotal() - 1; i >= 0; i--)
        {
         ulong deal = HistoryDealGetTicket(i);
         if(HistoryDealGetString(deal, DEAL_COMMENT) != tag) continue;
         string sym = HistoryDealGetString(deal, DEAL_SYMBOL);
         int d = (int)SymbolInfoInteger(sym, SYMBOL_DIGITS);
         string position = IntegerToString(HistoryDealGetInteger(deal, DEAL_POSITION_ID));
         return "{\"status\":\"filled\",\"order\":" + JStr(IntegerToString(HistoryDealGetInteger(deal, DEAL_ORDER))) + ",\"position\":" + JStr(position) +
                ",\"price\":" + DoubleToString(HistoryDealGetDouble(deal, DEAL_PRICE), d) +
                ",\"volume\":" + JNum(HistoryDealGetDouble(deal, DEAL_VOLUME), 8) +
                ",\"time\":" + JStr(IsoUtc((datetime)HistoryDealGetInteger(deal, DEAL_TIME))) + ",\"existing\":true}";
        }
   return "";
  }

ENUM_ORDER_TYPE PendingType(const string name)
  {
   if(name == "buyLimit") return ORDER_TYPE_BUY_LIMIT;
   if(name == "sellLimit") return ORDER_TYPE_SELL_LIMIT;
   if(name == "buyStop") return ORDER_TYPE_BUY_STOP;
   return ORDER_TYPE_SELL_STOP;
  }

void Open(const string id, const string line)
  {
   string tag = JsonString(line, "tag");
   string found = FindTag(tag);
   if(found != "") { SendLine(ReplyOk(id, found)); return; }
   string sym = JsonString(line, "symbol");
   if(!SymbolSelect(sym, true)) { SendLine(ReplyFail(id, 4301, "unknown symbol " + sym)); return; }
   string type = JsonString(line, "orderType");
   double volume = JsonDouble(line, "volume", 0);
   double sl = JsonDouble(line, "stopLoss", 0), tp = JsonDouble(line, "takeProfit", 0);
   long magic = (long)JsonDouble(line, "magic", 0);
   g_trade.SetExpertMagicNumber((ulong)magic);
   bool ok;
   if(type == "buy") ok = g_trade.Buy(volume, sym, 0, sl, tp, tag);
   else if(type == "sell") ok = g_trade.Sell(volume, sym, 0, sl, tp, tag);
   else
     {
      string expiry = JsonString(line, "expiry");
      datetime until = expiry == "" ? 0 : ServerTimeOf(expiry);
      ok = g_trade.OrderOpen(sym, PendingType(type), volume, 0, JsonDouble(line, "price", 0), sl, tp,
                             until == 0 ? ORDER_TIME_GTC : ORDER_TIME_SPECIFIED, until, tag);
     }
   uint retcode = g_trade.ResultRetcode();
   if(!ok || (retcode != TRADE_RETCODE_DONE && retcode != TRADE_RETCODE_PLACED && retcode != TRADE_RETCODE_DONE_PARTIAL))
     {
      SendLine(ReplyFail(id, (int)retcode, g_trade.ResultRetcodeDescription()));
      return;
     }
   int d = (int)SymbolInfoInteger(sym, SYMBOL_DIGITS);
   string now = JStr(IsoUtc(TimeTradeServer()));
   if(type == "buy" || type == "sell")
     {
      ulong deal = g_trade.ResultDeal();
      string position = "null";
      if(HistoryDealSelect(deal)) position = JStr(IntegerToString(HistoryDealGetInteger(deal, DEAL_POSITION_ID)));
      SendLine(ReplyOk(id, "{\"status\":\"filled\",\"order\":" + JStr(IntegerToString((long)g_trade.ResultOrder())) + ",\"position\":" + position +
                             ",\"price\":" + DoubleToString(g_trade.ResultPrice(), d) + ",\"volume\":" + JNum(g_trade.ResultVolume(), 8) + ",\"time\":" + now + "}"));
     }
   else
      SendLine(ReplyOk(id, "{\"status\":\"placed\",\"order\":" + JStr(IntegerToString((long)g_trade.ResultOrder())) +
                             ",\"price\":" + DoubleToString(JsonDouble(line, "price", 0), d) + ",\"volume\":" + JNum(volume, 8) + ",\"time\":" + now + "}"));
  }

void Modify(const string id, const string line)
  {
   string tag = JsonString(line, "tag"), done;
   if(DoneLookup(tag, done)) { SendLine(ReplyOk(id, done)); return; }
   ulong ticket = (ulong)StringToInteger(JsonString(line, "id"));
   bool ok;
   string result;
   if(PositionSelectByTicket(ticket))
     {
      double sl = JsonHas(line, "stopLoss") ? JsonDouble(line, "stopLoss", 0) : PositionGetDouble(POSITION_SL);
      double tp = JsonHas(line, "takeProfit") ? JsonDouble(line, "takeProfit", 0) : PositionGetDouble(POSITION_TP);
      ok = g_trade.PositionModify(ticket, sl, tp);
      if(ok && JsonHas(line, "volume") && JsonDouble(line, "volume", 0) < PositionGetDouble(POSITION_VOLUME))
         ok = g_trade.PositionClosePartial(ticket, PositionGetDouble(POSITION_VOLUME) - JsonDouble(line, "volume", 0));
      result = "{\"position\":" + PositionJson(ticket) + "}";
     }
   else if(OrderSelect(ticket))
     {
      double price = JsonHas(line, "price") ? JsonDouble(line, "price", 0) : OrderGetDouble(ORDER_PRICE_OPEN);
      double sl = JsonHas(line, "stopLoss") ? JsonDouble(line, "stopLoss", 0) : OrderGetDouble(ORDER_SL);
      double tp = JsonHas(line, "takeProfit") ? JsonDouble(line, "takeProfit", 0) : OrderGetDouble(ORDER_TP);
      ok = g_trade.OrderModify(ticket, price, sl, tp, (ENUM_ORDER_TYPE_TIME)OrderGetInteger(ORDER_TYPE_TIME), (datetime)OrderGetInteger(ORDER_TIME_EXPIRATION));
      result = "{\"order\":" + OrderJson(ticket) + "}";
     }
   else { SendLine(ReplyFail(id, 10036, "no position or order " + IntegerToString((long)ticket))); return; }
   if(!ok) { SendLine(ReplyFail(id, (int)g_trade.ResultRetcode(), g_trade.ResultRetcodeDescription())); return; }
   DoneRemember(tag, result);
   SendLine(ReplyOk(id, result));
  }

void Close(const string id, const string line)
  {
   string tag = JsonString(line, "tag"), done;
   if(DoneLookup(tag, done)) { SendLine(ReplyOk(id, done)); return; }
   ulong ticket = (ulong)StringToInteger(JsonString(line, "id"));
   if(!PositionSelectByTicket(ticket)) { SendLine(ReplyFail(id, 10036, "no position " + IntegerToString((long)ticket))); return; }
   bool ok = JsonIsNull(line, "volume") || !JsonHas(line, "volume")
             ? g_trade.PositionClose(ticket)
             : g_trade.PositionClosePartial(ticket, JsonDouble(line, "volume", 0));
   if(!ok || g_trade.ResultRetcode() != TRADE_RETCODE_DONE) { SendLine(ReplyFail(id, (int)g_trade.ResultRetcode(), g_trade.ResultRetcodeDescription())); return; }
   string result = TradeJson(g_trade.ResultDeal());
   DoneRemember(tag, result);
   SendLine(ReplyOk(id, result));
  }

void Cancel(const string id, const string line)
  {
   string tag = JsonString(line, "tag"), done;
   if(DoneLookup(tag, done)) { SendLine(ReplyOk(id, done)); return; }
   ulong ticket = (ulong)StringToInteger(JsonString(line, "id"));
   string order = OrderJson(ticket);
   if(order == "") { SendLine(ReplyFail(id, 10013, "no pending order " + IntegerToString((long)ticket))); return; }
   if(!g_trade.OrderDelete(ticket)) { SendLine(ReplyFail(id, (int)g_trade.ResultRetcode(), g_trade.ResultRetcodeDescription())); return; }
   DoneRemember(tag, order);
   SendLine(ReplyOk(id, order));
  }

void OnBridgeLine(const string line)
  {
   if(BridgeControl(line)) return;
   if(JsonString(line, "type") != "request") return;
   string id = JsonString(line, "id");
   string op = JsonString(line, "op");
   if(op == "account") SendLine(ReplyOk(id, AccountJson()));
   else if(op == "book") SendLine(ReplyOk(id, "{" + BookJson() + "}"));
   else if(op == "history")
     {
      string trades, balances;
      HistoryJson(ServerTimeOf(JsonString(line, "from")), ServerTimeOf(JsonString(line, "to")), trades, balances);
      SendLine(ReplyOk(id, "{\"trades\":[" + trades + "],\"balances\":[" + balances + "]}"));
     }
   else if(op == "open") Open(id, line);
   else if(op == "modify") Modify(id, line);
   else if(op == "close") Close(id, line);
   else if(op == "cancel") Cancel(id, line);
   else if(op == "symbols") SendLine(ReplyOk(id, SymbolsJson()));
   else if(op == "quote")
     {
      string q = QuoteJson(JsonString(line, "symbol"));
      SendLine(q == "" ? ReplyFail(id, 4301, "unknown symbol") : ReplyOk(id, q));
     }
   else if(op == "margin")
     {
      double margin = 0;
      string sym = JsonString(line, "symbol");
      bool isBuy = JsonString(line, "side") == "buy";
      MqlTick tick;
      SymbolInfoTick(sym, tick);
      if(!OrderCalcMargin(isBuy ? ORDER_TYPE_BUY : ORDER_TYPE_SELL, sym, JsonDouble(line, "volume", 0), isBuy ? tick.ask : tick.bid, margin))
         SendLine(ReplyFail(id, 4301, "no margin for " + sym));
      else SendLine(ReplyOk(id, "{\"margin\":" + JNum(margin, 2) + "}"));
     }
   else SendLine(ReplyFail(id, 10013, "unknown op " + op));
  }

//--- events --------------------------------------------------------------------------------------

int OnInit()
  {
   if(AccountToken == "") { Alert("CopyTradeBridge: set AccountToken (an account-level API key of the service)"); return INIT_PARAMETERS_INCORRECT; }
   MathSrand((uint)GetTickCount());
   g_trade.SetAsyncMode(false);
   g_lastSentDeals = TimeTradeServer();
   EventSetMillisecondTimer(100);
   return INIT_SUCCEEDED;
  }

void OnDeinit(const int reason)
  {
   EventKillTimer();
   if(g_socket != INVALID_HANDLE) { uchar none[]; WsSendFrame(0x8, none, 0); SocketClose(g_socket); }
   g_socket = INVALID_HANDLE;
  }

void OnTimer()
  {
   if(!BridgeEnsureConnected(HelloJson())) return;
   BridgePoll();
   if(g_welcomed && g_dirty) SendBook();
  }

void OnTradeTransaction(const MqlTradeTransaction &trans, const MqlTradeRequest &request, const MqlTradeResult &result)
  {
   // Any change of deals, orders or positions: the book goes at the next timer tick, with the new deals.
   g_dirty = true;
  }
