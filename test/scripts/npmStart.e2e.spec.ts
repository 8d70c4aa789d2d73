// `npm start` under a process manager that signals only the process it started (systemd's main
// process, `docker stop` with npm as PID 1): SIGINT or SIGTERM to npm stops the service and its
// embedded PostgreSQL, with exit code 0. Regression (issue 13): SIGINT was swallowed by the shell npm
// ran, and SIGTERM left node and postgres running.
// npm start runs the compiled JavaScript under dist/ (scripts/build.js, issue 16: no tsx at run time), so
// these are the specs of that start too: it compiles what changed, and the files the service reads next
// to its code (the console's pages, the API documentation, the shipped brokers list) are found from dist/.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { exitOf, ROOT } from '../support/process.js';
import { TEST_KEY } from '../support/service.js';

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const npmStart = (dataDir: string): Promise<{ child: ChildProcess; out: () => string }> =>
  new Promise((resolve, reject) => {
    const child = spawn('npm', ['start'], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', BOOTSTRAP_API_KEY: TEST_KEY, LOG_LEVEL: 'warn' },
    });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`npm start did not start:\n${out}`)), 90_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      if (out.includes('Stop with Ctrl+C')) {
        clearTimeout(timer);
        resolve({ child, out: () => out });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`npm start exited with ${code}:\n${out}`)));
  });

describe('npm start and signals', function () {
  this.timeout(180_000);
  const dirs: string[] = [];
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`stops the service and its PostgreSQL when npm alone receives ${signal}`, async () => {
      const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ct-npm-start-'));
      dirs.push(dataDir);
      const { child, out } = await npmStart(dataDir);
      const postmaster = Number.parseInt(readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]!, 10);
      const service = (JSON.parse(readFileSync(path.join(dataDir, 'postgres-runtime.json'), 'utf8')) as { pid: number }).pid;
      child.kill(signal);
      expect(await exitOf(child), out()).to.equal(0);
      expect(alive(service), 'the node process').to.equal(false);
      expect(alive(postmaster), 'the postmaster').to.equal(false);
      expect(existsSync(path.join(dataDir, 'postgres', 'postmaster.pid'))).to.equal(false);
    });
  }

  it('runs compiled, finds its files from dist/, and keeps its secrets from other users: DATA_DIR closed to others, secret files 0600, and the service role no superuser', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ct-npm-secrets-'));
    dirs.push(dataDir);
    execFileSync(process.execPath, ['scripts/build.js'], { cwd: ROOT, stdio: 'pipe' });
    const { child, out } = await npmStart(dataDir);
    try {
      // The service runs the compiled start, which had nothing to compile after the build above.
      const service = (JSON.parse(readFileSync(path.join(dataDir, 'postgres-runtime.json'), 'utf8')) as { pid: number }).pid;
      expect(readFileSync(`/proc/${service}/cmdline`, 'utf8').split('\0')).to.include(path.join('dist', 'scripts', 'start.js'));
      expect(out(), 'a start after a start compiles nothing').to.not.match(/compiled \d+ of/);
      const url = /listening on (http:\/\/\S+)/.exec(out())![1]!;
      const origin = new URL(url).origin;
      for (const [address, type] of [
        [`${origin}/console`, 'text/html'],
        [`${origin}/console/app.js`, 'javascript'],
        [`${origin}/console/vendor/preact.mjs`, 'javascript'],
        [`${url}/docs`, 'text/html'],
        [`${url}/docs/assets/swagger-ui-bundle.js`, 'javascript'],
      ] as const) {
        const response = await fetch(address);
        expect(response.status, address).to.equal(200);
        expect(response.headers.get('content-type'), address).to.include(type);
      }
      const brokers = await fetch(`${url}/brokers/1/all`, { headers: { 'X-API-KEY': TEST_KEY } });
      expect(brokers.status).to.equal(200);
      expect(
        ((await brokers.json()) as { simulated: boolean }[]).some((b) => !b.simulated),
        'the shipped brokers',
      ).to.equal(true);
      expect(statSync(dataDir).mode & 0o007, 'others on DATA_DIR').to.equal(0);
      for (const file of ['postgres-runtime.json', 'postgres-credentials.json', 'credentials.key']) {
        expect(statSync(path.join(dataDir, file)).mode & 0o077, file).to.equal(0);
      }
      const runtime = readFileSync(path.join(dataDir, 'postgres-runtime.json'), 'utf8');
      const credentials = JSON.parse(readFileSync(path.join(dataDir, 'postgres-credentials.json'), 'utf8')) as { admin: { password: string } };
      expect(runtime).to.not.include(encodeURIComponent(credentials.admin.password));
      const pg = (await import('pg')).default;
      const client = new pg.Client({ connectionString: (JSON.parse(runtime) as { connectionString: string }).connectionString });
      await client.connect();
      try {
        const { rows } = await client.query<{ rolsuper: boolean; rolcreaterole: boolean }>(
          'SELECT rolsuper, rolcreaterole FROM pg_roles WHERE rolname = current_user',
        );
        expect(rows[0]).to.deep.equal({ rolsuper: false, rolcreaterole: false });
      } finally {
        await client.end();
      }
    } finally {
      child.kill('SIGTERM');
      expect(await exitOf(child), out()).to.equal(0);
    }
  });
});
