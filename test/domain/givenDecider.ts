// given / when / then for any decider: past events fold into the state; a command then decides
// exactly the expected events, or is refused with a DomainError of the expected code and kind.
import { expect } from 'chai';
import type { Decider } from '../../domain/shared/command.js';
import { DomainError } from '../../domain/shared/errors.js';

export const givenDecider =
  <Command, Event, State>(decider: Decider<Command, Event, State>) =>
  (events: readonly Event[]) => {
    const state = events.reduce(decider.evolve, decider.initialState);
    return {
      when: (command: Command) => ({
        then: (expected: readonly Event[]) => expect(decider.decide(command, state)).to.deep.equal(expected),
        /** Answers the refusal, for specs that look at its details. */
        thenRefuses: (code: string, kind: DomainError['kind']): DomainError => {
          try {
            decider.decide(command, state);
          } catch (error) {
            expect(error).to.be.instanceOf(DomainError);
            expect((error as DomainError).code).to.equal(code);
            expect((error as DomainError).kind).to.equal(kind);
            return error as DomainError;
          }
          return expect.fail(`expected ${code}`);
        },
      }),
    };
  };
