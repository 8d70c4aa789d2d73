// The investor program end to end (spec: FeatureTraderDTO, FeatureInvestorDTO, /investorProgram/traders
// [/{traderId}[/history/positions|/performanceMetrics]], GET /projects/{projectId}/traders): project A
// approves two traders, project B holds an investor account. B sees A's approved traders' public data
// only, best score first; A itself, without an investor, sees none of it; an account-level key can
// neither give itself a role nor read the program unless its account is the investor.
import { expect } from 'chai';
import { DEFAULT_PROJECT_ID } from '../../domain/project/decider.js';
import { createOtherProject, startTestService, type TestService, validAccount } from '../support/service.js';
import { eventually, featureBody, marketHoursClock, pinQuotes, positionRequest, positionsOf, startedAccount } from '../support/trading.js';

const A = DEFAULT_PROJECT_ID;
const B = '88888888-8888-4888-8888-888888888888';
const B_KEY = 'investor-program-project-b-key-0123456789';

describe('investor program: approved traders seen by investors of any project', function () {
  this.timeout(60_000);
  let t: TestService;
  let alpha: string; // trader, a winning trade, history public
  let beta: string; // trader, a losing trade, history private
  let plain: string; // an account of A without a role
  let alphaKey: string;
  let investor: string;
  let investorKey: string;
  let bOtherKey: string;
  let alphaTraderId: string;
  let betaTraderId: string;

  const asB = { key: B_KEY };

  const trade = async (account: string, symbol: string, side: 'Buy' | 'Sell', closeAt: readonly [number, number]) => {
    const opened = await t.call('POST', `/accounts/${account}/positions`, {
      body: positionRequest({ symbol, orderType: side, volume: 0.1, comment: 'secret plan' }),
    });
    expect(opened.status, JSON.stringify(opened.body)).to.equal(204);
    await pinQuotes(t, { [symbol]: closeAt });
    expect((await t.call('DELETE', `/accounts/${account}/positions/${opened.headers.get('x-position-id')!}`)).status).to.equal(204);
    expect(await positionsOf(t, account)).to.deep.equal([]);
  };

  /** An account of project B (started), and its account-level key. */
  const accountOfB = async (alias: string, login: string): Promise<{ id: string; key: string }> => {
    const created = await t.call('POST', '/accounts', { ...asB, body: validAccount({ alias, loginServer: 'Sim-Demo', loginAccountNumber: login }) });
    expect(created.status, JSON.stringify(created.body)).to.equal(200);
    return { id: created.body.id as string, key: created.headers.get('x-account-api-key')! };
  };

  before(async () => {
    t = await startTestService({ clock: marketHoursClock() });
    await createOtherProject(t, B, B_KEY);
    // alpha is made by hand for its account-level key (X-Account-Api-Key of the creation)
    const created = await t.call('POST', '/accounts', {
      body: validAccount({ alias: 'alpha trader', loginServer: 'Sim-Demo', loginAccountNumber: `${process.pid}77` }),
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(200);
    alpha = created.body.id as string;
    alphaKey = created.headers.get('x-account-api-key')!;
    expect((await t.call('POST', `/accounts/${alpha}/actions/start`)).status).to.equal(200);
    beta = await startedAccount(t, 'beta trader');
    plain = await startedAccount(t, 'no role');

    await pinQuotes(t, { BTCUSD: [60_000, 60_001] });
    await trade(alpha, 'BTCUSD', 'Buy', [61_000, 61_001]); // +99.9
    await pinQuotes(t, { BTCUSD: [60_000, 60_001] });
    await trade(beta, 'BTCUSD', 'Buy', [59_000, 59_001]); // -100.1

    const b1 = await accountOfB('B investor', `${process.pid}91`);
    investor = b1.id;
    investorKey = b1.key;
    bOtherKey = (await accountOfB('B other', `${process.pid}92`)).key;
  });

  after(() => t?.stop());

  it('only a project-level key gives an account the trader or investor role', async () => {
    const own = await t.call('POST', `/accounts/${alpha}/features`, { key: alphaKey, body: featureBody({ type: 'FeatureTraderDTO', name: 'self-made' }) });
    expect(own.status, JSON.stringify(own.body)).to.equal(403);
    expect(own.body.error).to.equal('[PROJECT_LEVEL_API_KEY_REQUIRED]');
    const mine = await t.call('POST', `/accounts/${investor}/features`, { key: investorKey, body: featureBody({ type: 'FeatureInvestorDTO' }) });
    expect(mine.status).to.equal(403);
    expect((await t.call('GET', `/accounts/${alpha}/features`)).body).to.deep.equal([]);
  });

  it('the project approves its traders: GET /projects/{projectId}/traders lists them, oldest first', async () => {
    const a = await t.call('POST', `/accounts/${alpha}/features`, {
      body: featureBody({ type: 'FeatureTraderDTO', name: 'Alpha', description: 'BTC swings', makeHistoryPublic: true }),
    });
    expect(a.status, JSON.stringify(a.body)).to.equal(200);
    expect(a.body.setting).to.deep.equal({ name: 'Alpha', description: 'BTC swings', makeHistoryPublic: true });
    alphaTraderId = a.body.id as string;
    const b = await t.call('POST', `/accounts/${beta}/features`, { body: featureBody({ type: 'FeatureTraderDTO', makeHistoryPublic: false }) });
    expect(b.status, JSON.stringify(b.body)).to.equal(200);
    expect(b.body.setting).to.deep.equal({ name: '', description: '', makeHistoryPublic: false });
    betaTraderId = b.body.id as string;
    const listed = await t.call('GET', `/projects/${A}/traders`);
    expect(listed.status).to.equal(200);
    expect(listed.body.map((x: { accountId: string; featureId: string }) => [x.accountId, x.featureId])).to.deep.equal([
      [alpha, alphaTraderId],
      [beta, betaTraderId],
    ]);
    // the trader list of B is its own: none of A's
    expect((await t.call('GET', `/projects/${B}/traders`, asB)).body).to.deep.equal([]);
  });

  it('without an investor account nobody reads the program: 403 [INVESTOR_ROLE_REQUIRED]', async () => {
    for (const key of [t.key, B_KEY, investorKey]) {
      const res = await t.call('GET', '/investorProgram/traders', { key });
      expect(res.status, JSON.stringify(res.body)).to.equal(403);
      expect(res.body.error).to.equal('[INVESTOR_ROLE_REQUIRED]');
    }
    expect((await t.call('GET', `/investorProgram/traders/${alphaTraderId}`, asB)).status).to.equal(403);
  });

  it("an investor of project B sees A's approved traders, best score first, public data only", async () => {
    const added = await t.call('POST', `/accounts/${investor}/features`, { ...asB, body: featureBody({ type: 'FeatureInvestorDTO', name: 'fund' }) });
    expect(added.status, JSON.stringify(added.body)).to.equal(200);

    // the score is the one GET /accounts/{accountId}/performanceMetrics computes for the trader's account
    // (once the marketplace read model has reached the approvals)
    const alphaMetrics = (await t.call('GET', `/accounts/${alpha}/performanceMetrics`)).body;
    const betaMetrics = (await t.call('GET', `/accounts/${beta}/performanceMetrics`)).body;
    const res = await eventually(
      async () => {
        const listed = await t.call('GET', '/investorProgram/traders', asB);
        expect(listed.status, JSON.stringify(listed.body)).to.equal(200);
        return listed.body[0]?.score === alphaMetrics.score && listed.body[1]?.score === betaMetrics.score ? listed : undefined;
      },
      20_000,
      "the traders' scores",
    );
    expect(res.body.map((x: { id: string }) => x.id)).to.deep.equal([alphaTraderId, betaTraderId]);
    const [first, second] = res.body;
    expect(first).to.deep.include({ name: 'Alpha', description: 'BTC swings', makeHistoryPublic: true, score: alphaMetrics.score, currency: 'USD' });
    expect(first.scoreBreakdown).to.deep.equal(alphaMetrics.scoreBreakdown);
    expect(second).to.deep.include({ name: `Trader ${betaTraderId.slice(0, 8)}`, makeHistoryPublic: false, score: betaMetrics.score });
    expect(second.scoreBreakdown).to.deep.equal(betaMetrics.scoreBreakdown);
    expect(first.score).to.be.greaterThan(second.score);
    expect(Object.keys(first).sort()).to.deep.equal(
      ['accountType', 'currency', 'description', 'id', 'makeHistoryPublic', 'name', 'score', 'scoreBreakdown', 'since'].sort(),
    );
    const text = JSON.stringify(res.body);
    for (const secret of [alpha, beta, plain, A, 'alpha trader', 'Sim-Demo']) expect(text).not.to.contain(secret);

    // the investor account's own key reads it too; another account of B does not
    expect((await t.call('GET', '/investorProgram/traders', { key: investorKey })).status).to.equal(200);
    const other = await t.call('GET', '/investorProgram/traders', { key: bOtherKey });
    expect(other.status).to.equal(403);
    expect(other.body.error).to.equal('[INVESTOR_ROLE_REQUIRED]');
    // A has no investor: still nothing
    expect((await t.call('GET', '/investorProgram/traders')).status).to.equal(403);
  });

  it('one trader, its performance metrics as the account has them, its history only when public', async () => {
    const one = await t.call('GET', `/investorProgram/traders/${alphaTraderId}`, asB);
    expect(one.status).to.equal(200);
    expect(one.body.id).to.equal(alphaTraderId);
    expect((await t.call('GET', `/investorProgram/traders/${alpha}`, asB)).status, 'an account id is no trader id').to.equal(404);

    const metrics = await t.call('GET', `/investorProgram/traders/${alphaTraderId}/performanceMetrics`, asB);
    expect(metrics.status).to.equal(200);
    expect(metrics.body).to.deep.equal((await t.call('GET', `/accounts/${alpha}/performanceMetrics`)).body);
    expect(metrics.body.totalTrades).to.equal(1);

    const range = '?start=2020-01-01T00:00:00Z&stop=2030-01-01T00:00:00Z';
    const history = await t.call('GET', `/investorProgram/traders/${alphaTraderId}/history/positions${range}`, asB);
    expect(history.status, JSON.stringify(history.body)).to.equal(200);
    expect(history.body).to.have.length(1);
    expect(history.body[0]).to.deep.include({ symbol: 'BTCUSD', state: 'Closed', comment: '', magicNumber: '0', clientOrderId: '' });
    const hidden = await t.call('GET', `/investorProgram/traders/${betaTraderId}/history/positions${range}`, asB);
    expect(hidden.status).to.equal(403);
    expect(hidden.body.error).to.equal('[TRADER_HISTORY_NOT_PUBLIC]');
    expect((await t.call('GET', `/investorProgram/traders/${betaTraderId}/performanceMetrics`, asB)).status).to.equal(200);
  });

  it("trades after the approval move a trader's score as they move its account's performance metrics", async () => {
    const before = (await t.call('GET', `/accounts/${beta}/performanceMetrics`)).body;
    for (const [open, close] of [
      [60_000, 62_000],
      [60_000, 60_500],
      [61_000, 60_000],
    ] as const) {
      await pinQuotes(t, { BTCUSD: [open, open + 1] });
      await trade(beta, 'BTCUSD', 'Buy', [close, close + 1]);
    }
    const metrics = (await t.call('GET', `/accounts/${beta}/performanceMetrics`)).body;
    expect(metrics.totalTrades).to.equal(before.totalTrades + 3);
    expect(metrics.scoreBreakdown).not.to.deep.equal(before.scoreBreakdown);
    // What the list computed per request before the marketplace read model kept the facts: the account's
    // whole-history performanceMetrics. The list and the single trader answer exactly that.
    const listed = await eventually(
      async () => {
        const res = await t.call('GET', '/investorProgram/traders', asB);
        const entry = res.body.find((x: { id: string }) => x.id === betaTraderId);
        return entry && JSON.stringify(entry.scoreBreakdown) === JSON.stringify(metrics.scoreBreakdown) ? entry : undefined;
      },
      20_000,
      "the trader's new score",
    );
    expect({ score: listed.score, scoreBreakdown: listed.scoreBreakdown, currency: listed.currency }).to.deep.equal({
      score: metrics.score,
      scoreBreakdown: metrics.scoreBreakdown,
      currency: metrics.currency,
    });
    const one = await t.call('GET', `/investorProgram/traders/${betaTraderId}`, asB);
    expect(one.body).to.deep.equal(listed);
  });

  it('a trader whose role is removed or whose account is deleted is no longer listed', async () => {
    expect((await t.call('DELETE', `/accounts/${beta}/features/${betaTraderId}`)).status).to.equal(200);
    expect((await t.call('DELETE', `/accounts/${alpha}`)).status).to.equal(200);
    await eventually(async () => {
      const res = await t.call('GET', '/investorProgram/traders', asB);
      return res.status === 200 && res.body.length === 0 ? true : undefined;
    });
    const gone = await t.call('GET', `/investorProgram/traders/${alphaTraderId}`, asB);
    expect(gone.status).to.equal(404);
    expect(gone.body.error).to.equal('[TRADER_NOT_FOUND]');
    expect((await t.call('GET', `/projects/${A}/traders`)).body).to.deep.equal([]);
  });
});
