//+------------------------------------------------------------------+
//| CopyTradeBridge.mq4                                              |
//| The copy-trading service's MetaTrader 4 bridge (../PROTOCOL.md). |
//| MT4 has no trade transactions: the EA compares its book every    |
//| timer tick and sends it when it changed. A ticket is a position; |
//| a partial close closes the ticket and opens a new one for the    |
//| rest, which the service sees as a close and a new position.      |
//| Needs a build with the socket functions (SocketCreate...).       |
//| Verified against the TypeScript fake terminal of the tests only  |
//| (test/support/fakeTerminal.ts), never in a real terminal.        |
//+------------------------------------------------------------------+
#property copyright "copy-trading service"
#property version   "1.00"
#property strict

#include "CopyTradeBridgeCommon.mqh"

input int Slippage = 10; // points

string g_lastBook = "";     // the book last sent, to send it again only when it changed
int    g_historyCount = 0;  // OrdersHistoryTotal() when the book was last sent

string MarginCalcModeName(const string name)
  {
   long mode = SymbolInfoInteger(name, SYMBOL_TRADE_CALC_MODE);
   if(mode == 0) return "forex"; // MT4: 0 Forex, 1 CFD, 2 Futures, 3 CFD on indices
   return "cfd";
  }

string HelloJson()
  {
   return "{\"type\":\"hello\",\"protocol\":" + IntegerToString(BRIDGE_PROTOCOL) +
          ",\"token\":" + JStr(AccountToken) +
          ",\"platform\":\"MT4\"" +
          ",\"login\":" + JStr(IntegerToString(AccountInfoInteger(ACCOUNT_LOGIN))) +
          ",\"server\":" + JStr(AccountInfoString(ACCOUNT_SERVER)) +
          ",\"company\":" + JStr(AccountInfoString(ACCOUNT_COMPANY)) +
          ",\"currency\":" + JStr(AccountInfoString(ACCOUNT_CURRENCY)) +
          ",\"leverage\":" + IntegerToString(AccountInfoInteger(ACCOUNT_LEVERAGE)) +
          ",\"marginMode\":\"hedging\"" +
          ",\"tradeMode\":" + JStr(TradeModeName()) +
          ",\"build\":" + IntegerToString(TerminalInfoInteger(TERMINAL_BUILD)) + "}";
  }

string PendingName(const int type)
  {
   if(type == OP_BUYLIMIT) return "buyLimit";
   if(type == OP_SELLLIMIT) return "sellLimit";
   if(type == OP_BUYSTOP) return "buyStop";
   if(type == OP_SELLSTOP) return "sellStop";
   return "";
  }

// The selected market order as an MtPosition (without its live figures when `stable`: to compare books).
string PositionJson(const bool stable)
  {
   int d = (int)MarketInfo(OrderSymbol(), MODE_DIGITS);
   return "{\"id\":" + JStr(IntegerToString(OrderTicket())) +
          ",\"symbol\":" + JStr(OrderSymbol()) +
          ",\"side\":" + JStr(SideOfBuy(OrderType() == OP_BUY)) +
          ",\"volume\":" + JNum(OrderLots(), 8) +
          ",\"openPrice\":" + DoubleToString(OrderOpenPrice(), d) +
          ",\"openTime\":" + JStr(IsoUtc(OrderOpenTime())) +
          ",\"stopLoss\":" + JPriceOrNull(OrderStopLoss(), d) +
          ",\"takeProfit\":" + JPriceOrNull(OrderTakeProfit(), d) +
          (stable ? "" :
          ",\"currentPrice\":" + DoubleToString(OrderClosePrice(), d) +
          ",\"profit\":" + JNum(OrderProfit(), 2) +
          ",\"swap\":" + JNum(OrderSwap(), 2) +
          ",\"commission\":" + JNum(OrderCommission(), 2)) +
          ",\"comment\":" + JStrOrNull(OrderComment()) +
          ",\"magic\":" + JInt(OrderMagicNumber()) + "}";
  }

string OrderJson(const bool stable)
  {
   int d = (int)MarketInfo(OrderSymbol(), MODE_DIGITS);
   string type = PendingName(OrderType());
   bool buys = StringFind(type, "buy") == 0;
   return "{\"id\":" + JStr(IntegerToString(OrderTicket())) +
          ",\"symbol\":" + JStr(OrderSymbol()) +
          ",\"type\":" + JStr(type) +
          ",\"volume\":" + JNum(OrderLots(), 8) +
          ",\"openPrice\":" + DoubleToString(OrderOpenPrice(), d) +
          ",\"openTime\":" + JStr(IsoUtc(OrderOpenTime())) +
          ",\"stopLoss\":" + JPriceOrNull(OrderStopLoss(), d) +
          ",\"takeProfit\":" + JPriceOrNull(OrderTakeProfit(), d) +
          ",\"expiry\":" + (OrderExpiration() > 0 ? JStr(IsoUtc(OrderExpiration())) : "null") +
          (stable ? "" : ",\"currentPrice\":" + DoubleToString(buys ? MarketInfo(OrderSymbol(), MODE_ASK) : MarketInfo(OrderSymbol(), MODE_BID), d)) +
          ",\"comment\":" + JStrOrNull(OrderComment()) +
          ",\"magic\":" + JInt(OrderMagicNumber()) + "}";
  }

string BookJson(const bool stable)
  {
   string positions = "", orders = "";
   for(int i = 0; i < OrdersTotal(); i++)
     {
      if(!OrderSelect(i, SELECT_BY_POS, MODE_TRADES)) continue;
      if(OrderType() == OP_BUY || OrderType() == OP_SELL) positions += (positions == "" ? "" : ",") + PositionJson(stable);
      else orders += (orders == "" ? "" : ",") + OrderJson(stable);
     }
   return "\"positions\":[" + positions + "],\"orders\":[" + orders + "]";
  }

string CloseReasonOf(const string comment)
  {
   if(StringFind(comment, "[sl]") >= 0) return "stopLoss";
   if(StringFind(comment, "[tp]") >= 0) return "takeProfit";
   if(StringFind(comment, "so:") >= 0) return "stopOut";
   return "manual";
  }

// The selected closed market order of the history as an MtTrade.
string TradeJson()
  {
   int d = (int)MarketInfo(OrderSymbol(), MODE_DIGITS);
   return "{\"id\":" + JStr(IntegerToString(OrderTicket())) +
          ",\"positionId\":" + JStr(IntegerToString(OrderTicket())) +
          ",\"symbol\":" + JStr(OrderSymbol()) +
          ",\"side\":" + JStr(SideOfBuy(OrderType() == OP_BUY)) +
          ",\"volume\":" + JNum(OrderLots(), 8) +
          ",\"openPrice\":" + DoubleToString(OrderOpenPrice(), d) +
          ",\"openTime\":" + JStr(IsoUtc(OrderOpenTime())) +
          ",\"closePrice\":" + DoubleToString(OrderClosePrice(), d) +
          ",\"closeTime\":" + JStr(IsoUtc(OrderCloseTime())) +
          ",\"profit\":" + JNum(OrderProfit(), 2) +
          ",\"swap\":" + JNum(OrderSwap(), 2) +
          ",\"commission\":" + JNum(OrderCommission(), 2) +
          ",\"reason\":" + JStr(CloseReasonOf(OrderComment())) +
          ",\"stopLoss\":" + JPriceOrNull(OrderStopLoss(), d) +
          ",\"takeProfit\":" + JPriceOrNull(OrderTakeProfit(), d) +
          ",\"comment\":" + JStrOrNull(OrderComment()) +
          ",\"magic\":" + JInt(OrderMagicNumber()) + "}";
  }

string BalanceJson()
  {
   return "{\"id\":" + JStr(IntegerToString(OrderTicket())) +
          ",\"time\":" + JStr(IsoUtc(OrderOpenTime())) +
          ",\"amount\":" + JNum(OrderProfit(), 2) +
          ",\"comment\":" + JStrOrNull(OrderComment()) + "}";
  }

// Closed trades and balance operations of the history closed between `from` and `to` (server times).
void HistoryJson(const datetime from, const datetime to, string &trades, string &balances)
  {
   trades = "";
   balances = "";
   for(int i = 0; i < OrdersHistoryTotal(); i++)
     {
      if(!OrderSelect(i, SELECT_BY_POS, MODE_HISTORY)) continue;
      int type = OrderType();
      if(type == 6 || type == 7) // balance, credit
        {
         if(OrderOpenTime() >= from && OrderOpenTime() <= to) balances += (balances == "" ? "" : ",") + BalanceJson();
         continue;
        }
      if(type != OP_BUY && type != OP_SELL) continue; // deleted pending orders
      if(OrderCloseTime() >= from && OrderCloseTime() <= to) trades += (trades == "" ? "" : ",") + TradeJson();
     }
  }

void SendBookIfChanged()
  {
   string stable = BookJson(true);
   int history = OrdersHistoryTotal();
   if(stable == g_lastBook && history == g_historyCount) return;
   string trades = "", balances = "";
   // The history entries added since the last book (MT4 appends to the history list).
   for(int i = g_historyCount; i < history; i++)
     {
      if(!OrderSelect(i, SELECT_BY_POS, MODE_HISTORY)) continue;
      int type = OrderType();
      if(type == 6 || type == 7) balances += (balances == "" ? "" : ",") + BalanceJson();
      else if(type == OP_BUY || type == OP_SELL) trades += (trades == "" ? "" : ",") + TradeJson();
     }
   if(SendLine("{\"type\":\"book\"," + BookJson(false) + ",\"trades\":[" + trades + "],\"balances\":[" + balances + "],\"account\":" + AccountJson() + "}"))
     {
      g_lastBook = stable;
      g_historyCount = history;
     }
  }

// The duplicate check: an open or pending order, or a closed one of the last 7 days, whose comment is the tag.
string FindTag(const string tag)
  {
   for(int i = 0; i < OrdersTotal(); i++)
     {
      if(!OrderSelect(i, SELECT_BY_POS, MODE_TRADES) || OrderComment() != tag) continue;
      int d = (int)MarketInfo(OrderSymbol(), MODE_DIGITS);
      string id = JStr(IntegerToString(OrderTicket()));
      bool market = OrderType() == OP_BUY || OrderType() == OP_SELL;
      return "{\"status\":" + (market ? "\"filled\",\"order\":" + id + ",\"position\":" + id : "\"placed\",\"order\":" + id) +
             ",\"price\":" + DoubleToString(OrderOpenPrice(), d) + ",\"volume\":" + JNum(OrderLots(), 8) +
             ",\"time\":" + JStr(IsoUtc(OrderOpenTime())) + ",\"existing\":true}";
     }
   datetime since = TimeCurrent() - 7 * 86400;
   for(int i = OrdersHistoryTotal() - 1; i >= 0; i--)
     {
      if(!OrderSelect(i, SELECT_BY_POS, MODE_HISTORY) || OrderComment() != tag || OrderCloseTime() < since) continue;
      int d = (int)MarketInfo(OrderSymbol(), MODE_DIGITS);
      string id = JStr(IntegerToString(OrderTicket()));
      return "{\"status\":\"filled\",\"order\":" + id + ",\"position\":" + id + ",\"price\":" + DoubleToString(OrderOpenPrice(), d) +
             ",\"volume\":" + JNum(OrderLots(), 8) + ",\"time\":" + JStr(IsoUtc(OrderOpenTime())) + ",\"existing\":true}";
     }
   return "";
  }

int Mt4Type(const string name)
  {
   if(name == "buy") return OP_BUY;
   if(name == "sell") return OP_SELL;
   if(name == "buyLimit") return OP_BUYLIMIT;
   if(name == "sellLimit") return OP_SELLLIMIT;
   if(name == "buyStop") return OP_BUYSTOP;
   return OP_SELLSTOP;
  }

void Open(const string id, const string line)
  {
   string tag = JsonString(line, "tag");
   string found = FindTag(tag);
   if(found != "") { SendLine(ReplyOk(id, found)); return; }
   string sym = JsonString(line, "symbol");
   if(!SymbolSelect(sym, true)) { SendLine(ReplyFail(id, 4106, "unknown symbol " + sym)); return; }
   RefreshRates();
   int type = Mt4Type(JsonString(line, "orderType"));
   double volume = JsonDouble(line, "volume", 0);
   double price = type == OP_BUY ? MarketInfo(sym, MODE_ASK) : (type == OP_SELL ? MarketInfo(sym, MODE_BID) : JsonDouble(line, "price", 0));
   string expiry = JsonString(line, "expiry");
   int ticket = OrderSend(sym, type, volume, price, Slippage, JsonDouble(line, "stopLoss", 0), JsonDouble(line, "takeProfit", 0), tag,
                          (int)JsonDouble(line, "magic", 0), expiry == "" ? 0 : ServerTimeOf(expiry), clrNONE);
   if(ticket < 0) { int error = GetLastError(); SendLine(ReplyFail(id, error, "OrderSend failed, error " + IntegerToString(error))); return; }
   if(!OrderSelect(ticket, SELECT_BY_TICKET)) { SendLine(ReplyFail(id, 4108, "the new ticket cannot be selected")); return; }
   int d = (int)MarketInfo(sym, MODE_DIGITS);
   string tid = JStr(IntegerToString(ticket));
   bool market = type == OP_BUY || type == OP_SELL;
   SendLine(ReplyOk(id, "{\"status\":" + (market ? "\"filled\",\"order\":" + tid + ",\"position\":" + tid : "\"placed\",\"order\":" + tid) +
                        ",\"price\":" + DoubleToString(OrderOpenPrice(), d) + ",\"volume\":" + JNum(OrderLots(), 8) + ",\"time\":" + JStr(IsoUtc(OrderOpenTime())) + "}"));
  }

void Modify(const string id, const string line)
  {
   string tag = JsonString(line, "tag"), done;
   if(DoneLookup(tag, done)) { SendLine(ReplyOk(id, done)); return; }
   int ticket = (int)StringToInteger(JsonString(line, "id"));
   if(!OrderSelect(ticket, SELECT_BY_TICKET) || OrderCloseTime() != 0) { SendLine(ReplyFail(id, 4108, "no position or order " + IntegerToString(ticket))); return; }
   bool market = OrderType() == OP_BUY || OrderType() == OP_SELL;
   double price = !market && JsonHas(line, "price") ? JsonDouble(line, "price", 0) : OrderOpenPrice();
   double sl = JsonHas(line, "stopLoss") ? JsonDouble(line, "stopLoss", 0) : OrderStopLoss();
   double tp = JsonHas(line, "takeProfit") ? JsonDouble(line, "takeProfit", 0) : OrderTakeProfit();
   if(!OrderModify(ticket, price, sl, tp, OrderExpiration(), clrNONE)) { int error = GetLastError(); if(error != 1) { SendLine(ReplyFail(id, error, "OrderModify failed, error " + IntegerToString(error))); return; } }
   if(!OrderSelect(ticket, SELECT_BY_TICKET)) { SendLine(ReplyFail(id, 4108, "the ticket cannot be selected")); return; }
   string result = market ? "{\"position\":" + PositionJson(false) + "}" : "{\"order\":" + OrderJson(false) + "}";
   DoneRemember(tag, result);
   SendLine(ReplyOk(id, result));
  }

void Close(const string id, const string line)
  {
   string tag = JsonString(line, "tag"), done;
   if(DoneLookup(tag, done)) { SendLine(ReplyOk(id, done)); return; }
   int ticket = (int)StringToInteger(JsonString(line, "id"));
   if(!OrderSelect(ticket, SELECT_BY_TICKET) || OrderCloseTime() != 0) { SendLine(ReplyFail(id, 4108, "no position " + IntegerToString(ticket))); return; }
   double lots = JsonIsNull(line, "volume") || !JsonHas(line, "volume") ? OrderLots() : JsonDouble(line, "volume", 0);
   RefreshRates();
   double price = OrderType() == OP_BUY ? MarketInfo(OrderSymbol(), MODE_BID) : MarketInfo(OrderSymbol(), MODE_ASK);
   if(!OrderClose(ticket, lots, price, Slippage, clrNONE)) { int error = GetLastError(); SendLine(ReplyFail(id, error, "OrderClose failed, error " + IntegerToString(error))); return; }
   if(!OrderSelect(ticket, SELECT_BY_TICKET, MODE_HISTORY)) { SendLine(ReplyFail(id, 4108, "the closed ticket cannot be selected")); return; }
   string result = TradeJson();
   DoneRemember(tag, result);
   SendLine(ReplyOk(id, result));
  }

void Cancel(const string id, const string line)
  {
   string tag = JsonString(line, "tag"), done;
   if(DoneLookup(tag, done)) { SendLine(ReplyOk(id, done)); return; }
   int ticket = (int)StringToInteger(JsonString(line, "id"));
   if(!OrderSelect(ticket, SELECT_BY_TICKET) || OrderCloseTime() != 0 || PendingName(OrderType()) == "") { SendLine(ReplyFail(id, 4108, "no pending order " + IntegerToString(ticket))); return; }
   string order = OrderJson(false);
   if(!OrderDelete(ticket, clrNONE)) { int error = GetLastError(); SendLine(ReplyFail(id, error, "OrderDelete failed, error " + IntegerToString(error))); return; }
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
   else if(op == "book") SendLine(ReplyOk(id, "{" + BookJson(false) + "}"));
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
      SendLine(q == "" ? ReplyFail(id, 4106, "unknown symbol") : ReplyOk(id, q));
     }
   else if(op == "margin")
     {
      string sym = JsonString(line, "symbol");
      double perLot = MarketInfo(sym, MODE_MARGINREQUIRED);
      SendLine(ReplyOk(id, "{\"margin\":" + JNum(perLot * JsonDouble(line, "volume", 0), 2) + "}"));
     }
   else SendLine(ReplyFail(id, 3, "unknown op " + op));
  }

int OnInit()
  {
   if(AccountToken == "") { Alert("CopyTradeBridge: set AccountToken (an account-level API key of the service)"); return INIT_PARAMETERS_INCORRECT; }
   MathSrand((uint)GetTickCount());
   g_historyCount = OrdersHistoryTotal();
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
   if(!BridgeEnsureConnected(HelloJson())) { g_lastBook = ""; return; }
   BridgePoll();
   if(g_welcomed) SendBookIfChanged();
  }
