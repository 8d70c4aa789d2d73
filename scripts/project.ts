// npm run project -- create NAME [--owner EMAIL] | list [--json] | key PROJECT [--name KEY_NAME]
//
// The operator's side of a self-hosted service: set up a customer's project with one command. It runs
// the same use cases as the API (app/commands/projects.ts: the project aggregate's commands, a key
// issued as POST /projects/{projectId}/apiKeys issues it) against the database `npm start` uses:
// DATABASE_URL when set, else the embedded PostgreSQL under DATA_DIR (started for the script when no
// service runs). The read models follow through a projection runner of its own, leased like the
// service's: while a service runs, the script waits for the service's read models instead.
// A new project-level key is printed once; only its hash is stored.
import { createProject, findLiveProjectByIdOrName, issueProjectLevelKey } from '../app/commands/projects.js';
import { createLogger } from '../app/logger.js';
import type { CommandServices } from '../app/services.js';
import type { RequestContext } from '../domain/shared/command.js';
import { DomainError } from '../domain/shared/errors.js';
import { allProjections } from '../projections/all.js';
import { listProjects } from '../projections/projects/queries.js';
import { ProjectionRunner } from '../projections/runner.js';
import { Leases } from '../store/postgres/leases.js';
import { connect, parseArgs } from './support/connect.js';
import { settle } from '../app/services.js';

const USAGE = `usage:
  npm run project -- create NAME [--owner EMAIL]   creates a project and prints its first project-level key (once)
  npm run project -- list [--json]                 every project: id, name, owner, created, deleted
  npm run project -- key PROJECT [--name KEY_NAME] prints a new project-level key of PROJECT (its id or name), once`;

const context = (projectId: string | null): RequestContext => ({
  apiKeyId: null,
  projectId,
  clientIp: null,
  method: null,
  path: null,
  correlationId: `cli-${crypto.randomUUID()}`,
});

const FLAGS = ['json', 'help'];
const OPTIONS = ['owner', 'name'];

/** `NAME words --option value --option=value --flag`: the words, and the options. */
const split = (argv: readonly string[]) => {
  const positional: string[] = [];
  const options: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) positional.push(arg);
    else if (arg.includes('=') || FLAGS.includes(arg.slice(2))) options.push(arg);
    else options.push(arg, argv[++i] ?? '');
  }
  return { positional, args: parseArgs(options, [...FLAGS, ...OPTIONS]) };
};

const printKey = (key: string, projectId: string) => {
  console.log(`\n  A project-level API key of project ${projectId}.\n  It is shown only this once; keep it safe:\n\n    X-API-KEY: ${key}\n`);
};

const main = async (): Promise<number> => {
  const [command, ...rest] = process.argv.slice(2);
  const { positional, args } = split(rest);
  if (!command || command === 'help' || command === '--help' || args.has('help')) {
    console.log(USAGE);
    return command ? 0 : 2;
  }
  if (!['create', 'list', 'key'].includes(command)) {
    console.error(`unknown command ${command}\n${USAGE}`);
    return 2;
  }
  const name = positional.join(' ').trim();
  if (command !== 'list' && name === '') {
    console.error(`${command} needs a project name\n${USAGE}`);
    return 2;
  }

  const log = createLogger(process.env.LOG_LEVEL ?? 'warn');
  const { db, store, config, connectionString, close } = await connect();
  const leases = new Leases(connectionString, log.child({ component: 'leases' }), { member: false });
  const runner = new ProjectionRunner(db, store, allProjections, log.child({ component: 'projections' }), leases);
  try {
    await runner.start();
    const services: CommandServices = { db, store, runner, config, log, clock: () => new Date() };
    await settle(services, ['projects', 'api_keys']);
    switch (command) {
      case 'create': {
        const { project, key } = await createProject(services, { name, owner: args.get('owner')?.[0] ?? null }, context(null));
        console.log(`Project created: ${project.name}\n  id: ${project.id}`);
        printKey(key.key, project.id);
        return 0;
      }
      case 'key': {
        const project = await findLiveProjectByIdOrName(services, name);
        const key = await issueProjectLevelKey(services, project.id, args.get('name')?.[0] ?? 'operator key', context(project.id));
        console.log(`New key ${key.apiKeyId} for project ${project.name}`);
        printKey(key.key, project.id);
        return 0;
      }
      default: {
        const projects = (await listProjects(db)).map((p) => ({
          id: p.id,
          name: p.name,
          owner: p.owner,
          created: new Date(p.created).toISOString(),
          deleted: p.deleted ? new Date(p.deleted).toISOString() : null,
        }));
        if (args.has('json')) console.log(JSON.stringify(projects, null, 2));
        else {
          for (const p of projects) {
            console.log([p.id, p.name, p.owner ?? '-', p.created, p.deleted ? `deleted ${p.deleted}` : 'live'].join('\t'));
          }
          console.log(`${projects.length} project(s)`);
        }
        return 0;
      }
    }
  } finally {
    await runner.stop();
    await leases.stop();
    await close();
  }
};

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(
      `project ${process.argv[2] ?? ''} failed: ${error instanceof DomainError ? `${error.code} ${error.message}` : error instanceof Error ? error.message : String(error)}`,
    );
    process.exit(1);
  },
);
