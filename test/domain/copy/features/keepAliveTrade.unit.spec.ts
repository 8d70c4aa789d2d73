import { expect } from 'chai';
import { breakEven } from '../../../../domain/copy/features/breakEven.js';
import { keepAliveTrade } from '../../../../domain/copy/features/keepAliveTrade.js';
import { managed, manageWith } from '../given.js';

describe('feature: FeatureKeepAliveTradeDTO', () => {
  // NOW is 10:00:00.
  const keepAlive = (closeAfterInSeconds: number) => ({ feature: keepAliveTrade, settings: { closeAfterInSeconds } });
  const openedAt = (time: string, id = 's-1') => managed({ slavePositionId: id, masterPositionId: `m-${id}`, openTime: `2026-01-07T${time}.000Z`, volume: 0.3 });

  it('closes a copy closeAfterInSeconds after it opened, all of it', () => {
    const actions = manageWith(keepAlive(600), { copies: [openedAt('09:50:00')] });
    expect(actions).to.deep.equal([{
      kind: 'close', slavePositionId: 's-1', masterPositionId: 'm-s-1', symbol: 'EURUSD', volume: 0.3,
      message: 'keep-alive: #s-1 opened at 2026-01-07T09:50:00.000Z is closed after 600 seconds',
    }]);
  });

  it('leaves a younger copy open, a second short of the time', () =>
    expect(manageWith(keepAlive(600), { copies: [openedAt('09:50:01')] })).to.deep.equal([]));

  it('closes only the copies that are due', () =>
    expect(manageWith(keepAlive(60), { copies: [openedAt('09:58:00', 'a'), openedAt('09:59:30', 'b')] }).map((a) => a.kind === 'close' && a.slavePositionId)).to.deep.equal(['a']));

  it('with break-even beside it, the copy is closed on time whatever its stops', () => {
    const copy = managed({ openTime: '2026-01-07T09:00:00.000Z', currentPrice: 1.104 });
    expect(manageWith({ feature: breakEven, settings: { triggerInPoints: 300 } }, { copies: [copy] })[0]).to.deep.include({ kind: 'modify' });
    expect(manageWith(keepAlive(3600), { copies: [copy] })[0]).to.deep.include({ kind: 'close' });
  });
});
