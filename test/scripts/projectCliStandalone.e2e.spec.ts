// npm run project on its own (issue 17): no DATABASE_URL and no service running, so the script starts
// the embedded PostgreSQL under DATA_DIR itself, runs the command, and stops it again. Then `npm start`
// over the same DATA_DIR accepts the key the script printed, and while that service runs the script
// finds the service's embedded PostgreSQL instead of starting another one (postgres-runtime.json).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { exitOf, keyIn, runProjectCli, startProcess, type ServiceProcess } from '../support/process.js';
import { callService } from '../support/service.js';

const BOOTSTRAP = 'standalone-cli-bootstrap-key-0123456789';

/** The script as a child process, with DATABASE_URL and EVENTSTORE_CONNECTION_STRING unset. */
const project = (args: string[], dataDir: string) => runProjectCli(args, { DATABASE_URL: '', EVENTSTORE_CONNECTION_STRING: '', DATA_DIR: dataDir });

describe('npm run project without a running service (standalone)', function () {
  this.timeout(600_000);
  let dataDir: string;
  let service: ServiceProcess | null = null;
  before(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'ct-project-cli-'));
  });
  after(async () => {
    if (service) {
      service.child.kill('SIGTERM');
      await exitOf(service.child);
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('starts and stops the embedded PostgreSQL itself; the key it printed works with the service started later, and beside it', async () => {
    const pidFile = path.join(dataDir, 'postgres', 'postmaster.pid');
    const created = await project(['create', 'Standalone Customer', '--owner', 'ops@standalone.example'], dataDir);
    expect(created.code, created.err + created.out).to.equal(0);
    const projectId = /id: ([0-9a-f-]{36})/.exec(created.out)?.[1];
    expect(projectId, created.out).to.be.a('string');
    const first = keyIn(created.out);
    // the script made the database under DATA_DIR and stopped its PostgreSQL on the way out
    expect(existsSync(path.join(dataDir, 'postgres')), 'the embedded database').to.equal(true);
    expect(existsSync(pidFile), 'a PostgreSQL left running').to.equal(false);

    // a second standalone run finds the data of the first
    const listed = await project(['list', '--json'], dataDir);
    expect(listed.code, listed.err).to.equal(0);
    const projects = JSON.parse(listed.out) as { id: string; name: string }[];
    expect(projects.map((p) => p.name)).to.include.members(['Standalone Customer']);
    expect(existsSync(pidFile), 'a PostgreSQL left running').to.equal(false);

    // the service over the same DATA_DIR accepts the key at once
    service = await startProcess({
      DATABASE_URL: '',
      EVENTSTORE_CONNECTION_STRING: '',
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      BOOTSTRAP_API_KEY: BOOTSTRAP,
    });
    const url = service.url;
    const asFirst = await callService(url, first, 'GET', `/projects/${projectId}`);
    expect([asFirst.status, asFirst.body.name, asFirst.body.owner?.email]).to.deep.equal([200, 'Standalone Customer', 'ops@standalone.example']);

    // beside the running service, the script uses the service's PostgreSQL (no second one on the data)
    const another = await project(['key', 'Standalone Customer', '--name', 'second'], dataDir);
    expect(another.code, another.err + another.out).to.equal(0);
    const second = keyIn(another.out);
    const asSecond = await callService(url, second, 'GET', `/projects/${projectId}/apiKeys`);
    expect(asSecond.status).to.equal(200);
    expect(asSecond.body.map((k: { name: string }) => k.name).sort()).to.deep.equal(['first project key', 'second']);
    expect(existsSync(pidFile), "the service's PostgreSQL").to.equal(true);

    service.child.kill('SIGTERM');
    expect(await exitOf(service.child), service.out()).to.equal(0);
    service = null;
    expect(existsSync(pidFile), 'a PostgreSQL left running').to.equal(false);
  });
});
