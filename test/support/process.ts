// The service as a real child process (npm start's script), for specs that stop, kill and restart it.
import { type ChildProcess, spawn } from 'node:child_process';
import { expect } from 'chai';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '../..');

export interface ServiceProcess {
  readonly child: ChildProcess;
  readonly url: string;
  out(): string;
}

/**
 * Starts scripts/start.ts and resolves once it printed where it listens (within `timeoutMs`, 90 s
 * unless a spec that starts several processes one after the other on a loaded machine needs longer).
 */
export const startProcess = (env: Record<string, string>, { timeoutMs = 90_000 }: { timeoutMs?: number } = {}): Promise<ServiceProcess> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    });
    let out = '';
    // A service that did not come up is killed, so it does not outlive the spec holding its database.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`service did not start within ${timeoutMs} ms:\n${out}`));
    }, timeoutMs);
    const onData = (d: Buffer) => {
      out += d.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match && out.includes('Stop with Ctrl+C')) {
        clearTimeout(timer);
        resolve({ child, out: () => out, url: match[1]! });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${code}:\n${out}`));
    });
  });

export const exitOf = (child: ChildProcess): Promise<number | null> =>
  new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(child.exitCode) : child.on('exit', (code) => resolve(code))));

/** `npm run project` (scripts/project.ts) as a child process with `env` over ours; answers its exit code and output. */
export const runProjectCli = (args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string; err: string }> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/project.ts', ...args], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', (code) => resolve({ code, out, err }));
  });

/** The key a command printed once (`X-API-KEY: ct_...`); fails the spec when there is none. */
export const keyIn = (out: string): string => {
  const key = /X-API-KEY: (ct_\S+)/.exec(out)?.[1];
  expect(key, out).to.be.a('string');
  return key!;
};
