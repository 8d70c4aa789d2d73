// npm run calendar -- import FILE [FILE...] [--json] | sync URL [--json]
//
// The operator's import of the economic calendar: a CSV, JSON, XML or iCal file (engine/calendar/formats.ts)
// or the weekly feed at a URL, through the same use case as the service's sources (app/calendar.ts): each
// release is published, a changed one revised, the same one left alone. Same database as `npm start`
// (scripts/support/connect.ts); the read models follow through a projection runner of its own, leased like
// the service's, so while a service runs, the script waits for the service's read models instead.
import { importCalendar } from '../app/calendar.js';
import { createLogger } from '../app/logger.js';
import type { CommandServices } from '../app/services.js';
import { fileSource, httpSource } from '../engine/calendar/source.js';
import { allProjections } from '../projections/all.js';
import { ProjectionRunner } from '../projections/runner.js';
import { Leases } from '../store/postgres/leases.js';
import { connect } from './support/connect.js';

const USAGE = `usage:
  npm run calendar -- import FILE [FILE...] [--json]   imports calendar files (CSV, JSON, XML, iCal; format by the file's name)
  npm run calendar -- sync URL [--json]                imports the weekly-calendar feed (JSON or XML) at URL once`;

const main = async (): Promise<number> => {
  const [command, ...rest] = process.argv.slice(2);
  const json = rest.includes('--json');
  const targets = rest.filter((a) => a !== '--json');
  if (!command || command === 'help' || command === '--help') {
    console.log(USAGE);
    return command ? 0 : 2;
  }
  if (!['import', 'sync'].includes(command) || targets.length === 0 || (command === 'sync' && targets.length !== 1)) {
    console.error(`${command} ${targets.join(' ')}: ${command === 'import' || command === 'sync' ? 'what to import is missing' : 'unknown command'}\n${USAGE}`);
    return 2;
  }
  const log = createLogger(process.env.LOG_LEVEL ?? 'warn');
  const { db, store, config, connectionString, close } = await connect();
  const leases = new Leases(connectionString, log.child({ component: 'leases' }));
  const runner = new ProjectionRunner(db, store, allProjections, log.child({ component: 'projections' }), leases);
  try {
    await runner.start();
    const services: CommandServices = { db, store, runner, config, log, clock: () => new Date() };
    const sources = command === 'sync' ? [httpSource(targets[0]!)] : targets.map((file) => fileSource(file));
    const results = [];
    for (const source of sources) results.push(await importCalendar(services, source));
    if (json) console.log(JSON.stringify(results, null, 2));
    else {
      for (const r of results) {
        console.log(`${r.source}: ${r.read} read, ${r.published} published, ${r.revised} revised, ${r.unchanged} unchanged, ${r.skipped.length} skipped`);
        for (const s of r.skipped) console.log(`  skipped: ${s}`);
      }
    }
    return results.every((r) => r.read > 0) ? 0 : 1;
  } finally {
    await runner.stop();
    await leases.stop();
    await close();
  }
};

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`calendar ${process.argv[2] ?? ''} failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
