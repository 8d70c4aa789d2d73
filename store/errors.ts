// Error classes of the event store port, named as in @eventstore/db-client.
import type { ConcurrencyConflict } from '../domain/shared/errors.js';
import type { AppendExpectedRevision } from './port.js';

export class WrongExpectedVersionError extends Error implements ConcurrencyConflict {
  override readonly name = 'WrongExpectedVersionError';
  readonly concurrencyConflict = true;
  constructor(
    readonly streamName: string,
    readonly expectedVersion: AppendExpectedRevision,
    readonly actualVersion: bigint | 'no_stream',
  ) {
    super(`${streamName}: expected revision ${String(expectedVersion)}, actual ${String(actualVersion)}`);
  }
}

export class StreamNotFoundError extends Error {
  override readonly name = 'StreamNotFoundError';
  constructor(readonly streamName: string) {
    super(`stream ${streamName} not found`);
  }
}

export class StreamDeletedError extends Error {
  override readonly name = 'StreamDeletedError';
  constructor(readonly streamName: string) {
    super(`stream ${streamName} is deleted`);
  }
}

/** A writer's transaction id is older than the stream's last writer's: retry the whole append. */
export class TransientAppendError extends Error implements ConcurrencyConflict {
  override readonly name = 'TransientAppendError';
  readonly concurrencyConflict = true;
}
