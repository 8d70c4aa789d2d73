// ccxt's error classes as the venue port's refusals (the error codes the Trading API already answers).
// A network error, a timeout, a rate limit or an exchange outage is not a refusal: it is thrown as a
// plain Error (the caller retries; a placement first looks its order up by client id, connection.ts).
import { VenueError, type VenueErrorCode } from '../port.js';

/** The name of the first ccxt error class in `error`'s prototype chain that we map. */
const classesOf = (error: unknown): string[] => {
  const names: string[] = [];
  for (let proto: unknown = error === null || typeof error !== 'object' ? null : Object.getPrototypeOf(error); proto; proto = Object.getPrototypeOf(proto)) {
    const name = (proto as { constructor?: { name?: string } }).constructor?.name;
    if (name) names.push(name);
  }
  return names;
};

/** True: the request may or may not have reached the exchange (look it up before trying again). */
export const isTransient = (error: unknown): boolean => classesOf(error).some((n) => n === 'NetworkError');

const REFUSALS: readonly [string, VenueErrorCode][] = [
  ['AuthenticationError', '[INVALID_CREDENTIALS]'],
  ['PermissionDenied', '[INVALID_CREDENTIALS]'],
  ['AccountSuspended', '[INVALID_CREDENTIALS]'],
  ['InsufficientFunds', '[NOT_ENOUGH_MONEY]'],
  ['BadSymbol', '[SYMBOL_NOT_FOUND]'],
  ['OrderNotFound', '[ORDER_NOT_FOUND]'],
  ['InvalidOrder', '[INVALID_REQUEST]'],
  ['BadRequest', '[INVALID_REQUEST]'],
];

/** The VenueError for a ccxt refusal; other errors (network, outage, our own bugs) come back as they are. */
export const venueErrorOf = (error: unknown): unknown => {
  if (error instanceof VenueError || isTransient(error)) return error;
  const classes = classesOf(error);
  const message = error instanceof Error ? error.message : String(error);
  for (const [name, code] of REFUSALS) {
    if (!classes.includes(name)) continue;
    // A lot or notional filter is about the volume.
    const volume = code === '[INVALID_REQUEST]' && /LOT_SIZE|NOTIONAL|quantity|amount|qty|sz/i.test(message);
    return new VenueError(volume ? '[INVALID_VOLUME]' : code, `the exchange refused: ${message}`);
  }
  return error;
};
