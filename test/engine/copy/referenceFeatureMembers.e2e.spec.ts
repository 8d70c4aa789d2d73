// The reference's (1.2.5) members of five copier features at work, over HTTP against the simulated venue
// with a service clock the spec moves: the permitted symbols' whitelist and blacklist, the copier
// filter's comment and magicNumber, the exit signal override's ignoreForSeconds and onlyIfTpSlAreSet,
// the progressive trade sizing's multiplier, limitLevels, lastLossGreaterThanInPercentage and
// lookBackInDays, and the keep-alive trade's cronExpressions (UTC, croner) and closeAfterInSeconds of 0.
import { expect } from 'chai';
import { startTestService, type TestService } from '../../support/service.js';
import * as trading from '../../support/trading.js';
import { bookWhere, eventually, featureBody, movableClock, pinQuotes, positionsOf } from '../../support/trading.js';

describe("the reference's members of copier features end to end", function () {
  this.timeout(90_000);
  // A Wednesday morning, UTC: forex markets are open (and still on Thursday).
  const clock = movableClock(Date.parse('2026-01-07T10:00:05.000Z'));
  let t: TestService;

  before(async () => {
    t = await startTestService({ clock });
    await pinQuotes(t, { EURUSD: [1.085, 1.0851], GBPUSD: [1.27, 1.27009] });
  });
  after(() => t?.stop());

  const pair = (name: string) => trading.copyPair(t, name);
  const feature = (slave: string, copierId: string, featureSetting: Record<string, unknown>) =>
    trading.addFeature(t, `/accounts/${slave}/copiers/${copierId}`, featureSetting);
  const open = (accountId: string, body: Record<string, unknown>) => trading.openPosition(t, accountId, body);
  const close = async (accountId: string, positionId: string) =>
    expect((await t.call('DELETE', `/accounts/${accountId}/positions/${positionId}`)).status).to.equal(204);
  const logsOf = (accountId: string) => trading.logsOf(t, accountId);
  const logWith = (accountId: string, code: string, timeoutMs = 5000) => trading.logWith(t, accountId, code, timeoutMs);

  it('the whitelist decides alone when it is given; without it the blacklist skips what it matches', async () => {
    const listed = await pair('whitelist');
    await feature(listed.slave, listed.copierId, { type: 'FeaturePermittedSymbolsDTO', whitelist: ['^eur'], blacklist: ['USD'] });
    await open(listed.master, { symbol: 'GBPUSD', orderType: 'Buy', volume: 0.1 });
    const skip = await logWith(listed.slave, 'SYMBOL_NOT_PERMITTED');
    expect(skip.text).to.match(/GBPUSD matches none of the whitelist \^eur/);
    await open(listed.master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.1 });
    const [copy] = await bookWhere(t, listed.slave, (b) => b.length === 1, 'the EURUSD copy, though the blacklist matches it');
    expect(copy!.symbol).to.equal('EURUSD');

    const blocked = await pair('blacklist');
    await feature(blocked.slave, blocked.copierId, { type: 'FeaturePermittedSymbolsDTO', blacklist: ['^GBP'] });
    await open(blocked.master, { symbol: 'GBPUSD', orderType: 'Buy', volume: 0.1 });
    expect((await logWith(blocked.slave, 'SYMBOL_NOT_PERMITTED')).text).to.match(/GBPUSD matches the blacklist \^GBP/);
    await open(blocked.master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.1 });
    await bookWhere(t, blocked.slave, (b) => b.length === 1 && b[0]!.symbol === 'EURUSD', 'the EURUSD copy');
  });

  it('the copier filter copies only master trades whose comment and magic number match its patterns', async () => {
    const { master, slave, copierId } = await pair('comment-filter');
    // The master's comment at its broker: POST .../positions prepends the reference's API|<requestId>|.
    const comment = ['^API\\|\\d+\\|scalp'];
    const id = await feature(slave, copierId, { type: 'FeatureCopierFilterDTO', comment, magicNumber: ['^7\\d*$'] });
    const stored = await t.call('GET', `/accounts/${slave}/copiers/${copierId}/features/${id}`);
    expect(stored.body.setting).to.deep.equal({ minLotSize: null, maxLotSize: null, comment, magicNumber: ['^7\\d*$'] });

    await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.1, comment: 'swing', magicNumber: 77 });
    expect((await logWith(slave, 'COMMENT_FILTERED')).text).to.match(
      /the master comment 'API\|\d+\|swing' matches none of the filter's comment patterns \^API/,
    );
    await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.1, comment: 'SCALP 1', magicNumber: 12 });
    expect((await logWith(slave, 'MAGIC_NUMBER_FILTERED')).text).to.match(/the master magic number '12' matches none/);
    await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.1, comment: 'scalp 2', magicNumber: 705 });
    await bookWhere(t, slave, (b) => b.length === 1, 'the one copy that passes both filters');
  });

  it('refuses a pattern that is no regular expression with 400, storing nothing', async () => {
    const { slave, copierId } = await pair('bad-pattern');
    const res = await t.call('POST', `/accounts/${slave}/copiers/${copierId}/features`, {
      body: featureBody({ type: 'FeatureCopierFilterDTO', comment: ['scalp('] }),
    });
    expect(res.status).to.equal(400);
    expect(res.body.error).to.equal('[VALIDATION_FAILED]');
    expect(res.body.message).to.match(/comment: 'scalp\(' is no regular expression/);
    expect((await t.call('GET', `/accounts/${slave}/copiers/${copierId}/features`)).body).to.deep.equal([]);
  });

  it('the exit signal override holds the close of a copy with stops ignoreForSeconds back, and closes a copy without stops at once', async () => {
    const { master, slave, copierId } = await pair('exit-override');
    await feature(slave, copierId, { type: 'FeatureExitSignalOverrideDTO', ignoreForSeconds: 30, onlyIfTpSlAreSet: true });
    const withStops = await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.1, stopLoss: 1.08, takeProfit: 1.09 });
    const [copy] = await bookWhere(t, slave, (b) => b.length === 1, 'the copy with stops');
    expect(copy).to.deep.include({ stopLoss: 1.08, takeProfit: 1.09 });
    await close(master, withStops);
    const held = await logWith(slave, 'FeatureExitSignalOverrideDTO');
    expect(held.text).to.match(/close of master #.* not copied yet: FeatureExitSignalOverrideDTO holds it until/);

    // Without stops: not held back (onlyIfTpSlAreSet).
    const bare = await open(master, { symbol: 'GBPUSD', orderType: 'Buy', volume: 0.1 });
    await bookWhere(t, slave, (b) => b.length === 2, 'the copy without stops');
    await close(master, bare);
    const [left] = await bookWhere(t, slave, (b) => b.length === 1, 'the copy without stops closed at once');
    expect(left!.id).to.equal(copy!.id);

    clock.advance(31_000);
    await bookWhere(t, slave, (b) => b.length === 0, 'the held close, 30 seconds on', 10_000);
  });

  it('the exit signal override with ignoreForSeconds 0 ignores the close for good', async () => {
    const { master, slave, copierId } = await pair('exit-ignored');
    await feature(slave, copierId, { type: 'FeatureExitSignalOverrideDTO', ignoreForSeconds: 0, onlyIfTpSlAreSet: false });
    const id = await open(master, { symbol: 'EURUSD', orderType: 'Sell', volume: 0.1 });
    await bookWhere(t, slave, (b) => b.length === 1, 'the copy');
    await close(master, id);
    expect((await logWith(slave, 'EXIT_SIGNAL_OVERRIDDEN')).text).to.match(/the master's close is ignored \(exit signal override\); the copy stays open/);
    clock.advance(60_000);
    await new Promise((r) => setTimeout(r, 1500));
    expect(await positionsOf(t, slave)).to.have.length(1);
  });

  it('progressive sizing multiplies the lot after a loss, up to limitLevels, within lookBackInDays, above the loss threshold', async () => {
    const { master, slave, copierId } = await pair('progressive');
    await feature(slave, copierId, { type: 'FeatureProgressiveTradeSizingDTO', multiplier: 3, limitLevels: 1, lookBackInDays: 1 });
    /** Opens and closes a master Buy of 0.1 (the spread makes it a loss); answers the copy's lot. */
    const losingRound = async (n: number): Promise<number> => {
      const id = await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.1 });
      const [copy] = await bookWhere(t, slave, (b) => b.length === 1, `copy ${n}`);
      await close(master, id);
      await bookWhere(t, slave, (b) => b.length === 0, `copy ${n} closed`);
      return copy!.volume;
    };
    expect(await losingRound(1)).to.equal(0.1);
    expect(await losingRound(2)).to.equal(0.3);
    // limitLevels 1: a second loss in a row raises no further.
    expect(await losingRound(3)).to.equal(0.3);
    // A day on, the losses were opened more than lookBackInDays ago: back to the base lot.
    clock.advance(86_400_000 + 60_000);
    expect(await losingRound(4)).to.equal(0.1);

    // A loss of about 1 USD is not greater than 1 % of the 10,000 balance: no raise.
    const small = await pair('progressive-threshold');
    await feature(small.slave, small.copierId, { type: 'FeatureProgressiveTradeSizingDTO', lastLossGreaterThanInPercentage: 1 });
    for (const n of [1, 2]) {
      const id = await open(small.master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.1 });
      const [copy] = await bookWhere(t, small.slave, (b) => b.length === 1, `copy ${n}`);
      expect(copy!.volume).to.equal(0.1);
      await close(small.master, id);
      await bookWhere(t, small.slave, (b) => b.length === 0, `copy ${n} closed`);
    }
  });

  it('a keep-alive trade with closeAfterInSeconds 0 (the default) is closed right after it opened', async () => {
    const { slave, copierId } = await pair('keep-alive-0');
    const id = await feature(slave, copierId, { type: 'FeatureKeepAliveTradeDTO', symbol: 'EURUSD', cronExpressions: ['0 * * * *'] });
    const stored = (await t.call('GET', `/accounts/${slave}/copiers/${copierId}/features/${id}`)).body.setting;
    expect(stored).to.deep.include({ symbol: 'EURUSD', cronExpressions: ['0 * * * *'], closeAfterInSeconds: 0 });
    const hour = Math.ceil((clock().getTime() + 5000) / 3_600_000) * 3_600_000;
    clock.advance(Math.max(0, hour - 2000 - clock().getTime()));
    const closed = await eventually(
      async () => (await logsOf(slave)).find((l) => /^Keep-alive trade #\S+ \(Buy 0.01 EURUSD, opened at .*, held 0 seconds\) closed at/.test(l.text)),
      15_000,
      'the keep-alive trade closed',
    );
    expect(closed).to.not.equal(undefined);
    expect(await positionsOf(t, slave)).to.deep.equal([]);
  });

  it('refuses a keep-alive cron expression croner cannot read, a numeric day of week, or one firing twice a minute, naming it, storing nothing', async () => {
    const { slave, copierId } = await pair('keep-alive-bad-cron');
    const refused = async (cronExpressions: unknown, message: RegExp) => {
      const res = await t.call('POST', `/accounts/${slave}/copiers/${copierId}/features`, {
        body: featureBody({ type: 'FeatureKeepAliveTradeDTO', symbol: 'EURUSD', cronExpressions }),
      });
      expect(res.status).to.equal(400);
      expect(res.body.error).to.equal('[VALIDATION_FAILED]');
      expect(res.body.message).to.match(message);
    };
    await refused(['0 0 12 ? * MON-FRI', 'every day'], /cron expression 'every day' is not valid/);
    await refused(['0 0 12 ? * 2-6'], /cron expression '0 0 12 \? \* 2-6': give the day of week by name/);
    await refused(['*/30 * * * * *'], /cron expression '\*\/30 \* \* \* \* \*' fires more than once a minute/);
    await refused([], /cronExpressions/);
    await refused(
      Array.from({ length: 11 }, () => '0 * * * *'),
      /cronExpressions/,
    );
    expect((await t.call('GET', `/accounts/${slave}/copiers/${copierId}/features`)).body).to.deep.equal([]);
    // Quartz's 7 fields with a year, ? and a 0/30 step are taken as croner reads them.
    await feature(slave, copierId, { type: 'FeatureKeepAliveTradeDTO', symbol: 'EURUSD', cronExpressions: ['0 0/30 8-18 ? * MON-FRI 2026-2030'] });
  });
});
