// The last good round of each timed leased job (leasedLoop.ts), kept in the database so that every
// instance's /ready sees it, whichever instance holds the job's lease (api/health.ts). One row per job
// (leased_job_rounds, read-model migration 0029): the pause between rounds its holder uses, when the
// holder won the lease, when a round last ended well, and the last failure with its error.
//
// A job is stalled when no round of it has ended well within READY_MISSED_ROUNDS × its pause (at least
// READY_MIN_STALL_SECONDS, so a slow round on a loaded machine is no outage), counted from the later of
// its last good round and the last win of its lease: no instance runs it (the lease is held by nobody,
// or by an instance whose loop hangs), or every round fails. A job this instance does not run (turned
// off by configuration: no NEWS_FEEDS) is not watched. A round that ends is good even when an outside
// source it reads failed (a news feed down): that is logged by the job, and an instance is no less ready
// for it; a round that throws (its database work failed) is not.
import { type Kysely, sql } from 'kysely';
import type { AnyKysely } from './checkpoints.js';

/** Rounds a job may miss before /ready says it is stalled. */
export const READY_MISSED_ROUNDS = 5;
/** A job is never called stalled sooner than this after its last good round. */
export const READY_MIN_STALL_SECONDS = 30;
const ERROR_LENGTH = 500;

export const JOB_ROUNDS_TABLE = 'leased_job_rounds';

export interface StalledJob {
  readonly name: string;
  /** Seconds since its last good round (or since its lease was last won, if later); null: no round and no holder recorded. */
  readonly secondsSinceGoodRound: number | null;
  readonly allowedSeconds: number;
  readonly reason: string;
}

/** How long a job with this pause may go without a good round. */
export const allowedSecondsOf = (everyMs: number): number => Math.max(READY_MIN_STALL_SECONDS, Math.ceil((READY_MISSED_ROUNDS * everyMs) / 1000));

/**
 * A good round is written at most once per half of the job's allowed time (a job looking every second
 * writes every 15 s; one looking every minute, every third round): the row is then at most half the
 * allowed time plus one pause behind, and the allowed time is at least five pauses, so a job whose
 * rounds go well is never seen stalled, while an idle service writes a row a second less.
 */
export const goodRoundWriteMsOf = (everyMs: number): number => (allowedSecondsOf(everyMs) * 1000) / 2;

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error)).slice(0, ERROR_LENGTH);

/**
 * The jobs this instance runs (whether or not it holds their lease now) and the writes of their rounds.
 * Writing a round never fails the round: a write that fails is tried again at the next one.
 */
export class JobRounds {
  private readonly watched = new Map<string, { everyMs: number; since: number }>();
  private readonly lastWrite = new Map<string, number>();
  /** How many loops of each job run here (a spec may start a second one beside the service's own). */
  private readonly loops = new Map<string, number>();

  constructor(private readonly db: AnyKysely) {}

  private get sql(): Kysely<unknown> {
    return this.db as unknown as Kysely<unknown>;
  }

  /** The job runs on this instance from now on (LeasedLoop.start). */
  watch(lease: string, everyMs: number): void {
    if (!this.watched.has(lease)) this.watched.set(lease, { everyMs, since: Date.now() });
    this.loops.set(lease, (this.loops.get(lease) ?? 0) + 1);
  }

  /** The job was stopped here (it stays watched while another loop of it runs here). */
  unwatch(lease: string): void {
    const left = (this.loops.get(lease) ?? 1) - 1;
    if (left > 0) {
      this.loops.set(lease, left);
      return;
    }
    this.loops.delete(lease);
    this.watched.delete(lease);
  }

  get jobs(): ReadonlyMap<string, { readonly everyMs: number; readonly since: number }> {
    return this.watched;
  }

  /** This instance won the job's lease: its term starts now. */
  async won(lease: string, everyMs: number): Promise<void> {
    this.lastWrite.delete(lease);
    await this.write(sql`INSERT INTO leased_job_rounds (lease, every_ms, won) VALUES (${lease}, ${everyMs}, now())
      ON CONFLICT (lease) DO UPDATE SET every_ms = excluded.every_ms, won = excluded.won`);
  }

  /** A round ended well. */
  async good(lease: string, everyMs: number): Promise<void> {
    const last = this.lastWrite.get(lease);
    if (last !== undefined && Date.now() - last < goodRoundWriteMsOf(everyMs)) return;
    if (
      await this.write(sql`INSERT INTO leased_job_rounds (lease, every_ms, good) VALUES (${lease}, ${everyMs}, now())
      ON CONFLICT (lease) DO UPDATE SET every_ms = excluded.every_ms, good = excluded.good`)
    )
      this.lastWrite.set(lease, Date.now());
  }

  /** A round threw `error`. */
  async failed(lease: string, everyMs: number, error: unknown): Promise<void> {
    this.lastWrite.delete(lease);
    await this.write(sql`INSERT INTO leased_job_rounds (lease, every_ms, failed, error) VALUES (${lease}, ${everyMs}, now(), ${messageOf(error)})
      ON CONFLICT (lease) DO UPDATE SET every_ms = excluded.every_ms, failed = excluded.failed, error = excluded.error`);
  }

  private async write(statement: ReturnType<typeof sql>): Promise<boolean> {
    try {
      await statement.execute(this.sql);
      return true;
    } catch {
      return false;
    }
  }

  /** The watched jobs without a good round in their allowed time, with why (one query). */
  async stalled(): Promise<StalledJob[]> {
    if (this.watched.size === 0) return [];
    const rows = (
      await sql<{ lease: string; every_ms: number; good_ago: number | null; won_ago: number | null; failed_ago: number | null; error: string | null }>`
      SELECT lease, every_ms, EXTRACT(EPOCH FROM now() - good)::float8 AS good_ago, EXTRACT(EPOCH FROM now() - won)::float8 AS won_ago,
        EXTRACT(EPOCH FROM now() - failed)::float8 AS failed_ago, error
      FROM leased_job_rounds WHERE lease = ANY(${[...this.watched.keys()]}::text[])`.execute(this.sql)
    ).rows;
    const byLease = new Map(rows.map((r) => [r.lease, r]));
    const stalled: StalledJob[] = [];
    for (const [name, job] of [...this.watched].sort(([a], [b]) => a.localeCompare(b))) {
      const row = byLease.get(name);
      const allowedSeconds = allowedSecondsOf(row?.every_ms ?? job.everyMs);
      const agos = [row?.good_ago, row?.won_ago].filter((a): a is number => a !== null && a !== undefined);
      // Without any row the job has not run anywhere yet: counted from when this instance started it.
      const since = agos.length > 0 ? Math.min(...agos) : (Date.now() - job.since) / 1000;
      if (since <= allowedSeconds) continue;
      const failing = row?.failed_ago != null && (row.good_ago == null || row.failed_ago < row.good_ago);
      const reason = failing
        ? `its rounds fail: ${row.error ?? 'no error recorded'}`
        : row?.good_ago == null && row?.won_ago == null
          ? 'no instance has run a round of it'
          : 'no round has ended: no instance holds its lease, or its round hangs';
      stalled.push({ name, secondsSinceGoodRound: agos.length > 0 ? Math.round(since) : null, allowedSeconds, reason });
    }
    return stalled;
  }
}
