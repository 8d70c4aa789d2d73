// The answers of GET /accounts/{accountId} and GET /accounts, kept serialised between requests (issue 16:
// one account read at 0.5 of a bare express route, the list of 1,000 too).
//
// An answer is made of read-model rows only (projections/accounts/withState.ts), plus two things that
// are not rows: which of its accounts have a live session on this instance, and which pending approvals
// have not expired yet. So a kept answer is served again when, read in one statement with the caller's
// key (the key check, api/auth.ts, as before), the read models' stamp (readModelsStamp: every read
// model's checkpoint and generation) is the one it was made with, its accounts' sessions are as they
// were, and none of its pending approvals has expired since. Otherwise it is made again, stamped in the
// statement that reads its rows, so a kept answer never mixes two states of the read models. A served
// answer is exactly what reading again would have made, whichever instance changed the read models.
//
// What it saves: the statement over six read models (one probe of each per account), mapping the rows
// to AccountDTOs and JSON.stringify; what remains per request is one small statement. What it does not
// save: while events are being applied (trading), the stamp moves with every batch and answers are made
// again, one more (small) round trip than without the cache.
import type { Services } from '../../app/services.js';
import { type AccountWithState, readStamps } from '../../projections/accounts/withState.js';

/** Kept answers per instance; past this, the least recently used is forgotten. */
const MAX_ANSWERS = 256;
/** Lists are large (a list of 1,000 accounts is about 2 MB of JSON): fewer of them are kept. */
const MAX_LISTS = 16;

/** A body as JSON bytes, ready to send (api/route.ts), with its entity tag once one was computed. */
export interface SerialisedBody {
  readonly bytes: Buffer;
  etag?: string;
}

export interface AccountAnswer {
  /** The DTO (one account) or the list of DTOs, for callers whose key hides fields (api/apiKeys/enforcement.ts). */
  readonly body: unknown;
  readonly json: SerialisedBody;
}

interface Kept extends AccountAnswer {
  readonly stamp: string;
  readonly accountIds: readonly string[];
  /** The sessions of accountIds when it was made. */
  readonly sessions: Sessions;
  /** Epoch ms at which its first pending approval expires (Infinity: none). */
  readonly validUntil: number;
  readonly list: boolean;
}

/** The sessions of accounts as an answer shows them: for each, whether it is connected, and its link's status message ('' for none). */
interface Sessions {
  readonly connected: readonly boolean[];
  readonly messages: readonly string[];
}

const sessionsOf = (services: Services, accountIds: readonly string[]): Sessions => ({
  connected: accountIds.map((id) => services.connections.isConnected(id)),
  messages: accountIds.map((id) => services.connections.statusMessage(id) ?? ''),
});

/** Whether the sessions of these accounts are still `then`: compared in place, without building anything (every served answer asks). */
const sessionsAre = (services: Services, accountIds: readonly string[], then: Sessions): boolean => {
  for (let i = 0; i < accountIds.length; i++) {
    const id = accountIds[i]!;
    if (services.connections.isConnected(id) !== then.connected[i] || (services.connections.statusMessage(id) ?? '') !== then.messages[i]) return false;
  }
  return true;
};

/** Epoch ms at which the first pending approval of these rows expires, and with it the answer. */
export const expiryOf = (rows: readonly AccountWithState[]): number => {
  let first = Infinity;
  for (const row of rows) for (const approval of row.pending_approvals) first = Math.min(first, Date.parse(approval.expires_at));
  return first;
};

/**
 * Statements reading the stamp in flight at once; the checks of requests arriving meanwhile wait and go
 * out together. One: measured under load against two, the CPU per request fell by about half (BENCHMARKS.md 5).
 */
const STAMP_READS_IN_FLIGHT = 1;
/** Keys read in one such statement at most. */
const STAMP_READS_MAX_KEYS = 64;

interface StampRead {
  readonly apiKeyId: string | null;
  readonly resolve: (now: { stamp: string; key: unknown }) => void;
  readonly reject: (error: unknown) => void;
}

export class AccountAnswers {
  private readonly kept = new Map<string, Kept>();
  private lists = 0;
  private readonly stampReads: StampRead[] = [];
  private stampReadsInFlight = 0;
  private gathering = false;

  /**
   * The read models' stamp now, and the row of the caller's key (null when `apiKeyId` is null or the key
   * is gone), read by a statement that starts after this call: a revocation applies to this very
   * request. Concurrent requests share statements (group reads, like the event store's group commit):
   * a lone request's goes at once; while STAMP_READS_IN_FLIGHT are running, the requests arriving
   * meanwhile go out together in the next one, so under load a statement (its round trip, its wake-up
   * of a PostgreSQL backend, the pool's hand-over) serves several requests.
   */
  stampNow(services: Services, apiKeyId: string | null): Promise<{ stamp: string; key: unknown }> {
    return new Promise((resolve, reject) => {
      this.stampReads.push({ apiKeyId, resolve, reject });
      if (this.stampReadsInFlight === 0) this.readStamps(services);
      else if (this.stampReadsInFlight < STAMP_READS_IN_FLIGHT && !this.gathering) {
        // Another is in flight: the requests arriving in the rest of this turn of the event loop go along.
        this.gathering = true;
        setImmediate(() => {
          this.gathering = false;
          if (this.stampReadsInFlight < STAMP_READS_IN_FLIGHT) this.readStamps(services);
        });
      }
    });
  }

  private readStamps(services: Services): void {
    const group: StampRead[] = [];
    const ids = new Set<string>();
    while (this.stampReads.length > 0) {
      const next = this.stampReads[0]!;
      if (next.apiKeyId !== null && !ids.has(next.apiKeyId) && ids.size >= STAMP_READS_MAX_KEYS) break;
      this.stampReads.shift();
      group.push(next);
      if (next.apiKeyId !== null) ids.add(next.apiKeyId);
    }
    if (group.length === 0) return;
    this.stampReadsInFlight++;
    void readStamps(services.db, [...ids])
      .then(
        ({ stamp, keys }) => {
          for (const read of group) read.resolve({ stamp, key: read.apiKeyId === null ? null : (keys.get(read.apiKeyId) ?? null) });
        },
        (error: unknown) => {
          for (const read of group) read.reject(error);
        },
      )
      .finally(() => {
        this.stampReadsInFlight--;
        if (this.stampReads.length > 0) this.readStamps(services);
      });
  }

  /** The answer kept under `key` if nothing but the stamp can have changed it since: the caller reads the stamp and compares. */
  candidate(services: Services, key: string): Kept | undefined {
    const kept = this.kept.get(key);
    if (!kept) return undefined;
    if ((kept.validUntil !== Infinity && kept.validUntil <= services.clock().getTime()) || !sessionsAre(services, kept.accountIds, kept.sessions)) {
      this.forget(key);
      return undefined;
    }
    // Least recently used first: a served answer moves to the end.
    this.kept.delete(key);
    this.kept.set(key, kept);
    return kept;
  }

  keep(services: Services, key: string, made: { stamp: string; rows: readonly AccountWithState[]; body: unknown; list: boolean }): AccountAnswer {
    const accountIds = made.rows.map((r) => r.id);
    const answer: Kept = {
      body: made.body,
      json: { bytes: Buffer.from(JSON.stringify(made.body)) },
      stamp: made.stamp,
      accountIds,
      sessions: sessionsOf(services, accountIds),
      validUntil: expiryOf(made.rows),
      list: made.list,
    };
    this.forget(key);
    this.kept.set(key, answer);
    if (answer.list) this.lists++;
    for (const [oldest, kept] of this.kept) {
      if (this.kept.size <= MAX_ANSWERS && this.lists <= MAX_LISTS) break;
      if (this.kept.size > MAX_ANSWERS || kept.list) this.forget(oldest);
    }
    return answer;
  }

  private forget(key: string): void {
    const kept = this.kept.get(key);
    if (!kept) return;
    this.kept.delete(key);
    if (kept.list) this.lists--;
  }
}

const answers = new WeakMap<object, AccountAnswers>();

/** The kept answers of a running service: one per Services, made at first use. */
export const accountAnswersOf = (services: Services): AccountAnswers => {
  let kept = answers.get(services);
  if (!kept) {
    kept = new AccountAnswers();
    answers.set(services, kept);
  }
  return kept;
};
