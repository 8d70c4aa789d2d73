// An HTTP server of a benchmark in a child process of its own (the service, the bare express app), so
// the load generator in this process never shares an event loop with it.
import { type ChildProcess, spawn } from 'node:child_process';
import { PROJECT_ROOT, scriptRun } from '../../../app/projectRoot.js';

export const ROOT = PROJECT_ROOT;

export interface ListeningProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** SIGTERM, then waits for the exit (the service stops its PostgreSQL first). */
  stop(): Promise<void>;
}

/**
 * Runs `node [nodeOptions] <script>` the way this process runs (compiled, or the source under tsx:
 * app/projectRoot.ts) and resolves once it printed `listening on <url>` (and `ready`, when given).
 */
export const startListening = (
  script: string,
  args: readonly string[],
  env: Record<string, string>,
  options: { ready?: string; nodeOptions?: readonly string[] } = {},
): Promise<ListeningProcess> =>
  new Promise((resolve, reject) => {
    const { ready, nodeOptions = [] } = options;
    const run = scriptRun(script);
    const child = spawn(process.execPath, [...run.execArgv, ...nodeOptions, run.file, ...args], { cwd: ROOT, env: { ...process.env, ...env } });
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${script} did not start in 120 s:\n${out}`));
    }, 120_000);
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    const onData = (data: Buffer) => {
      out += data.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match && (!ready || out.includes(ready))) {
        clearTimeout(timer);
        child.stdout!.off('data', onData);
        child.stderr!.off('data', onData);
        // Keep draining the pipes, so a chatty child never blocks on a full one.
        child.stdout!.resume();
        child.stderr!.on('data', (d: Buffer) => process.stderr.write(d));
        resolve({
          url: match[1]!,
          child,
          async stop() {
            if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
            await exited;
          },
        });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited with ${code} before listening:\n${out}`));
    });
  });
