// The bootstrap key end to end (issue 13, item 12): its id is random (it was uuid v5 of the key's hash,
// so anyone reading an audit log could test guesses of the key offline), it shows no prefix of the
// operator's value, it keeps its id across restarts with the same BOOTSTRAP_API_KEY, and a restart with
// another value revokes it through an ordinary, audited revocation. Databases written before keep working.
import { expect } from 'chai';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { v5 as uuidv5 } from 'uuid';
import { hashApiKey } from '../../domain/apiKey/secret.js';
import { loadConfig } from '../../app/config.js';
import { type Logger, silentLogger } from '../../app/logger.js';
import { type RunningService, startService } from '../../app/service.js';
import { httpLayer } from '../../api/httpLayer.js';
import { apiKeyStream } from '../../domain/apiKey/events.js';
import { DEFAULT_PROJECT_ID } from '../../domain/project/decider.js';
import { projectStream } from '../../domain/project/events.js';
import { systemContext } from '../../domain/shared/command.js';
import { EVENT_ID_NAMESPACE } from '../../store/commandHandler.js';
import { PostgresEventStore } from '../../store/postgres/postgresEventStore.js';
import { migrateEventStore } from '../../store/postgres/schema.js';
import { freshDatabase } from '../support/postgres.js';
import { callService, type TestResponse } from '../support/service.js';
import { tempDir } from '../support/tempDirs.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const KEYS = `/projects/${DEFAULT_PROJECT_ID}/apiKeys`;
const FIRST_KEY = 'operator-chosen-first-bootstrap-key';
const SECOND_KEY = 'operator-chosen-second-bootstrap-key';
/** How the bootstrap key's id was made before issue 13. */
const legacyId = (key: string) => uuidv5(`apiKey:${hashApiKey(key)}`, EVENT_ID_NAMESPACE);

interface KeyDTO {
  readonly id: string;
  readonly name: string;
  readonly keyPrefix: string | null;
  readonly active: boolean;
  readonly revokedReason: string | null;
}

interface AuditLog {
  readonly action: string;
  readonly changes: Record<string, unknown>;
  readonly apiKeyId: string | null;
}

describe('the bootstrap key', () => {
  let running: RunningService | null = null;
  let lines: string[] = [];
  const log: Logger = { ...silentLogger, info: (m) => void lines.push(m), warn: (m) => void lines.push(m) };

  /** Starts the service on `databaseUrl` with this BOOTSTRAP_API_KEY (none: unset). */
  const start = async (databaseUrl: string, bootstrapKey: string | null): Promise<RunningService> => {
    await running?.stop();
    const dataDir = tempDir('ct-bootstrap-key-');
    const env: Record<string, string> = { DATABASE_URL: databaseUrl, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1' };
    if (bootstrapKey) env.BOOTSTRAP_API_KEY = bootstrapKey;
    lines = [];
    running = await startService(loadConfig(env), { http: httpLayer, log, venueTicker: false });
    return running;
  };
  const call = (key: string, method: string, route: string): Promise<TestResponse> => callService(running!.url, key, method, route);
  const keys = async (key: string): Promise<KeyDTO[]> => {
    const res = await call(key, 'GET', KEYS);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body as KeyDTO[];
  };
  const auditLogs = async (key: string): Promise<AuditLog[]> => {
    const res = await call(key, 'GET', `/projects/${DEFAULT_PROJECT_ID}/auditLogs?limit=1000`);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body as AuditLog[];
  };
  const whoAmI = async (key: string) => call(key, 'GET', '/apiKeys/current');

  afterEach(async () => {
    await running?.stop();
    running = null;
  });

  it('gets a random id, not one derived from the value, and shows no prefix of it', async () => {
    const one = await freshDatabase();
    const two = await freshDatabase();

    await start(one, FIRST_KEY);
    const first = (await whoAmI(FIRST_KEY)).body as KeyDTO;
    await start(two, FIRST_KEY);
    const second = (await whoAmI(FIRST_KEY)).body as KeyDTO;

    expect(first.id).to.match(UUID);
    expect(first.id).not.to.equal(legacyId(FIRST_KEY));
    expect(second.id).not.to.equal(first.id);
    expect(first).to.deep.include({ name: 'bootstrap key (BOOTSTRAP_API_KEY)', keyPrefix: null, active: true });
    const listed = (await keys(FIRST_KEY)).find((k) => k.id === second.id);
    expect(listed?.keyPrefix).to.equal(null);
    const issued = (await auditLogs(FIRST_KEY)).find((l) => l.action === 'ApiKeyIssued');
    expect(issued?.changes).to.deep.include({ apiKeyId: second.id, keyPrefix: null });
    expect(JSON.stringify(await auditLogs(FIRST_KEY))).not.to.include(FIRST_KEY.slice(0, 7));
  });

  it('keeps its id across restarts with the same BOOTSTRAP_API_KEY, issuing nothing again', async () => {
    const db = await freshDatabase();
    await start(db, FIRST_KEY);
    const before = (await whoAmI(FIRST_KEY)).body as KeyDTO;
    const logsBefore = await auditLogs(FIRST_KEY);

    await start(db, FIRST_KEY);

    const after = await whoAmI(FIRST_KEY);
    expect(after.status).to.equal(200);
    expect(after.body.id).to.equal(before.id);
    expect(await auditLogs(FIRST_KEY)).to.deep.equal(logsBefore);
    expect(await keys(FIRST_KEY)).to.have.length(1);
  });

  it('a restart with another BOOTSTRAP_API_KEY revokes the former one, in the audit log, and the new one works', async () => {
    const db = await freshDatabase();
    await start(db, FIRST_KEY);
    const former = (await whoAmI(FIRST_KEY)).body as KeyDTO;
    // A key the service generated is not the operator's: it stays.
    const integration = await callService(running!.url, FIRST_KEY, 'POST', KEYS, { body: { name: 'integration' } });
    expect(integration.status).to.equal(200);

    await start(db, SECOND_KEY);

    const refused = await whoAmI(FIRST_KEY);
    expect(refused.status).to.equal(401);
    expect(refused.body.error).to.equal('[API_KEY_REVOKED]');
    const current = await whoAmI(SECOND_KEY);
    expect(current.status).to.equal(200);
    expect(current.body.id).not.to.equal(former.id);
    expect((await whoAmI(integration.body.key as string)).status).to.equal(200);
    const listed = await keys(SECOND_KEY);
    expect(listed.find((k) => k.id === former.id)).to.deep.include({ active: false, revokedReason: 'REPLACED_BY_NEW_BOOTSTRAP_KEY' });
    expect(listed.find((k) => k.id === current.body.id)).to.deep.include({ active: true, keyPrefix: null });
    const revocation = (await auditLogs(SECOND_KEY)).find((l) => l.action === 'ApiKeyRevoked');
    expect(revocation?.changes).to.deep.include({ apiKeyId: former.id, reason: 'REPLACED_BY_NEW_BOOTSTRAP_KEY', replacedBy: current.body.id });
    expect(lines.some((l) => l.includes(`former bootstrap key ${former.id} was revoked`))).to.equal(true);
  });

  it('a restart with a revoked value leaves it revoked, says so, and keeps the working key', async () => {
    const db = await freshDatabase();
    await start(db, FIRST_KEY);
    await start(db, SECOND_KEY);
    const working = (await whoAmI(SECOND_KEY)).body as KeyDTO;

    await start(db, FIRST_KEY);

    expect((await whoAmI(FIRST_KEY)).body.error).to.equal('[API_KEY_REVOKED]');
    const still = await whoAmI(SECOND_KEY);
    expect(still.status).to.equal(200);
    expect(still.body.id).to.equal(working.id);
    expect(lines.some((l) => l.includes('BOOTSTRAP_API_KEY is the value of key') && l.includes('revoked'))).to.equal(true);
  });

  it('a first start without BOOTSTRAP_API_KEY generates a key with a random id and a prefix to recognise it', async () => {
    const db = await freshDatabase();
    const service = await start(db, null);

    const generated = service.generatedKey!;
    expect(generated.key).to.match(/^ct_/);
    expect(generated.apiKeyId).not.to.equal(legacyId(generated.key));
    const me = (await whoAmI(generated.key)).body as KeyDTO;
    expect(me).to.deep.include({ id: generated.apiKeyId, keyPrefix: generated.key.slice(0, 7), name: 'first-start key' });
    expect((await start(db, null)).generatedKey).to.equal(null);
  });

  describe('in a database written before random ids (id = uuid v5 of the hash, prefix kept)', () => {
    /** The events the former bootstrap wrote for FIRST_KEY. */
    const legacyDatabase = async (): Promise<string> => {
      const url = await freshDatabase();
      const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 1 }) }) });
      await migrateEventStore(db);
      await db.destroy();
      const store = await PostgresEventStore.connect(url);
      try {
        const at = new Date().toISOString();
        const metadata = { ...systemContext('bootstrap'), projectId: DEFAULT_PROJECT_ID, receivedAt: at };
        await store.appendToStream(
          projectStream(DEFAULT_PROJECT_ID),
          [{ id: crypto.randomUUID(), type: 'ProjectCreated', data: { projectId: DEFAULT_PROJECT_ID, name: 'Default project', owner: null, at }, metadata }],
          { expectedRevision: 'no_stream' },
        );
        await store.appendToStream(
          apiKeyStream(legacyId(FIRST_KEY)),
          [
            {
              id: crypto.randomUUID(),
              type: 'ApiKeyIssued',
              data: {
                apiKeyId: legacyId(FIRST_KEY),
                projectId: DEFAULT_PROJECT_ID,
                accountId: null,
                level: 'PROJECT',
                keyType: 'INTEGRATION',
                name: 'bootstrap key (BOOTSTRAP_API_KEY)',
                keyHash: hashApiKey(FIRST_KEY),
                keyPrefix: FIRST_KEY.slice(0, 7),
                expiresAt: null,
                at,
              },
              metadata,
            },
          ],
          { expectedRevision: 'no_stream' },
        );
      } finally {
        await store.dispose();
      }
      return url;
    };

    it('the old bootstrap key still authenticates with its old id when BOOTSTRAP_API_KEY is unchanged, and shows no prefix', async () => {
      const db = await legacyDatabase();

      await start(db, FIRST_KEY);

      const me = await whoAmI(FIRST_KEY);
      expect(me.status, JSON.stringify(me.body)).to.equal(200);
      expect(me.body).to.deep.include({ id: legacyId(FIRST_KEY), keyPrefix: null, active: true });
      expect(await keys(FIRST_KEY)).to.have.length(1);
    });

    it('another BOOTSTRAP_API_KEY revokes the old key too', async () => {
      const db = await legacyDatabase();

      await start(db, SECOND_KEY);

      expect((await whoAmI(FIRST_KEY)).body.error).to.equal('[API_KEY_REVOKED]');
      const current = await whoAmI(SECOND_KEY);
      expect(current.status).to.equal(200);
      expect(current.body.id).not.to.equal(legacyId(SECOND_KEY));
      const old = (await keys(SECOND_KEY)).find((k) => k.id === legacyId(FIRST_KEY));
      expect(old).to.deep.include({ active: false, revokedReason: 'REPLACED_BY_NEW_BOOTSTRAP_KEY' });
    });
  });
});
