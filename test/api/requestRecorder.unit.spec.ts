// The audit log's request record masks every secret before it is queued: members whose names say
// password, secret, token, key or credential, at any depth and in arrays; the key and session headers.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import express from 'express';
import type { Kysely } from 'kysely';
import { MASK, maskedHeaders, maskedQuery, maskSecrets, RequestRecorder } from '../../api/auditLogs/requestRecorder.js';
import type { ApiRequestRow } from '../../projections/auditLogs/requests.js';
import type { ReadModels } from '../../projections/schema.js';

describe('request record masking', () => {
  it('masks secret members at any depth, in arrays too, and keeps the rest', () => {
    const body = {
      alias: 'kept',
      loginAccountPassword: 'p1',
      ctraderClientSecret: 's1',
      keyType: 'INTEGRATION',
      isInvestorPassword: true,
      setting: { authentication: { type: 'BEARER', token: 't1', secret: 's2', username: 'u', password: 'p2' }, url: 'https://x' },
      list: [{ apiKey: 'k1', name: 'n' }, 'plain'],
      proxy: null,
    };
    expect(maskSecrets(body)).to.deep.equal({
      alias: 'kept',
      loginAccountPassword: MASK,
      ctraderClientSecret: MASK,
      keyType: 'INTEGRATION',
      isInvestorPassword: true,
      setting: { authentication: { type: 'BEARER', token: MASK, secret: MASK, username: 'u', password: MASK }, url: 'https://x' },
      list: [{ apiKey: MASK, name: 'n' }, 'plain'],
      proxy: null,
    });
    expect(JSON.stringify(maskSecrets(body))).not.to.match(/p1|s1|t1|s2|p2|k1/);
  });

  it('masks the key, authorization and cookie headers, and any header naming a secret', () => {
    expect(
      maskedHeaders({
        'x-api-key': 'ct_abc',
        authorization: 'Bearer x',
        cookie: 'a=b',
        'x-account-api-key': 'ct_def',
        'x-webhook-secret': 'w',
        'content-type': 'application/json',
        accept: ['a', 'b'] as unknown as string,
      }),
    ).to.deep.equal({
      'x-api-key': MASK,
      authorization: MASK,
      cookie: MASK,
      'x-account-api-key': MASK,
      'x-webhook-secret': MASK,
      'content-type': 'application/json',
      accept: 'a, b',
    });
  });

  it('masks the value of every query parameter whose name says a secret', () => {
    expect(maskedQuery('apiKey=abc&limit=10&access_token=t&flag')).to.equal(`apiKey=${MASK}&limit=10&access_token=${MASK}&flag`);
    expect(maskedQuery('my%5Fpassword=p&x=1')).to.equal(`my%5Fpassword=${MASK}&x=1`);
  });
});

describe('request recorder', () => {
  /** A database that keeps what the recorder inserts. */
  const recordingDb = () => {
    const written: ApiRequestRow[] = [];
    const builder = {
      withTables: () => builder,
      insertInto: () => builder,
      values: (rows: ApiRequestRow[]) => {
        written.push(...rows);
        return builder;
      },
      onConflict: () => builder,
      execute: async () => [],
    };
    return { db: builder as unknown as Kysely<ReadModels>, written };
  };

  it('writes the records still queued when it stops (a graceful shutdown loses none)', async () => {
    const { db, written } = recordingDb();
    const log = { warn: () => undefined } as never;
    const recorder = new RequestRecorder({ db, log, clock: () => new Date('2026-03-02T12:00:00.000Z') });
    const app = express();
    app.use(express.json());
    app.use((_req, res, next) => {
      res.locals.caller = { projectId: '22222222-2222-4222-8222-222222222222', accountId: null, apiKeyId: null };
      next();
    });
    app.use(recorder.middleware);
    app.post('/x', (_req, res) => void res.status(400).json({ error: '[VALIDATION_FAILED]', message: 'no' }));
    const server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const res = await fetch(`http://127.0.0.1:${port}/x?token=t1`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'k1' },
        body: JSON.stringify({ password: 'p1', alias: 'a' }),
      });
      expect(res.status).to.equal(400);
      // The record is queued when the answer has been sent; the periodic writer runs every 100 ms.
      await new Promise((r) => setImmediate(r));
      await recorder.stop();
      expect(written).to.have.length(1);
      expect(written[0]).to.deep.include({ method: 'POST', endpoint: '/x', status_code: 400, query_string: `token=${MASK}` });
      expect(JSON.stringify(written[0])).not.to.match(/p1|k1|t1/);
    } finally {
      server.close();
    }
  });
});
