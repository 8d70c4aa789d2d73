// What the routers need: the read-model database, the event store, the projection runner (a write
// answers only after the read models include its events), the credential cipher and the clock.
import { type Kysely, sql } from 'kysely';
import type { CommandMetadata, Decider, RequestContext } from '../domain/shared/command.js';
import type { ProjectionRunner } from '../projections/runner.js';
import type { ReadModels } from '../projections/schema.js';
import { type DomainEvent, handleCommand, type HandleCommandOptions, type HandledCommand } from '../store/commandHandler.js';
import type { EventStore, Position } from '../store/port.js';

/** A place in `$all`: what a write answers and read-your-writes waits for. */
export type { Position };
import type { DatabaseHealth } from '../store/postgres/health.js';
import type { JobRounds } from '../store/postgres/jobRounds.js';
import type { StoreSignals } from '../store/observed.js';
import type { CopyEngineControl } from '../engine/copy/partitions.js';
import type { AccountSessions } from '../engine/venues/connections.js';
import type { VenueHost } from '../engine/venues/host.js';
import type { VenueOrderTimings } from '../engine/venues/latency.js';
import type { Outbox } from '../engine/delivery/outbox.js';
import type { AccountCreationQueue } from './accounts/asyncCreation.js';
import type { Config } from './config.js';
import type { CredentialCipher } from './credentials.js';
import type { Logger } from './logger.js';

export interface Services {
  readonly db: Kysely<ReadModels>;
  readonly store: EventStore;
  readonly runner: ProjectionRunner;
  readonly cipher: CredentialCipher;
  readonly config: Config;
  readonly log: Logger;
  readonly clock: () => Date;
  /** The built-in simulated venue: on the instance holding the venue sessions (it throws elsewhere). */
  readonly venues: VenueHost;
  /** The live venue session of every started account: local on the instance holding them, remote elsewhere (app/venueSessions.ts). */
  readonly connections: AccountSessions;
  /** The order round trips of the venue sessions while this instance holds them, whenever it took them (/metrics listens). */
  readonly venueOrderTimings: VenueOrderTimings;
  /** The copy engine: this instance's share of its partitions (engine/copy/partitions.ts). */
  readonly engine: CopyEngineControl;
  /** Outgoing HTTP deliveries (callbacks): a durable outbox. */
  readonly outbox: Outbox;
  /** Queued asynchronous account creations (POST /accounts with callbackUrl). */
  readonly accountCreations: AccountCreationQueue;
  /** Whether the database can be reached (503 [DATABASE_UNAVAILABLE] while it cannot). */
  readonly health: DatabaseHealth;
  /** The news, alerts and chat jobs this instance runs, with their last good rounds as every instance records them (/ready). */
  readonly jobRounds: JobRounds;
  /** What the event store appended and how long it took: the operator's signals (api/metrics.ts) listen. */
  readonly signals: StoreSignals;
}

/**
 * What running a command needs: the stores, the read models' runner, configuration, log and clock. The
 * operator's command line (scripts/project.ts) runs the same use cases with no more than this.
 */
export type CommandServices = Pick<Services, 'db' | 'store' | 'runner' | 'config' | 'log' | 'clock'>;

export const commandMetadata = (services: Pick<Services, 'clock'>, context: RequestContext): CommandMetadata => ({
  now: services.clock().toISOString(),
  context,
});

/**
 * The read models a request reads its answer from (projection names: 'copiers', 'accounts', ...):
 * read-your-writes waits for these only. Omitted: every read model.
 */
export type ReadModelNames = readonly string[];

/**
 * Waits until the read models named (all when none are) include `position`; logs when they do not in
 * time. False then: an answer read from them may not show the write (answer it otherwise, e.g. from the
 * write's own events, api/accounts/dto.ts createdAccountDTO).
 */
export const readYourWrites = async (services: CommandServices, position: Position, what: string, readModels?: ReadModelNames): Promise<boolean> => {
  if (await services.runner.waitFor(position, services.config.readModelWaitMs, readModels)) return true;
  services.log.warn(`read models ${readModels?.join(', ') ?? '(all)'} did not reach ${what} within ${services.config.readModelWaitMs} ms`);
  return false;
};

/**
 * Runs a command and waits until the read models named (all when none are) include its events.
 * `options`: handleCommand's (a state the caller already knows, event ids).
 */
export const execute = async <Command extends { metadata: CommandMetadata }, Event extends DomainEvent, State>(
  services: CommandServices,
  streamName: string,
  decider: Decider<Command, Event, State>,
  command: Command,
  readModels?: ReadModelNames,
  options?: HandleCommandOptions<State, Event>,
): Promise<HandledCommand<State, Event>> => {
  const result = await handleCommand(services.store, streamName, decider, command, options);
  if (result.position) await readYourWrites(services, result.position, streamName, readModels);
  return result;
};

/**
 * Waits until the copy engine has handled the event at `position` (a copier event it acts on: resync,
 * copyOpenPositions) and the read models include what it did, so the answer shows the copies.
 */
export const afterCopyEngine = async (services: Services, position: Position | null, readModels?: ReadModelNames): Promise<void> => {
  if (!position) return;
  if (!(await services.engine.handled(position, services.config.readModelWaitMs))) {
    services.log.warn('the copy engine did not handle a copier event in time');
  }
  await settle(services, readModels);
};

/**
 * Waits until the read models named (all when none are) include every event committed before the call
 * (writes that span several streams, or that a venue session recorded on its own). False when they
 * did not in time (readYourWrites).
 */
export const settle = async (services: CommandServices, readModels?: ReadModelNames): Promise<boolean> => {
  const head = await services.store.lastCommittedPosition();
  return head ? readYourWrites(services, head, 'the head of the store', readModels) : true;
};

const localTurns = new Map<string, Promise<unknown>>();

/**
 * Runs `work` while holding a PostgreSQL advisory lock named `name`, so every instance of the service
 * takes its turn. The lock belongs to one pooled session and is released even when `work` fails.
 * Callers in this process first queue in memory, so at most one pooled connection per name waits on
 * the lock: otherwise a burst of waiters holds every connection of the pool while the holder needs one
 * to finish (15 concurrent POST /accounts of one project hung the service).
 */
export const oneAtATime = <T>(services: Pick<Services, 'db'>, name: string, work: () => Promise<T>): Promise<T> => {
  const previous = localTurns.get(name) ?? Promise.resolve();
  const turn = previous.then(() =>
    services.db.connection().execute(async (conn) => {
      await sql`SELECT pg_advisory_lock(hashtext(${name}))`.execute(conn);
      try {
        return await work();
      } finally {
        await sql`SELECT pg_advisory_unlock(hashtext(${name}))`.execute(conn);
      }
    }),
  );
  const done = turn.then(
    () => undefined,
    () => undefined,
  );
  localTurns.set(name, done);
  void done.then(() => {
    if (localTurns.get(name) === done) localTurns.delete(name);
  });
  return turn;
};
