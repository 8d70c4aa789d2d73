// The copier's history for the money-management specs: closed copies with these net results, the first
// closed first, returned newest first as the engine gives them.
import type { CopyRecord } from '../../../../domain/copy/features/rules.js';
import { record } from '../given.js';

const START = Date.parse('2026-01-07T08:00:00.000Z');
const minutes = (n: number): string => new Date(START + n * 60_000).toISOString();

/** Copy i opens at 08:00 + 2i minutes and closes a minute later (all before the specs' NOW, 10:00). */
export const closedCopies = (results: readonly (number | null)[], overrides: Partial<CopyRecord> = {}): CopyRecord[] =>
  results
    .map((result, i) =>
      record({ masterPositionId: `m-${i}`, slavePositionId: `s-${i}`, openedAt: minutes(2 * i), closedAt: minutes(2 * i + 1), result, ...overrides }),
    )
    .reverse();

/** The time between the close of copy i and the open of copy i + 1, for resets. */
export const afterCopy = (i: number): string => minutes(2 * i + 1.5);
