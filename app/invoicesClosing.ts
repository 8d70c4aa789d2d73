// The monthly close of invoices (app/invoices.ts closeDueMonths) on the service's clock (the engine's:
// a virtual one in the specs), by one leased job (store/postgres/leases.ts: of several instances
// sharing a database one looks at a time; a dead instance's turn moves within seconds). Issuing is
// idempotent (invoice numbers are fixed by party and month, domain/invoice/number.ts), so a crash in the
// middle of a close issues the rest at the next look and nothing twice.
import { setTimeout as wait } from 'node:timers/promises';
import type { Leases } from '../store/postgres/leases.js';
import { closeDueMonths } from './invoices.js';
import type { Services } from './services.js';

export const INVOICES_CLOSE_LEASE = 'invoices-monthly-close';

const sleep = (ms: number, signal: AbortSignal): Promise<void> => wait(ms, undefined, { signal }).catch(() => undefined);

export class InvoicesClosing {
  private handle: { release(): Promise<void> } | null = null;

  constructor(
    private readonly services: Services,
    private readonly leases: Leases,
    /** How often the holder looks whether a month has ended (default a minute). */
    private readonly lookMs = 60_000,
  ) {}

  start(): void {
    this.handle = this.leases.hold(INVOICES_CLOSE_LEASE, (signal) => this.work(signal));
  }

  async stop(): Promise<void> {
    await this.handle?.release();
    this.handle = null;
  }

  private async work(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        const issued = await closeDueMonths(this.services);
        if (issued.length > 0) this.services.log.info(`invoices issued: ${issued.join(', ')}`);
      } catch (error) {
        this.services.log.warn(`the monthly close of invoices failed (tried again at the next look): ${String(error)}`);
      }
      await sleep(this.lookMs, signal);
    }
  }
}
