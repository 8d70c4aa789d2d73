// Domain errors carry the spec's error code (`[CODE]`); the API maps each kind to an HTTP status.

export type DomainErrorKind = 'validation' | 'notFound' | 'conflict' | 'forbidden' | 'tooManyRequests' | 'unauthorized';

export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    readonly code: string,
    message: string,
    readonly details?: Readonly<Record<string, unknown>>,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const illegalState = (code: string, message: string): DomainError => new DomainError('conflict', code, message);
export const notFound = (code: string, message: string): DomainError => new DomainError('notFound', code, message);
export const invalid = (code: string, message: string, details?: Record<string, unknown>): DomainError => new DomainError('validation', code, message, details);

/**
 * Another writer changed the same aggregate first, and the command handler's retries ran out: errors
 * that say so (the event store's WrongExpectedVersionError and TransientAppendError) carry this mark, so
 * the API answers 409 [CONCURRENT_MODIFICATION] without knowing the store.
 */
export interface ConcurrencyConflict {
  readonly concurrencyConflict: true;
}

export const isConcurrencyConflict = (error: unknown): error is ConcurrencyConflict =>
  typeof error === 'object' && error !== null && (error as Partial<ConcurrencyConflict>).concurrencyConflict === true;
