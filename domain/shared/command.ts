// What every command carries besides its data: the clock and the request context arrive here, so
// deciders stay pure (no clock, no random source).

/** Who asked, from where: copied into the metadata of every event the command produces. */
export interface RequestContext {
  readonly apiKeyId: string | null;
  readonly projectId: string | null;
  readonly clientIp: string | null;
  readonly method: string | null;
  readonly path: string | null;
  readonly correlationId: string;
  /**
   * The service's own id of the API request (unique, unlike a client's correlation id): the audit log
   * finds the request's record by it. Absent for what no request of the API started.
   */
  readonly requestId?: string;
}

export interface CommandMetadata {
  /** ISO 8601 time the command was received. */
  readonly now: string;
  readonly context: RequestContext;
}

export const systemContext = (correlationId: string): RequestContext => ({
  apiKeyId: null,
  projectId: null,
  clientIp: null,
  method: null,
  path: null,
  correlationId,
});

/** A decider in the shape of Emmett's: decide never reads a clock; evolve never mutates. */
export interface Decider<Command, Event, State> {
  readonly decide: (command: Command, state: State) => readonly Event[];
  readonly evolve: (state: State, event: Event) => State;
  readonly initialState: State;
}
