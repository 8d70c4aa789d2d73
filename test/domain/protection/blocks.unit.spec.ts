// The copy decision under an account protection: new copies are skipped with the protection's reason
// before any feature (a copier's risk limit: that copier's only); changes and closes of positions
// already copied still follow the master.
import { expect } from 'chai';
import { decideCopy, NO_FEATURES } from '../../../domain/copy/decision.js';
import type { CopyAction } from '../../../domain/copy/types.js';
import { type ProtectionBlock, protectionSkip } from '../../../domain/protection/blocks.js';
import { COPIER_ID, copierSettings, funds, masterClosed, masterOpened, masterPartiallyClosed, slaveCopy, slaveState, symbolSpec } from '../copy/given.js';

const riskLimitHit: ProtectionBlock = { ruleKind: 'RISK_LIMIT', ruleId: 'L1', symbol: null, message: 'Risk limit DAILY_EQUITY_TO_EQUITY hit: loss 400.00 USD' };
const us500Locked: ProtectionBlock = { ruleKind: 'OVERALL_TARGET', ruleId: 'O1', symbol: 'US500', message: 'Overall target for US500 reached' };

const decide = (
  event: Parameters<typeof decideCopy>[0],
  protections: readonly ProtectionBlock[],
  copies = [slaveCopy()],
  slaveSymbols = [symbolSpec()],
): readonly CopyAction[] =>
  decideCopy(
    event,
    { id: COPIER_ID, settings: copierSettings(), symbolOverrides: {} },
    { master: funds(), slave: slaveState({ copies }) },
    { masterSymbol: symbolSpec(), slaveSymbols, slaveToMasterRate: null },
    { ...NO_FEATURES, protections },
  );

describe('account protections in the copy decision', () => {
  it('finds the block of the whole account, or of the symbol whatever its case', () => {
    expect(protectionSkip([riskLimitHit], 'EURUSD')).to.deep.equal({ reason: 'RISK_LIMIT_HIT', message: riskLimitHit.message });
    expect(protectionSkip([us500Locked], 'EURUSD')).to.equal(null);
    expect(protectionSkip([us500Locked], 'us500')).to.deep.include({ reason: 'OVERALL_TARGET_REACHED' });
    expect(protectionSkip([us500Locked], null)).to.equal(null);
    expect(protectionSkip([{ ...riskLimitHit, ruleKind: 'PROFIT_TARGET' }], null)).to.deep.include({ reason: 'PROFIT_TARGET_LOCKED' });
  });

  it("skips a new copy with RISK_LIMIT_HIT and the limit's words", () => {
    const [action] = decide(masterOpened({ masterPositionId: 'm-2' }), [riskLimitHit]);
    expect(action).to.deep.include({ type: 'skip', reason: 'RISK_LIMIT_HIT', masterPositionId: 'm-2' });
    expect((action as { message: string }).message).to.equal('Buy 1 EURUSD (master #m-2) not copied: Risk limit DAILY_EQUITY_TO_EQUITY hit: loss 400.00 USD');
  });

  it('still closes and partially closes the copies the account holds', () => {
    expect(decide(masterClosed(), [riskLimitHit]).map((a) => a.type)).to.deep.equal(['close']);
    expect(decide(masterPartiallyClosed(0.5, 0.5), [riskLimitHit]).map((a) => a.type)).to.deep.equal(['partialClose']);
  });

  it('blocks a per-symbol lock on that slave symbol only', () => {
    const us500 = symbolSpec({ symbol: 'US500', minLot: 0.1, lotStep: 0.1, digits: 2, point: 0.01, contractSize: 10 });
    const blocked = decide(
      masterOpened({ masterPositionId: 'm-3', symbol: 'US500', stopLoss: null, takeProfit: null }),
      [us500Locked],
      [],
      [symbolSpec(), us500],
    );
    expect(blocked[0]).to.deep.include({ type: 'skip', reason: 'OVERALL_TARGET_REACHED' });
    expect(decide(masterOpened({ masterPositionId: 'm-4' }), [us500Locked], [], [symbolSpec(), us500])[0]).to.deep.include({ type: 'open', symbol: 'EURUSD' });
  });

  it("blocks a copier's risk limit (copierId) for that copier only", () => {
    const ofThisCopier: ProtectionBlock = { ...riskLimitHit, copierId: COPIER_ID };
    const ofAnother: ProtectionBlock = { ...riskLimitHit, copierId: 'another-copier' };
    expect(protectionSkip([ofThisCopier], 'EURUSD', COPIER_ID)).to.deep.include({ reason: 'RISK_LIMIT_HIT' });
    expect(protectionSkip([ofAnother], 'EURUSD', COPIER_ID)).to.equal(null);
    expect(protectionSkip([riskLimitHit], 'EURUSD', COPIER_ID)).to.deep.include({ reason: 'RISK_LIMIT_HIT' });
    expect(decide(masterOpened({ masterPositionId: 'm-5' }), [ofThisCopier], [])[0]).to.deep.include({ type: 'skip', reason: 'RISK_LIMIT_HIT' });
    expect(decide(masterOpened({ masterPositionId: 'm-6' }), [ofAnother], [])[0]).to.deep.include({ type: 'open', symbol: 'EURUSD' });
  });
});
