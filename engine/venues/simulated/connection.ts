// Connections: one account's session with the venue. Each request runs as one entry point of the
// venue (caught up to the clock, its changes delivered after it), against the connected book.
import { createHash, scryptSync, timingSafeEqual } from 'node:crypto';
import type { HistoryEntry, VenueChangeListener, VenueConnection, VenueCredentials } from '../port.js';
import { exact } from './arithmetic.js';
import type { Book, Session } from './book.js';
import type { Desk } from './desk.js';
import type { DemoTerms } from './simulatedVenue.js';
import { cancel, close, modify, once, place } from './trading.js';
import { fail } from './validation.js';
import { positionMargin } from './valuation.js';
import { historyOf, historyReachesBack, inHistoryRange, information, openItems, quoteView } from './views.js';

/** scrypt cost for the venue's password hashes: cheap, since the secret is a simulator's. */
const PASSWORD_HASH_COST = 1024;

export const hashPassword = (venue: string, login: string, password: string): string => {
  const salt = createHash('sha256').update(`${venue}\u0000${login}`).digest();
  return scryptSync(password, salt, 32, { N: PASSWORD_HASH_COST }).toString('hex');
};

/** What a connection needs of the venue that opened it. */
export interface ConnectionHost {
  readonly name: string;
  readonly desk: Desk;
  account(login: string): Book | undefined;
  /** Opens a new account (inside an entry point, caught up to the clock). */
  open(login: string, passwordHash: string, terms: DemoTerms): Book;
  /** Runs one entry point, then delivers the changes it caused. */
  transact<T>(work: () => T): T;
  /** Processes every second up to the clock. */
  catchUp(): void;
  /** A change listener threw. */
  onListenerError(error: unknown): void;
  /** The entries of a login's history before seq `before`, from the venue's store (KeptHistory); null: every entry is in memory. */
  readonly olderHistory: ((login: string, before: number) => Promise<readonly HistoryEntry[]>) | null;
}

/** Runs a request against the connected book, caught up to the clock. */
type Run = <T>(work: (book: Book) => T) => Promise<T>;

export const openConnection = (host: ConnectionHost, credentials: VenueCredentials, opening?: DemoTerms): VenueConnection => {
  let connected = false;
  const listeners = new Set<VenueChangeListener>();
  const session: Session = {
    deliver: (change) => {
      for (const listener of [...listeners]) {
        try {
          listener(change);
        } catch (error) {
          host.onListenerError(error);
        }
      }
    },
  };
  const book = (): Book => {
    const found = connected ? host.account(credentials.login) : undefined;
    return found ?? fail('[NOT_CONNECTED]', `account ${credentials.login} is not connected`);
  };
  const run: Run = (work) =>
    new Promise((resolve) => {
      resolve(
        host.transact(() => {
          const found = book();
          host.catchUp();
          return work(found);
        }),
      );
    });

  return {
    login: credentials.login,
    connect: () =>
      new Promise<void>((resolve) => {
        host.transact(() => {
          host.catchUp();
          const found = authenticate(host, credentials, opening);
          connected = true;
          found.sessions.add(session);
        });
        resolve();
      }),
    disconnect: async () => {
      connected = false;
      host.account(credentials.login)?.sessions.delete(session);
    },
    isConnected: () => connected,
    ...requests(host.desk, run),
    history: async (from, to) => {
      // The entries in memory, and how far back they go: the older ones are in the store (KeptHistory).
      const { kept, keptFrom, reachesBack } = await run((found) => ({
        kept: historyOf(found, from, to),
        keptFrom: found.historyKeptFrom,
        reachesBack: historyReachesBack(found, from),
      }));
      // reachesBack: some entries are only in the store (historyKeptFrom > 0) and may be in the range.
      if (!reachesBack || !host.olderHistory) return kept;
      const older = inHistoryRange(await host.olderHistory(credentials.login, keptFrom), from, to);
      return [...older, ...kept];
    },
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
};

// The rule: the login must exist and the password must equal, byte for byte, the one the
// account was opened with. Either failure is the same [INVALID_CREDENTIALS]. A connection with
// `opening` terms opens a login the venue does not know with the password given, hashed once: the
// same hash is stored and checked.
const authenticate = (host: ConnectionHost, credentials: VenueCredentials, opening: DemoTerms | undefined): Book => {
  const hash = hashPassword(host.name, credentials.login, String(credentials.password));
  const found = host.account(credentials.login) ?? (opening ? host.open(credentials.login, hash, opening) : undefined);
  const given = Buffer.from(hash, 'hex');
  if (!found || !timingSafeEqual(given, Buffer.from(found.settings.passwordHash, 'hex'))) {
    return fail('[INVALID_CREDENTIALS]', `login ${credentials.login} or its password is wrong`);
  }
  return found;
};

type Requests = Omit<VenueConnection, 'login' | 'connect' | 'disconnect' | 'isConnected' | 'subscribe' | 'history'>;

const requests = (desk: Desk, run: Run): Requests => {
  const { market } = desk;
  return {
    accountInformation: () => run((found) => information(market, found, desk.now())),
    positions: () => run((found) => openItems(market, found, desk.now())),
    placeOrder: (request, clientOrderId) => run((found) => once(found, 'place', clientOrderId, () => place(desk, found, request, clientOrderId))),
    modifyPosition: (id, changes, clientRequestId) => run((found) => once(found, 'modify', clientRequestId, () => modify(desk, found, id, changes))),
    closePosition: (id, volume, clientRequestId) => run((found) => once(found, 'close', clientRequestId, () => close(desk, found, id, volume))),
    cancelOrder: (id, clientRequestId) => run((found) => once(found, 'cancel', clientRequestId, () => cancel(desk, found, id))),
    quote: (symbol) => run(() => quoteView(market, symbol, desk.now())),
    symbolInfo: (symbol) => run(() => market.spec(symbol).info),
    symbols: () => run(() => market.symbols()),
    marginRequired: (symbol, side, volume) =>
      run((found) => {
        market.spec(symbol);
        return positionMargin(exact, market, found, { symbol, side, volume }, desk.now()).toDecimalPlaces(2).toNumber();
      }),
  };
};
