import { expect } from 'chai';
import { martingaleStrategy } from '../../../../domain/copy/features/martingaleStrategy.js';
import { tradeGuardrails, type TradeGuardrailsSettings } from '../../../../domain/copy/features/tradeGuardrails.js';
import { given, managed, manageWith, masterOpened, slaveCopy } from '../given.js';
import { closedCopies } from './closedCopies.js';

describe('feature: FeatureTradeGuardrailsDTO', () => {
  const guard = (settings: Partial<TradeGuardrailsSettings>) => ({ feature: tradeGuardrails, settings });
  const holding = (...copies: [string, number][]) => ({
    copies: copies.map(([symbol, volume], i) => slaveCopy({ masterPositionId: `m-open-${i}`, slavePositionId: `s-open-${i}`, symbol, volume })),
  });

  it('skips an open whose slave lot is above the threshold, and copies one at it', () => {
    given({ features: [guard({ maxLotSizeThreshold: 1 })] })
      .when(masterOpened({ volume: 1.01 }))
      .thenSkips('GUARDRAIL', /slave lot 1\.01 is above the guardrail of 1 lots/);
    given({ features: [guard({ maxLotSizeThreshold: 1 })] })
      .when(masterOpened({ volume: 1 }))
      .then([{ type: 'open', volume: 1 }]);
  });

  it('measures the sized slave lot, not the master lot', () =>
    given({ settings: { multiplier: 3 }, features: [guard({ maxLotSizeThreshold: 2 })] })
      .when(masterOpened({ volume: 1 }))
      .thenSkips('GUARDRAIL'));

  it('does nothing while disabled, or with no threshold', () => {
    given({ features: [guard({ enabled: false, maxLotSizeThreshold: 1 })] })
      .when(masterOpened({ volume: 5 }))
      .then([{ type: 'open', volume: 5 }]);
    given({ features: [guard({ maxLotSizeThreshold: 0 })] })
      .when(masterOpened({ volume: 5 }))
      .then([{ type: 'open', volume: 5 }]);
  });

  it("aggregatePerSymbol adds the copier's open lots on the same symbol", () => {
    const open = holding(['EURUSD', 0.6], ['GBPUSD', 5]);
    given({ features: [guard({ maxLotSizeThreshold: 1, aggregatePerSymbol: true })], slave: open })
      .when(masterOpened({ volume: 0.5 }))
      .thenSkips('GUARDRAIL', /0\.5 lots with the 0\.6 lots open on EURUSD make 1\.1, above the guardrail of 1 lots/);
    given({ features: [guard({ maxLotSizeThreshold: 1, aggregatePerSymbol: true })], slave: open })
      .when(masterOpened({ volume: 0.4 }))
      .then([{ type: 'open', volume: 0.4 }]);
    given({ features: [guard({ maxLotSizeThreshold: 1 })], slave: open })
      .when(masterOpened({ volume: 0.5 }))
      .then([{ type: 'open', volume: 0.5 }]);
  });

  it('a symbol may have its own threshold: left out keeps the general one, 0 turns it off', () => {
    const forEurusd = (own: { maxLotSizeThreshold?: number; enabled?: boolean }) => guard({ maxLotSizeThreshold: 1, symbolsConfiguration: { eurusd: own } });
    given({ features: [forEurusd({ maxLotSizeThreshold: 2 })] })
      .when(masterOpened({ volume: 1.5 }))
      .then([{ type: 'open', volume: 1.5 }]);
    given({ features: [forEurusd({})] })
      .when(masterOpened({ volume: 1.5 }))
      .thenSkips('GUARDRAIL');
    given({ features: [forEurusd({ maxLotSizeThreshold: 0 })] })
      .when(masterOpened({ volume: 50 }))
      .then([{ type: 'open', volume: 50 }]);
    given({ features: [forEurusd({ enabled: false })] })
      .when(masterOpened({ volume: 50 }))
      .then([{ type: 'open', volume: 50 }]);
  });

  it("a symbol's own aggregatePerSymbol counts the lots open on it", () => {
    const open = holding(['EURUSD', 0.6]);
    given({ features: [guard({ maxLotSizeThreshold: 1, symbolsConfiguration: { EURUSD: { aggregatePerSymbol: true } } })], slave: open })
      .when(masterOpened({ volume: 0.5 }))
      .thenSkips('GUARDRAIL', /make 1\.1/);
  });

  it('applies to the lot a martingale feature doubled', () =>
    given({ features: [{ feature: martingaleStrategy, settings: {} }, guard({ maxLotSizeThreshold: 1.5 })], history: closedCopies([-5]) })
      .when(masterOpened({ volume: 1 }))
      .thenSkips('GUARDRAIL', /slave lot 2 is above/));

  // The copy opened at 09:00; management runs at 10:00.
  it('closes a copy held for maxOpenTimeSeconds, not one a second younger', () => {
    const [close] = manageWith(guard({ maxOpenTimeSeconds: 3600 }), { copies: [managed({ volume: 0.3 })] });
    expect(close).to.deep.include({ kind: 'close', slavePositionId: 's-2002', masterPositionId: 'm-1001', symbol: 'EURUSD', volume: 0.3 });
    expect(manageWith(guard({ maxOpenTimeSeconds: 3601 }), { copies: [managed()] })).to.deep.equal([]);
  });

  it('keeps copies open while disabled, without a time, or where their symbol turns the time off', () => {
    expect(manageWith(guard({ enabled: false, maxOpenTimeSeconds: 60 }), { copies: [managed()] })).to.deep.equal([]);
    expect(manageWith(guard({ maxOpenTimeSeconds: 0 }), { copies: [managed()] })).to.deep.equal([]);
    const off = guard({ maxOpenTimeSeconds: 60, symbolsConfiguration: { EURUSD: { maxOpenTimeSeconds: 0 } } });
    const actions = manageWith(off, { copies: [managed(), managed({ symbol: 'GBPUSD', slavePositionId: 's-gbp', masterPositionId: 'm-gbp' })] });
    expect(actions.map((a) => a.kind === 'close' && a.slavePositionId)).to.deep.equal(['s-gbp']);
  });

  it("closes a symbol's copies after its own time, others after the general one", () => {
    const own = guard({ maxOpenTimeSeconds: 7200, symbolsConfiguration: { GBPUSD: { maxOpenTimeSeconds: 600 } } });
    const actions = manageWith(own, { copies: [managed(), managed({ symbol: 'GBPUSD', slavePositionId: 's-gbp', masterPositionId: 'm-gbp' })] });
    expect(actions.map((a) => a.kind === 'close' && a.slavePositionId)).to.deep.equal(['s-gbp']);
  });

  it('refuses a symbol configured twice', () => {
    const twice = {
      ...tradeGuardrails.defaults,
      symbolsConfiguration: { EURUSD: { maxLotSizeThreshold: 1 }, eurusd: { maxLotSizeThreshold: 2 } },
    } as TradeGuardrailsSettings;
    expect(tradeGuardrails.check!(twice)).to.equal('symbolsConfiguration: symbol eurusd is configured twice (as EURUSD and eurusd)');
  });
});
