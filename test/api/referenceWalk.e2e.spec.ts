// Issue 15: a customer's walk in the reference's shapes only, as a client generated from the reference
// document (OpenAPI 1.2.5) would make it: the types, two accounts, a copier, a market order with a
// requestId, the copy, account information, history, logs, a copier feature, a risk limit of 0.05, the
// close and the deletion. Every body sent is a reference request body, and every answer of an operation
// the reference defines is checked against the reference's schema by t.call (test/support/contract.ts)
// wherever test/support/referenceGaps.ts lists no open gap; here it is also checked explicitly, gaps or
// not, member by member for what the walk reads.
import { expect } from 'chai';
import { referenceErrors, referenceRequestValidator, referenceResponseValidator } from '../support/reference.js';
import { startTestService, type TestService } from '../support/service.js';
import { eventually, marketHoursClock, pinQuotes } from '../support/trading.js';

describe("A reference client's walk (reference shapes only)", function () {
  this.timeout(60_000);
  let t: TestService;

  before(async () => {
    t = await startTestService({ clock: marketHoursClock() });
    await pinQuotes(t, { EURUSD: [1.085, 1.0852] });
  });
  after(() => t?.stop());

  /** Sends a reference request body (checked against the reference first) and answers the response. */
  const send = async (method: string, path: string, body?: Record<string, unknown>) => {
    if (body !== undefined) {
      const validate = referenceRequestValidator(method, path);
      expect(validate(body), `${method} ${path} request: ${referenceErrors(validate)}`).to.equal(true);
    }
    return t.call(method, path, body === undefined ? {} : { body });
  };
  /** The answer, checked against the reference's response schema for its status. */
  const answer = async (method: string, path: string, status: number, body?: Record<string, unknown>) => {
    const res = await send(method, path, body);
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).to.equal(status);
    const validate = referenceResponseValidator(method, path, status);
    expect(validate(res.body), `${method} ${path} answer: ${referenceErrors(validate)}`).to.equal(true);
    return res;
  };

  it('walks from the types to the deletion of both accounts', async () => {
    // The enumerations, as objects with ids.
    const types = (await answer('GET', '/types/accountTypes', 200)).body as { id: number; name: string }[];
    const regions = (await answer('GET', '/types/regions', 200)).body as { id: number; name: string }[];
    expect(types.length).to.be.greaterThan(0);
    expect(regions.length).to.be.greaterThan(0);
    const scaleTypes = (await answer('GET', '/types/scaleTypes', 200)).body as { id: number; name: string }[];
    expect(scaleTypes.map((s) => s.id)).to.include.members([1, 2, 3, 4]);

    // Two accounts, as a generated client sends an AccountDTO.
    const accountBody = (alias: string, login: string) => ({
      loginServer: 'Demo-Server-01',
      loginAccountNumber: login,
      loginAccountPassword: 'secret-password',
      type: { id: types[0]!.id },
      region: { id: regions[0]!.id },
      alias,
    });
    const master = (await answer('POST', '/accounts', 200, accountBody('walk master', '7000001'))).body;
    const slave = (await answer('POST', '/accounts', 200, accountBody('walk slave', '7000002'))).body;
    expect(master.type.id).to.equal(types[0]!.id);
    expect(master.status).to.include({ id: 1 });
    expect(master.loginAccountPassword).to.not.equal('secret-password');
    for (const account of [master, slave]) await answer('POST', `/accounts/${account.id}/actions/start`, 200);

    // A copier: the slave copies the master with no scaling.
    const copier = (
      await answer('POST', `/accounts/${slave.id}/copiers`, 200, {
        fromAccountId: master.id,
        scaleType: { id: 4 },
        multiplier: 1,
        active: true,
        copyStopLoss: true,
        copyTakeProfit: true,
        openRetry: false,
      })
    ).body;
    expect(copier).to.deep.include({ fromAccountId: master.id, scaleType: { id: 4, name: copier.scaleType.name }, openRetry: false });

    // A copier feature in the reference's FeatureDTO envelope.
    const maxLot = (await t.call('GET', '/types/featureTypes')).body.find((f: { name: string }) => f.name === 'FeatureMaxLotSizeDTO');
    const feature = (await send('POST', `/accounts/${slave.id}/copiers/${copier.id}/features`, { type: { id: maxLot.id }, setting: { maxLotSize: 5 } })).body;
    expect(feature).to.deep.include({ type: { id: maxLot.id, name: 'FeatureMaxLotSizeDTO' }, copierId: copier.id });

    // A risk limit of 0.05: 5 %, not 0.05 %.
    const limit = (
      await answer('POST', `/accounts/${slave.id}/riskLimits`, 200, { riskType: { id: 1 }, riskLimit: 0.05, closeAllOpenPositions: true, fulfillSeconds: 0 })
    ).body;
    expect(limit).to.deep.include({ riskLimit: 0.05 });

    // A market order with requestId: 0 means "none" for the price and the stops.
    const order = {
      symbol: 'EURUSD',
      orderType: 'Buy',
      volume: 0.1,
      openPrice: 0,
      stopLoss: 0,
      takeProfit: 0,
      requestId: 1,
      comment: 'walk',
      magicNumber: '7',
    };
    await answer('POST', `/accounts/${master.id}/positions`, 204, order);
    // The same requestId again is a retry: still one position.
    await answer('POST', `/accounts/${master.id}/positions`, 204, order);
    const [position] = (await answer('GET', `/accounts/${master.id}/positions`, 200)).body;
    expect(position).to.deep.include({ symbol: 'EURUSD', orderType: 'Buy', volume: 0.1, stopLoss: 0, takeProfit: 0, magicNumber: '7', state: 'Open' });
    // The reference's tracking prefix on the comment, and the requestId it names.
    expect(position).to.deep.include({ comment: 'API|1|walk', requestId: '1' });
    expect((await t.call('GET', `/accounts/${master.id}/positions`)).body).to.have.length(1);

    // The copy appears on the slave; the slave's information says so, with the limit not hit.
    const copy = await eventually(async () => {
      const book = (await t.call('GET', `/accounts/${slave.id}/positions`)).body as Record<string, unknown>[];
      return book.length === 1 ? book[0] : undefined;
    }, 8000);
    expect(copy).to.deep.include({ symbol: 'EURUSD', orderType: 'Buy', volume: 0.1 });
    const info = (await answer('GET', `/accounts/${slave.id}/information`, 200)).body;
    expect(info).to.deep.include({ openPositions: true, openPositionsCount: 1, status: 'Active' });
    expect(info.riskLimitsStatus.find((r: { riskLimitId: string }) => r.riskLimitId === limit.id)).to.include({ limitIsHit: false });

    // The close, then the history of both accounts (the reference requires the period).
    const period = 'start=2026-01-01T00:00:00Z&stop=2026-12-31T23:59:59Z';
    await answer('DELETE', `/accounts/${master.id}/positions/${position.id}`, 204);
    await eventually(async () => ((await t.call('GET', `/accounts/${slave.id}/positions`)).body.length === 0 ? true : undefined), 8000);
    const history = (await answer('GET', `/accounts/${master.id}/history/positions?${period}`, 200)).body;
    expect(history.find((p: { id: string }) => p.id === position.id)).to.deep.include({ symbol: 'EURUSD', state: 'Closed' });
    await eventually(async () => ((await t.call('GET', `/accounts/${slave.id}/history/positions?${period}`)).body.length === 1 ? true : undefined), 8000);

    // The logs, as LogDTO.
    const logs = (await answer('GET', `/accounts/${slave.id}/logs`, 200)).body as { id: number; text: string; accountId: string }[];
    expect(logs.length).to.be.greaterThan(0);
    expect(logs[0]).to.include({ accountId: slave.id });
    expect(logs[0]!.id).to.be.a('number');

    // The deletion, answered without a body.
    for (const account of [slave, master]) await answer('DELETE', `/accounts/${account.id}`, 200);
    expect((await t.call('GET', `/accounts/${slave.id}`)).body.deleted, 'deleted: when (ISO 8601)').to.match(/^2026-01-07T/);
  });
});
