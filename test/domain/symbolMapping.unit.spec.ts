// The project symbol mappings aggregate (domain/symbolMapping/decider.ts) and its rules
// (domain/symbolMapping/rule.ts): ids, validation, duplicates, and which mappings apply to two brokers.
import { expect } from 'chai';
import { systemContext } from '../../domain/shared/command.js';
import type { SymbolMappingCommand } from '../../domain/symbolMapping/commands.js';
import { symbolMappingDecider } from '../../domain/symbolMapping/decider.js';
import type { SymbolMappingEvent } from '../../domain/symbolMapping/events.js';
import { applicableMappings, brokerMatches, brokerPatternProblem, type SymbolMappingRule } from '../../domain/symbolMapping/rule.js';
import { givenDecider } from './givenDecider.js';

const NOW = '2026-03-02T09:30:00.000Z';
const EARLIER = '2026-03-01T08:00:00.000Z';
const PROJECT = '22222222-2222-4222-8222-222222222222';
const metadata = { now: NOW, context: systemContext('spec') };

const rule = (overrides: Partial<SymbolMappingRule> = {}): SymbolMappingRule => ({
  from: 'GOLD',
  to: 'XAUUSD',
  brokerFrom: '.*',
  brokerTo: 'ICMarkets.*',
  priority: 0,
  ...overrides,
});
const created = (id: number, overrides: Partial<SymbolMappingRule> = {}): SymbolMappingEvent => ({
  type: 'SymbolMappingCreated',
  data: { projectId: PROJECT, symbolMappingId: id, mapping: rule(overrides), at: EARLIER },
});
const deleted = (id: number): SymbolMappingEvent => ({ type: 'SymbolMappingDeleted', data: { projectId: PROJECT, symbolMappingId: id, at: EARLIER } });
const create = (overrides: Partial<SymbolMappingRule> = {}): SymbolMappingCommand => ({
  type: 'CreateSymbolMapping',
  data: { projectId: PROJECT, mapping: rule(overrides) },
  metadata,
});
const update = (id: number, overrides: Partial<SymbolMappingRule> = {}): SymbolMappingCommand => ({
  type: 'UpdateSymbolMapping',
  data: { projectId: PROJECT, symbolMappingId: id, mapping: rule(overrides) },
  metadata,
});

const given = givenDecider(symbolMappingDecider);

describe('project symbol mappings: the aggregate', () => {
  it('numbers the first mapping 1', () =>
    given([])
      .when(create())
      .then([{ type: 'SymbolMappingCreated', data: { projectId: PROJECT, symbolMappingId: 1, mapping: rule(), at: NOW } }]));

  it('never gives a deleted mapping’s id again', () =>
    given([created(1), created(2, { from: 'SILVER', to: 'XAGUSD' }), deleted(2)])
      .when(create({ from: 'OIL', to: 'USOIL' }))
      .then([{ type: 'SymbolMappingCreated', data: { projectId: PROJECT, symbolMappingId: 3, mapping: rule({ from: 'OIL', to: 'USOIL' }), at: NOW } }]));

  it('refuses a second mapping of the same symbols for the same brokers (without case)', () =>
    given([created(1)])
      .when(create({ from: 'gold', to: 'xauusd', priority: 5 }))
      .thenRefuses('[SYMBOL_MAPPING_ALREADY_EXISTS]', 'conflict'));

  it('takes the same symbol to another target, or for other brokers', () => {
    given([created(1)])
      .when(create({ to: 'XAUUSD.m', priority: 1 }))
      .then([{ type: 'SymbolMappingCreated', data: { projectId: PROJECT, symbolMappingId: 2, mapping: rule({ to: 'XAUUSD.m', priority: 1 }), at: NOW } }]);
    given([created(1)])
      .when(create({ brokerTo: 'Pepperstone.*' }))
      .then([{ type: 'SymbolMappingCreated', data: { projectId: PROJECT, symbolMappingId: 2, mapping: rule({ brokerTo: 'Pepperstone.*' }), at: NOW } }]);
  });

  it('replaces a mapping, and does nothing when nothing changes', () => {
    given([created(1)])
      .when(update(1, { priority: 3 }))
      .then([{ type: 'SymbolMappingUpdated', data: { projectId: PROJECT, symbolMappingId: 1, mapping: rule({ priority: 3 }), at: NOW } }]);
    given([created(1)])
      .when(update(1))
      .then([]);
  });

  it('does not find a deleted or unknown mapping', () => {
    given([created(1), deleted(1)])
      .when(update(1))
      .thenRefuses('[SYMBOL_MAPPING_NOT_FOUND]', 'notFound');
    given([created(1)])
      .when({ type: 'DeleteSymbolMapping', data: { projectId: PROJECT, symbolMappingId: 2 }, metadata })
      .thenRefuses('[SYMBOL_MAPPING_NOT_FOUND]', 'notFound');
  });

  it('refuses invalid members and names the field', () => {
    const cases: readonly [Partial<SymbolMappingRule>, string][] = [
      [{ from: ' ' }, 'from'],
      [{ to: '' }, 'to'],
      [{ brokerFrom: 'ICMarkets[' }, 'brokerFrom'],
      [{ brokerTo: '(a+)+' }, 'brokerTo'],
      [{ priority: -1 }, 'priority'],
      [{ priority: 0.5 }, 'priority'],
    ];
    for (const [overrides, field] of cases) {
      const error = given([]).when(create(overrides)).thenRefuses('[VALIDATION_FAILED]', 'validation');
      expect(error.details, JSON.stringify(overrides)).to.deep.equal({ field });
    }
  });
});

describe('project symbol mappings: broker patterns', () => {
  it('match the whole loginServer without case; an empty pattern matches every broker', () => {
    expect(brokerMatches('ICMarkets.*', 'ICMarketsSC-Demo')).to.equal(true);
    expect(brokerMatches('ICMarkets.*', 'icmarkets-live01')).to.equal(true);
    expect(brokerMatches('ICMarkets', 'ICMarketsSC-Demo')).to.equal(false);
    expect(brokerMatches('Markets.*', 'ICMarketsSC-Demo')).to.equal(false);
    expect(brokerMatches('.*', '')).to.equal(true);
    expect(brokerMatches('', 'Pepperstone-Live')).to.equal(true);
  });

  it('refuse shapes that backtrack exponentially, back-references and look-arounds, and accept ordinary ones', () => {
    for (const bad of ['(a+)+', '(a|aa)*', '(.*)*x', '((ab)+)+', '(a)\\1', '(?=x).*', '(?<!x)y']) expect(brokerPatternProblem(bad), bad).to.be.a('string');
    for (const good of ['.*', '', 'ICMarkets.*', 'ICMarkets(SC)?-(Demo|Live)\\d*', '[A-Za-z]+-Live', '(Demo|Live)', 'Server\\(1\\)+'])
      expect(brokerPatternProblem(good), good).to.equal(null);
  });

  it('order the mappings that apply by priority, then by age', () => {
    const mappings = [
      { id: 1, ...rule({ priority: 2 }) },
      { id: 2, ...rule({ to: 'XAUUSD.m', priority: 1 }) },
      { id: 3, ...rule({ to: 'GOLD', brokerTo: 'Pepperstone.*', priority: 0 }) },
      { id: 4, ...rule({ to: 'XAUUSD.x', priority: 1 }) },
      { id: 5, ...rule({ to: 'XAU', brokerFrom: 'Exness.*', priority: 0 }) },
    ];
    expect(applicableMappings(mappings, 'FTMO-Server', 'ICMarketsSC-Demo').map((m) => m.id)).to.deep.equal([2, 4, 1]);
    expect(applicableMappings(mappings, 'Exness-Real', 'ICMarketsSC-Demo').map((m) => m.id)).to.deep.equal([5, 2, 4, 1]);
  });
});
