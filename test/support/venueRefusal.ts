// What the venue specs share: the code a venue refused a request with.
import { expect } from 'chai';
import { VenueError, type VenueErrorCode } from '../../engine/venues/port.js';

/** The code `attempt` was refused with; fails the spec when it succeeds or throws anything but a VenueError. */
export const refusal = async (attempt: Promise<unknown>): Promise<VenueErrorCode> => {
  try {
    await attempt;
  } catch (error) {
    if (error instanceof VenueError) return error.code;
    throw error;
  }
  return expect.fail('expected the venue to refuse') as never;
};
