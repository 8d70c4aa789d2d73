// The protection monitor's closing and a reset through the API that races it (engine/protection/
// monitor.ts): a CLOSE_ALL trigger's closing is recorded (ProtectionClosingDecided) before the first
// close is sent, at the revision the monitor decided on. A reset that lands after the monitor read the
// stream, while it reads the book to close, fails that append: nothing is closed for the trigger the
// reset ended. Without a reset the stream shows the decision before any close reaches the venue.
// The race is made, not waited for: the venue connection the monitor uses is wrapped so that the book
// read of the closing (and only it) sends the reset first and answers after it.
import { expect } from 'chai';
import { protectionStream } from '../../domain/protection/events.js';
import { AccountConnections } from '../../engine/venues/connections.js';
import type { VenueConnection } from '../../engine/venues/port.js';
import { startTestService, type TestService } from '../support/service.js';
import { bookWhere, eventually, movableClock, pinQuotes, positionRequest, startedAccount } from '../support/trading.js';

/** A daily equity-to-equity limit (risk type 5) of a 300 USD loss that acts at once and closes every position. */
const LOSS_300 = { riskType: { id: 5 }, riskLimit: 0, absoluteRiskLimit: 300, fulfillSeconds: 0 };

/** What the wrapped connection of `accountId` does before the monitor's closing reads the book, and before a close. */
interface Hooks {
  accountId: string;
  beforeClosingBook?: () => Promise<void>;
  beforeClose?: () => Promise<void>;
}

describe('protection monitor: the closing is recorded before it is sent, so a reset that races it closes nothing', function () {
  this.timeout(180_000);
  const clock = movableClock(Date.parse('2026-01-07T10:00:00.000Z'));
  let t: TestService;
  let hooks: Hooks | null = null;
  const connection = AccountConnections.prototype.connection;

  before(async () => {
    // Only the monitor's closing reads the book from closeWhereTriggered: its call is the one held up.
    AccountConnections.prototype.connection = function (this: AccountConnections, accountId: string): VenueConnection | null {
      const real = connection.call(this, accountId);
      const hook = hooks;
      if (!real || !hook || hook.accountId !== accountId) return real;
      return new Proxy(real, {
        get(target, property) {
          if (property === 'positions' && hook.beforeClosingBook && new Error().stack?.includes('closeWhereTriggered')) {
            const before = hook.beforeClosingBook;
            hook.beforeClosingBook = undefined;
            return async () => {
              await before();
              return target.positions();
            };
          }
          if (property === 'closePosition' && hook.beforeClose) {
            const before = hook.beforeClose;
            return async (...args: Parameters<VenueConnection['closePosition']>) => {
              await before();
              return target.closePosition(...args);
            };
          }
          const value: unknown = Reflect.get(target, property, target);
          return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
        },
      });
    };
    t = await startTestService({ clock, env: { TIME_ZONE: 'Europe/Berlin' } });
  });
  after(async () => {
    AccountConnections.prototype.connection = connection;
    await t?.stop();
  });
  afterEach(() => {
    hooks = null;
  });

  /** An account holding 1 lot of US500 bought at 5200 (no spread: 10 USD a point), with LOSS_300 watched. */
  const losing = async (alias: string): Promise<{ account: string; limitId: string; positionId: string }> => {
    await pinQuotes(t, { US500: [5200, 5200] });
    const account = await startedAccount(t, alias);
    const opened = await t.call('POST', `/accounts/${account}/positions`, { body: positionRequest({ symbol: 'US500', orderType: 'Buy', volume: 1 }) });
    expect(opened.status, JSON.stringify(opened.body)).to.equal(204);
    const added = await t.call('POST', `/accounts/${account}/riskLimits`, { body: LOSS_300 });
    expect(added.status, JSON.stringify(added.body)).to.equal(200);
    // Watched from the first look: its reference (equity 10,000) is recorded then.
    await eventually(async () => ((await types(account)).includes('ProtectionReferenceRecorded') ? true : undefined), 20_000, 'the reference');
    return { account, limitId: added.body.id as string, positionId: opened.headers.get('x-position-id')! };
  };
  const types = async (accountId: string): Promise<string[]> => {
    const out: string[] = [];
    try {
      for await (const { event } of t.service.services.store.readStream(protectionStream(accountId))) out.push(event.type);
    } catch {
      // no stream yet
    }
    return out;
  };
  const decisions = (list: readonly string[]) => list.filter((type) => /Triggered|ClosingDecided|Reset|PositionsClosed/.test(type));

  it('a reset that lands while the monitor reads the book to close: the append of the closing fails and the position stays open', async () => {
    const { account, limitId, positionId } = await losing('reset-races-close');
    let reset = 0;
    let closesSent = 0;
    hooks = {
      accountId: account,
      beforeClosingBook: async () => {
        const res = await t.call('PUT', `/accounts/${account}/riskLimits/${limitId}/reset`);
        reset = res.status;
      },
      beforeClose: async () => {
        closesSent += 1;
      },
    };
    await pinQuotes(t, { US500: [5170, 5170] });
    await eventually(async () => (reset !== 0 ? true : undefined), 30_000, 'the reset, sent from the closing');
    expect(reset).to.equal(200);
    // Two whole looks after it: the reset measures from 5170, so nothing is hit again.
    await t.service.protection.afterNextTick();
    await t.service.protection.afterNextTick();
    expect(decisions(await types(account))).to.deep.equal(['ProtectionTriggered', 'ProtectionReset']);
    expect(closesSent, 'closes sent for the trigger the reset ended').to.equal(0);
    const [held] = await bookWhere(t, account, (book) => book.length === 1, 'the position, still open');
    expect(held!.id).to.equal(positionId);
  });

  it('without a reset, the closing is in the stream before the close reaches the venue', async () => {
    const { account } = await losing('close-recorded-first');
    const atClose: string[][] = [];
    hooks = {
      accountId: account,
      beforeClose: async () => {
        atClose.push(decisions(await types(account)));
      },
    };
    await pinQuotes(t, { US500: [5170, 5170] });
    await bookWhere(t, account, (book) => book.length === 0, 'the position closed by the hit', 30_000);
    expect(atClose).to.deep.equal([['ProtectionTriggered', 'ProtectionClosingDecided']]);
    await eventually(async () => ((await types(account)).includes('ProtectionPositionsClosed') ? true : undefined), 10_000, 'the closing recorded');
    expect(decisions(await types(account))).to.deep.equal(['ProtectionTriggered', 'ProtectionClosingDecided', 'ProtectionPositionsClosed']);
  });
});
