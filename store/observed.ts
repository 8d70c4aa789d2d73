// An event store that tells an observer about every append it made: how long it took and what was
// appended. The operator's signals (/metrics: append latency, copy latency) listen here, so neither
// the store adapters nor the copy engine carry a metrics dependency: the composition root wraps the
// store it opened, once.
import { EventEmitter } from 'node:events';
import type { AppendResult, EventData, EventStore, StreamAppend } from './port.js';

export interface AppendObservation {
  /** How many streams the append wrote (appendToStreams: more than one). */
  readonly streams: number;
  readonly events: readonly EventData[];
  readonly seconds: number;
  readonly ok: boolean;
}

/** Where the observations go: listeners of 'append' (none: nothing is kept). */
export class StoreSignals extends EventEmitter {
  constructor() {
    super();
    this.setMaxListeners(0);
  }

  onAppend(listener: (observation: AppendObservation) => void): () => void {
    this.on('append', listener);
    return () => this.off('append', listener);
  }

  report(observation: AppendObservation): void {
    // A listener's failure never reaches the append.
    try {
      this.emit('append', observation);
    } catch {
      // ignored on purpose: signals are best effort
    }
  }
}

const timed = async <T>(signals: StoreSignals, streams: number, events: readonly EventData[], append: () => Promise<T>): Promise<T> => {
  const started = process.hrtime.bigint();
  let ok = false;
  try {
    const result = await append();
    ok = true;
    return result;
  } finally {
    signals.report({ streams, events, seconds: Number(process.hrtime.bigint() - started) / 1e9, ok });
  }
};

/** `store` with its appends reported to `signals`; every other call goes to `store` unchanged. */
export const observeAppends = (store: EventStore, signals: StoreSignals): EventStore =>
  new Proxy(store, {
    get(target, property) {
      if (property === 'appendToStream') {
        return (streamName: string, events: EventData | readonly EventData[], options?: Parameters<EventStore['appendToStream']>[2]): Promise<AppendResult> =>
          timed(signals, 1, Array.isArray(events) ? (events as readonly EventData[]) : [events as EventData], () =>
            target.appendToStream(streamName, events, options),
          );
      }
      if (property === 'appendToStreams') {
        return (appends: readonly StreamAppend[]): Promise<readonly AppendResult[]> =>
          timed(
            signals,
            appends.length,
            appends.flatMap((a) => a.events),
            () => target.appendToStreams(appends),
          );
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
