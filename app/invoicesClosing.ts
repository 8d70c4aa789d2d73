// The monthly close of invoices (app/invoices.ts closeDueMonths) on the service's clock (the engine's:
// a virtual one in the specs), by one leased job (store/postgres/leases.ts: of several instances
// sharing a database one looks at a time; a dead instance's turn moves within seconds). Issuing is
// idempotent (invoice numbers are fixed by party and month, domain/invoice/number.ts), so a crash in the
// middle of a close issues the rest at the next look and nothing twice.
import { LeasedLoop } from '../store/postgres/leasedLoop.js';
import type { Leases } from '../store/postgres/leases.js';
import { closeDueMonths } from './invoices.js';
import type { Services } from './services.js';

export const INVOICES_CLOSE_LEASE = 'invoices-monthly-close';

export class InvoicesClosing {
  private readonly loop: LeasedLoop;

  constructor(
    services: Services,
    leases: Leases,
    /** How often the holder looks whether a month has ended (default a minute). */
    lookMs = 60_000,
  ) {
    this.loop = new LeasedLoop({
      leases,
      lease: INVOICES_CLOSE_LEASE,
      everyMs: lookMs,
      rounds: services.jobRounds,
      round: async () => {
        const issued = await closeDueMonths(services);
        if (issued.length > 0) services.log.info(`invoices issued: ${issued.join(', ')}`);
      },
      failed: (error) => services.log.warn(`the monthly close of invoices failed (tried again at the next look): ${String(error)}`),
    });
  }

  start(): void {
    this.loop.start();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
  }
}
