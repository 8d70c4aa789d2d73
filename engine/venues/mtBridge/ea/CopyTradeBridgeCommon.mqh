//+------------------------------------------------------------------+
//| CopyTradeBridgeCommon.mqh                                        |
//| The parts of the bridge EA that MQL4 and MQL5 share: a minimal   |
//| WebSocket client over the terminal's sockets (RFC 6455 client    |
//| frames, masked, text only), newline-delimited JSON framing, a    |
//| small JSON reader for the service's requests, and the backoff.   |
//| Protocol: ../PROTOCOL.md. Verified against the TypeScript fake   |
//| terminal of the tests only, never in a real terminal.            |
//+------------------------------------------------------------------+
#property strict

input string ServiceHost   = "copytrade.example.com"; // the service's bridge host (allow it in Options > Expert Advisors)
input int    ServicePort   = 8765;                    // the port of ACCOUNT_TYPE_VENUES=...=mtbridge:<port>
input bool   UseTls        = true;                    // wss:// (the operator set MT_BRIDGE_TLS_*_FILE)
input string AccountToken  = "";                      // an account-level API key of the service account

#define BRIDGE_PROTOCOL 1
#define BACKOFF_FIRST_MS 1000
#define BACKOFF_MAX_MS   30000

int    g_socket = INVALID_HANDLE;
bool   g_welcomed = false;
bool   g_refused = false;
uint   g_backoff = BACKOFF_FIRST_MS;
uint   g_nextAttempt = 0;      // GetTickCount() of the next connection attempt
string g_inbox = "";          // bytes of WebSocket payload not yet split into lines
uchar  g_raw[];               // bytes read from the socket not yet parsed into frames

//--- JSON writing -------------------------------------------------------------------------------

string JsonEscape(const string s)
  {
   string out = "";
   int n = StringLen(s);
   for(int i = 0; i < n; i++)
     {
      ushort c = StringGetCharacter(s, i);
      if(c == '"')       out += "\\\"";
      else if(c == '\\') out += "\\\\";
      else if(c == '\n') out += "\\n";
      else if(c == '\r') out += "\\r";
      else if(c == '\t') out += "\\t";
      else if(c < 0x20)  out += StringFormat("\\u%04x", c);
      else               out += ShortToString(c);
     }
   return out;
  }

string JStr(const string s)               { return "\"" + JsonEscape(s) + "\""; }
string JStrOrNull(const string s)         { return s == "" ? "null" : JStr(s); }
string JNum(const double v, const int d)  { return DoubleToString(v, d); }
string JPriceOrNull(const double v, const int d) { return v == 0.0 ? "null" : DoubleToString(v, d); }
string JInt(const long v)                 { return IntegerToString(v); }
string JBool(const bool v)                { return v ? "true" : "false"; }

//--- times: the trade server's clock to ISO 8601 UTC ----------------------------------------------

string IsoUtc(const datetime serverTime)
  {
   long offset = (long)(TimeGMT() - TimeTradeServer());
   datetime utc = (datetime)((long)serverTime + offset);
   MqlDateTime t;
   TimeToStruct(utc, t);
   return StringFormat("%04d-%02d-%02dT%02d:%02d:%02d.000Z", t.year, t.mon, t.day, t.hour, t.min, t.sec);
  }

datetime ServerTimeOf(const string iso)
  {
   // "2026-01-07T10:00:01.000Z" -> server time
   string s = iso;
   StringReplace(s, "T", " ");
   StringReplace(s, "-", ".");
   if(StringLen(s) > 19) s = StringSubstr(s, 0, 19);
   datetime utc = StringToTime(s);
   long offset = (long)(TimeGMT() - TimeTradeServer());
   return (datetime)((long)utc - offset);
  }

//--- JSON reading: flat members of one request line ----------------------------------------------

// The raw text of member `key` of a flat JSON object (strings unquoted and unescaped); "" when absent.
string JsonGet(const string json, const string key, bool &found, bool &isNull)
  {
   found = false;
   isNull = false;
   string pattern = "\"" + key + "\":";
   int at = StringFind(json, pattern);
   if(at < 0) return "";
   found = true;
   int i = at + StringLen(pattern);
   int n = StringLen(json);
   while(i < n && StringGetCharacter(json, i) == ' ') i++;
   if(StringGetCharacter(json, i) == '"')
     {
      string out = "";
      for(i = i + 1; i < n; i++)
        {
         ushort c = StringGetCharacter(json, i);
         if(c == '\\' && i + 1 < n)
           {
            i++;
            ushort e = StringGetCharacter(json, i);
            if(e == 'n') out += "\n";
            else if(e == 't') out += "\t";
            else out += ShortToString(e);
            continue;
           }
         if(c == '"') break;
         out += ShortToString(c);
        }
      return out;
     }
   int start = i;
   while(i < n)
     {
      ushort c = StringGetCharacter(json, i);
      if(c == ',' || c == '}') break;
      i++;
     }
   string raw = StringSubstr(json, start, i - start);
   StringTrimLeft(raw);
   StringTrimRight(raw);
   if(raw == "null") isNull = true;
   return raw;
  }

string JsonString(const string json, const string key)
  {
   bool found, isNull;
   string v = JsonGet(json, key, found, isNull);
   return isNull ? "" : v;
  }

double JsonDouble(const string json, const string key, const double fallback)
  {
   bool found, isNull;
   string v = JsonGet(json, key, found, isNull);
   if(!found || isNull || v == "") return fallback;
   return StringToDouble(v);
  }

bool JsonHas(const string json, const string key)
  {
   bool found, isNull;
   JsonGet(json, key, found, isNull);
   return found;
  }

bool JsonIsNull(const string json, const string key)
  {
   bool found, isNull;
   JsonGet(json, key, found, isNull);
   return found && isNull;
  }

//--- WebSocket client ---------------------------------------------------------------------------

bool SocketWriteAll(const uchar &bytes[], const int count)
  {
   if(count <= 0) return true;
   int sent = UseTls ? SocketTlsSend(g_socket, bytes, count) : SocketSend(g_socket, bytes, count);
   return sent == count;
  }

// One masked client frame (RFC 6455 §5.2) with `opcode` and `payload`.
bool WsSendFrame(const int opcode, const uchar &payload[], const int length)
  {
   uchar frame[];
   int header = 2 + 4 + (length > 65535 ? 8 : (length > 125 ? 2 : 0));
   ArrayResize(frame, header + length);
   frame[0] = (uchar)(0x80 | opcode);
   int i = 2;
   if(length <= 125) frame[1] = (uchar)(0x80 | length);
   else if(length <= 65535)
     {
      frame[1] = (uchar)(0x80 | 126);
      frame[2] = (uchar)((length >> 8) & 0xFF);
      frame[3] = (uchar)(length & 0xFF);
      i = 4;
     }
   else
     {
      frame[1] = (uchar)(0x80 | 127);
      for(int k = 0; k < 8; k++) frame[2 + k] = (uchar)(((long)length >> (8 * (7 - k))) & 0xFF);
      i = 10;
     }
   uchar mask[4];
   for(int k = 0; k < 4; k++) { mask[k] = (uchar)MathRand(); frame[i + k] = mask[k]; }
   i += 4;
   for(int k = 0; k < length; k++) frame[i + k] = (uchar)(payload[k] ^ mask[k % 4]);
   return SocketWriteAll(frame, ArraySize(frame));
  }

// Sends one protocol line (a JSON object; the newline is added).
bool SendLine(const string json)
  {
   if(g_socket == INVALID_HANDLE) return false;
   uchar payload[];
   int n = StringToCharArray(json + "\n", payload, 0, WHOLE_ARRAY, CP_UTF8) - 1; // without the terminating 0
   return WsSendFrame(0x1, payload, n);
  }

string Base64Key()
  {
   uchar raw[16], key[], empty[];
   for(int i = 0; i < 16; i++) raw[i] = (uchar)MathRand();
   CryptEncode(CRYPT_BASE64, raw, empty, key);
   return CharArrayToString(key);
  }

bool WsHandshake()
  {
   string request = "GET / HTTP/1.1\r\nHost: " + ServiceHost + ":" + IntegerToString(ServicePort) +
                    "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: " + Base64Key() +
                    "\r\nSec-WebSocket-Version: 13\r\n\r\n";
   uchar bytes[];
   int n = StringToCharArray(request, bytes, 0, WHOLE_ARRAY, CP_UTF8) - 1;
   if(!SocketWriteAll(bytes, n)) return false;
   string answer = "";
   uint until = GetTickCount() + 5000;
   while(GetTickCount() < until && StringFind(answer, "\r\n\r\n") < 0)
     {
      uint ready = SocketIsReadable(g_socket);
      if(ready == 0) { Sleep(10); continue; }
      uchar chunk[];
      int got = UseTls ? SocketTlsRead(g_socket, chunk, 1) : SocketRead(g_socket, chunk, 1, 1000);
      if(got <= 0) return false;
      answer += CharArrayToString(chunk, 0, got);
     }
   return StringFind(answer, " 101 ") > 0;
  }

void BridgeClose(const string why)
  {
   if(g_socket != INVALID_HANDLE) SocketClose(g_socket);
   g_socket = INVALID_HANDLE;
   g_welcomed = false;
   ArrayResize(g_raw, 0);
   g_inbox = "";
   if(why != "") Print("CopyTradeBridge: link closed: ", why);
   g_nextAttempt = GetTickCount() + g_backoff;
   g_backoff = (uint)MathMin(g_backoff * 2, BACKOFF_MAX_MS);
  }

// Connects when due (backoff); answers true while connected.
bool BridgeEnsureConnected(const string helloJson)
  {
   if(g_refused) return false;
   if(g_socket != INVALID_HANDLE) return true;
   if((int)(GetTickCount() - g_nextAttempt) < 0) return false;
   g_socket = SocketCreate();
   if(g_socket == INVALID_HANDLE) { BridgeClose("SocketCreate failed " + IntegerToString(GetLastError())); return false; }
   if(!SocketConnect(g_socket, ServiceHost, ServicePort, 5000)) { BridgeClose("connect failed " + IntegerToString(GetLastError())); return false; }
   if(UseTls && !SocketTlsHandshake(g_socket, ServiceHost)) { BridgeClose("TLS handshake failed " + IntegerToString(GetLastError())); return false; }
   if(!WsHandshake()) { BridgeClose("WebSocket handshake refused"); return false; }
   if(!SendLine(helloJson)) { BridgeClose("hello not sent"); return false; }
   return true;
  }

// Reads what arrived; every complete protocol line goes to OnBridgeLine (defined by the EA).
void OnBridgeLine(const string line);

void BridgePoll()
  {
   if(g_socket == INVALID_HANDLE) return;
   if(!SocketIsConnected(g_socket)) { BridgeClose("disconnected"); return; }
   uint ready = SocketIsReadable(g_socket);
   if(ready > 0)
     {
      uchar chunk[];
      int got = UseTls ? SocketTlsReadAvailable(g_socket, chunk, ready) : SocketRead(g_socket, chunk, ready, 100);
      if(got > 0)
        {
         int old = ArraySize(g_raw);
         ArrayResize(g_raw, old + got);
         ArrayCopy(g_raw, chunk, old, 0, got);
        }
     }
   // Frames from the server are not masked.
   while(ArraySize(g_raw) >= 2)
     {
      int opcode = g_raw[0] & 0x0F;
      long length = g_raw[1] & 0x7F;
      int at = 2;
      if(length == 126)
        {
         if(ArraySize(g_raw) < 4) return;
         length = ((long)g_raw[2] << 8) | g_raw[3];
         at = 4;
        }
      else if(length == 127)
        {
         if(ArraySize(g_raw) < 10) return;
         length = 0;
         for(int k = 0; k < 8; k++) length = (length << 8) | g_raw[2 + k];
         at = 10;
        }
      if(ArraySize(g_raw) < at + length) return;
      string text = CharArrayToString(g_raw, at, (int)length, CP_UTF8);
      uchar rest[];
      ArrayCopy(rest, g_raw, 0, at + (int)length);
      ArrayFree(g_raw);
      ArrayCopy(g_raw, rest);
      if(opcode == 0x8)
        {
         uchar none[];
         WsSendFrame(0x8, none, 0);
         BridgeClose("closed by the service");
         return;
        }
      if(opcode == 0x9)
        {
         uchar pong[];
         StringToCharArray(text, pong, 0, WHOLE_ARRAY, CP_UTF8);
         WsSendFrame(0xA, pong, (int)length);
         continue;
        }
      if(opcode != 0x1 && opcode != 0x0) continue;
      g_inbox += text;
      int nl;
      while((nl = StringFind(g_inbox, "\n")) >= 0)
        {
         string line = StringSubstr(g_inbox, 0, nl);
         g_inbox = StringSubstr(g_inbox, nl + 1);
         if(StringLen(line) > 0) OnBridgeLine(line);
        }
     }
  }

// The common answers to the service's control lines; true when handled.
bool BridgeControl(const string line)
  {
   string type = JsonString(line, "type");
   if(type == "welcome")
     {
      g_welcomed = true;
      g_backoff = BACKOFF_FIRST_MS;
      Print("CopyTradeBridge: welcome, account ", JsonString(line, "accountId"));
      return true;
     }
   if(type == "error")
     {
      string code = JsonString(line, "code");
      Print("CopyTradeBridge: refused ", code, " ", JsonString(line, "message"));
      if(code == "[INVALID_CREDENTIALS]") { g_refused = true; Alert("CopyTradeBridge: the token was refused: ", JsonString(line, "message")); }
      return true;
     }
   if(type == "ping") { SendLine("{\"type\":\"pong\"}"); return true; }
   return false;
  }

string ReplyOk(const string id, const string resultJson)
  {
   return "{\"type\":\"reply\",\"id\":" + JStr(id) + ",\"ok\":true,\"result\":" + resultJson + "}";
  }

string ReplyFail(const string id, const int retcode, const string message)
  {
   return "{\"type\":\"reply\",\"id\":" + JStr(id) + ",\"ok\":false,\"retcode\":" + IntegerToString(retcode) + ",\"message\":" + JStr(message) + "}";
  }

//--- tagged requests answered once ----------------------------------------------------------------

string g_doneTags[];
string g_doneResults[];

bool DoneLookup(const string tag, string &result)
  {
   if(tag == "") return false;
   for(int i = ArraySize(g_doneTags) - 1; i >= 0; i--)
      if(g_doneTags[i] == tag) { result = g_doneResults[i]; return true; }
   return false;
  }

void DoneRemember(const string tag, const string result)
  {
   if(tag == "") return;
   int n = ArraySize(g_doneTags);
   if(n >= 512)
     {
      // Keep the newest 256 (ArrayRemove is MQL5 only).
      for(int i = 0; i < 256; i++) { g_doneTags[i] = g_doneTags[n - 256 + i]; g_doneResults[i] = g_doneResults[n - 256 + i]; }
      n = 256;
     }
   ArrayResize(g_doneTags, n + 1);
   ArrayResize(g_doneResults, n + 1);
   g_doneTags[n] = tag;
   g_doneResults[n] = result;
  }

string SideOfBuy(const bool isBuy) { return isBuy ? "buy" : "sell"; }

string AccountJson()
  {
   double margin = AccountInfoDouble(ACCOUNT_MARGIN);
   return "{\"balance\":" + JNum(AccountInfoDouble(ACCOUNT_BALANCE), 2) +
          ",\"credit\":" + JNum(AccountInfoDouble(ACCOUNT_CREDIT), 2) +
          ",\"equity\":" + JNum(AccountInfoDouble(ACCOUNT_EQUITY), 2) +
          ",\"margin\":" + JNum(margin, 2) +
          ",\"freeMargin\":" + JNum(AccountInfoDouble(ACCOUNT_MARGIN_FREE), 2) +
          ",\"marginLevel\":" + (margin > 0 ? JNum(AccountInfoDouble(ACCOUNT_MARGIN_LEVEL), 2) : "null") +
          ",\"stopOutLevel\":" + JNum(AccountInfoDouble(ACCOUNT_MARGIN_SO_SO), 2) +
          ",\"profit\":" + JNum(AccountInfoDouble(ACCOUNT_PROFIT), 2) + "}";
  }

string TradeModeName()
  {
   long mode = AccountInfoInteger(ACCOUNT_TRADE_MODE);
   if(mode == ACCOUNT_TRADE_MODE_REAL) return "real";
   if(mode == ACCOUNT_TRADE_MODE_CONTEST) return "contest";
   return "demo";
  }

string SymbolJson(const string name)
  {
   int digits = (int)SymbolInfoInteger(name, SYMBOL_DIGITS);
   return "{\"symbol\":" + JStr(name) +
          ",\"description\":" + JStr(SymbolInfoString(name, SYMBOL_DESCRIPTION)) +
          ",\"digits\":" + IntegerToString(digits) +
          ",\"point\":" + DoubleToString(SymbolInfoDouble(name, SYMBOL_POINT), digits) +
          ",\"contractSize\":" + JNum(SymbolInfoDouble(name, SYMBOL_TRADE_CONTRACT_SIZE), 2) +
          ",\"minVolume\":" + JNum(SymbolInfoDouble(name, SYMBOL_VOLUME_MIN), 8) +
          ",\"maxVolume\":" + JNum(SymbolInfoDouble(name, SYMBOL_VOLUME_MAX), 8) +
          ",\"volumeStep\":" + JNum(SymbolInfoDouble(name, SYMBOL_VOLUME_STEP), 8) +
          ",\"stopsLevel\":" + IntegerToString(SymbolInfoInteger(name, SYMBOL_TRADE_STOPS_LEVEL)) +
          ",\"marginCalcMode\":" + JStr(MarginCalcModeName(name)) +
          ",\"marginRate\":1" +
          ",\"baseCurrency\":" + JStr(SymbolInfoString(name, SYMBOL_CURRENCY_BASE)) +
          ",\"marginCurrency\":" + JStr(SymbolInfoString(name, SYMBOL_CURRENCY_MARGIN)) +
          ",\"profitCurrency\":" + JStr(SymbolInfoString(name, SYMBOL_CURRENCY_PROFIT)) +
          ",\"commissionPerLot\":0" +
          ",\"swapLong\":" + JNum(SymbolInfoDouble(name, SYMBOL_SWAP_LONG), 4) +
          ",\"swapShort\":" + JNum(SymbolInfoDouble(name, SYMBOL_SWAP_SHORT), 4) +
          ",\"swapRollover3Days\":" + IntegerToString(SymbolInfoInteger(name, SYMBOL_SWAP_ROLLOVER3DAYS)) + "}";
  }

string SymbolsJson()
  {
   string out = "[";
   int n = SymbolsTotal(true);
   for(int i = 0; i < n; i++)
     {
      if(i > 0) out += ",";
      out += SymbolJson(SymbolName(i, true));
     }
   return out + "]";
  }

string QuoteJson(const string name)
  {
   MqlTick tick;
   if(!SymbolInfoTick(name, tick)) return "";
   int digits = (int)SymbolInfoInteger(name, SYMBOL_DIGITS);
   return "{\"symbol\":" + JStr(name) + ",\"bid\":" + DoubleToString(tick.bid, digits) + ",\"ask\":" + DoubleToString(tick.ask, digits) + ",\"time\":" + JStr(IsoUtc(tick.time)) + "}";
  }
