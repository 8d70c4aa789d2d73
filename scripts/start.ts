// npm start: the service with everything embedded unless DATABASE_URL / EVENTSTORE_CONNECTION_STRING say
// otherwise. Prints where it listens and how to authenticate; stops cleanly on SIGINT and SIGTERM.
// package.json runs it with `exec node`, so the process npm starts is this one: a signal to npm (npm
// forwards it), or to this process alone (a process manager that signals its direct child), stops the
// service and its embedded PostgreSQL; no shell or wrapper in between swallows one or orphans us.
import { ConfigError, loadConfig } from '../app/config.js';
import { createLogger } from '../app/logger.js';
import { startService } from '../app/service.js';
import { httpLayer } from '../api/httpLayer.js';

const log = createLogger();

const main = async (): Promise<void> => {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`configuration error: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }
  // Signals count from the first moment: one that comes while the service starts stops it once started.
  let signalled: string | null = null;
  let stop: (() => void) | null = null;
  const shutdown = (signal: string): void => {
    if (signalled) return;
    signalled = signal;
    log.info(`${signal} received, stopping`);
    stop?.();
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  let service: Awaited<ReturnType<typeof startService>> | null = null;
  // The embedded PostgreSQL died and could not be started again: stop, and say so with a non-zero exit.
  const onDatabaseLost = (error: Error): void => {
    console.error(`the service stops: ${error.message}`);
    void (service?.stop() ?? Promise.resolve()).finally(() => process.exit(1));
  };
  service = await startService(config, { http: httpLayer, log, onDatabaseLost });
  const running = service;
  stop = () => {
    running.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        log.error('stop failed', error);
        process.exit(1);
      },
    );
  };
  if (signalled) {
    stop();
    return;
  }
  const lines = [
    '',
    `Copy-trading service listening on ${service.url}`,
    `  OpenAPI document: ${service.url}/openapi.json`,
    `  Event store: ${service.eventStoreKind === 'postgres' ? 'PostgreSQL' : 'EventStoreDB'}; database: ${config.databaseUrl ? 'external (DATABASE_URL)' : `embedded PostgreSQL under ${config.dataDir}`}`,
  ];
  if (service.generatedKey) {
    lines.push(
      '',
      '  First start: a project-level API key was created for the default project.',
      '  It is shown only this once; keep it safe:',
      '',
      `    X-API-KEY: ${service.generatedKey.key}`,
      '',
      `  Try: curl -H 'X-API-KEY: ${service.generatedKey.key}' ${service.url}/accounts`,
    );
  } else if (config.bootstrapApiKey) {
    lines.push(`  Authenticate with the header X-API-KEY set to the value of BOOTSTRAP_API_KEY.`);
  } else {
    lines.push('  Authenticate with the header X-API-KEY: the key printed at the first start (or set BOOTSTRAP_API_KEY).');
  }
  lines.push('  Stop with Ctrl+C.', '');
  console.log(lines.join('\n'));
};

process.on('unhandledRejection', (error) => log.error('unhandled rejection', error));

main().catch((error: unknown) => {
  log.error('the service could not start', error);
  console.error(`the service could not start: ${error instanceof Error ? error.message || error.name : String(error ?? 'no reason was given')}`);
  process.exit(1);
});
