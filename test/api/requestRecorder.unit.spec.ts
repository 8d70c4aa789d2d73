// The audit log's request record masks every secret before it is queued: members whose names say
// password, secret, token, key or credential, at any depth and in arrays; the key and session headers.
import { expect } from 'chai';
import { MASK, maskedHeaders, maskSecrets } from '../../api/auditLogs/requestRecorder.js';

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
});
