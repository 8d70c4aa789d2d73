import { Type } from '@sinclair/typebox';
import { expect } from 'chai';
import {
  checkSymbolsConfiguration,
  perSymbolRules,
  settingsFor,
  withSymbolsConfiguration,
  type WithSymbols,
} from '../../../../domain/copy/features/perSymbol.js';
import type { ManageContext, ManagedAction } from '../../../../domain/copy/features/rules.js';
import { validate } from '../../../../api/validation.js';
import { managed } from '../given.js';

describe('feature members per symbol (symbolsConfiguration)', () => {
  const general = Type.Object({ cap: Type.Number({ minimum: 0, maximum: 10 }), on: Type.Boolean(), note: Type.Union([Type.String(), Type.Null()]) });
  type General = { cap: number; on: boolean; note: string | null };
  const members = withSymbolsConfiguration(general, 'Per symbol.');
  const settings = (symbolsConfiguration: WithSymbols<General>['symbolsConfiguration']): WithSymbols<General> => ({
    cap: 5,
    on: true,
    note: 'general',
    symbolsConfiguration,
  });

  it("declares the reference's object map whose values take any of the members with the same bounds", () => {
    const body = (symbolsConfiguration: unknown) => ({ cap: 1, on: true, note: null, symbolsConfiguration });
    expect(() => validate(members, body({ EURUSD: { cap: 2 }, GBPUSD: {} }), 'body')).not.to.throw();
    expect(() => validate(members, body({ EURUSD: { cap: 11 } }), 'body')).to.throw(/cap/);
    expect(() => validate(members, body({ EURUSD: { unknown: 1 } }), 'body')).to.throw();
    expect(() => validate(members, body([{ symbol: 'EURUSD', cap: 1 }]), 'body')).to.throw();
    expect(members.properties.symbolsConfiguration).to.deep.include({ type: 'object' });
  });

  it('the effective setting: the general members with those the symbol sets; left out or null keeps the general value', () => {
    const s = settings({ eurusd: { cap: 1, note: null } });
    expect(settingsFor(s, 'EURUSD')).to.deep.equal({ cap: 1, on: true, note: 'general' });
    expect(settingsFor(s, 'GBPUSD')).to.deep.equal({ cap: 5, on: true, note: 'general' });
    expect(settingsFor(s, null)).to.deep.equal({ cap: 5, on: true, note: 'general' });
    expect(settingsFor(settings({ EURUSD: { cap: 0, on: false } }), 'EURUSD')).to.deep.equal({ cap: 0, on: false, note: 'general' });
  });

  it('refuses a symbol configured twice in another case, an empty key, and a symbol whose effective setting breaks the rules', () => {
    expect(checkSymbolsConfiguration(settings({ EURUSD: {}, eurusd: {} }))).to.match(/symbol eurusd is configured twice \(as EURUSD and eurusd\)/);
    expect(checkSymbolsConfiguration(settings({ ' ': {} }))).to.match(/empty/);
    expect(checkSymbolsConfiguration(settings({ EURUSD: {}, GBPUSD: { cap: 1 } }))).to.equal(null);
    const rule = (s: General) => (s.on && s.cap === 0 ? 'cap 0 needs on false' : null);
    expect(checkSymbolsConfiguration(settings({ GBPUSD: { cap: 0 } }), rule)).to.equal('symbolsConfiguration.GBPUSD: cap 0 needs on false');
    expect(checkSymbolsConfiguration(settings({ GBPUSD: { cap: 0, on: false } }), rule)).to.equal(null);
  });

  it('management runs once with the general setting and once per configured symbol, each with its own copies', () => {
    const seen: [number, string[]][] = [];
    const rules = perSymbolRules<General>({
      manage: (s, ctx): ManagedAction[] => {
        seen.push([s.cap, ctx.copies.map((c) => c.symbol)]);
        return [];
      },
    });
    const copies = [managed({ symbol: 'EURUSD' }), managed({ symbol: 'GBPUSD' }), managed({ symbol: 'eurusd' })];
    rules.manage!(settings({ EURUSD: { cap: 1 }, USDJPY: { cap: 2 } }), { copies } as unknown as ManageContext, 'f');
    expect(seen).to.deep.equal([
      [5, ['GBPUSD']],
      [1, ['EURUSD', 'eurusd']],
    ]);
  });
});
