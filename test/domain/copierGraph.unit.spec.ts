// The copy network's graph rules (domain/copier/graph.ts): a copier may not close a cycle, and two
// accounts are joined by one copier at most.
import { expect } from 'chai';
import { copierExists, wouldCloseCycle } from '../../domain/copier/graph.js';

const edge = (from: string, to: string) => ({ from_account_id: from, to_account_id: to });

describe('copier graph', () => {
  it('refuses a copier whose slave already reaches its master: directly, or through a chain', () => {
    expect(wouldCloseCycle([edge('a', 'b')], 'b', 'a')).to.equal(true);
    expect(wouldCloseCycle([edge('a', 'b'), edge('b', 'c'), edge('c', 'd')], 'd', 'a')).to.equal(true);
  });

  it('allows chains, fan-out and fan-in that close no cycle', () => {
    const edges = [edge('a', 'b'), edge('b', 'c'), edge('a', 'd'), edge('e', 'd')];
    expect(wouldCloseCycle(edges, 'c', 'f')).to.equal(false);
    expect(wouldCloseCycle(edges, 'e', 'b')).to.equal(false);
    expect(wouldCloseCycle(edges, 'd', 'x')).to.equal(false);
  });

  it('terminates on a network that already holds a cycle elsewhere', () => {
    const edges = [edge('x', 'y'), edge('y', 'x'), edge('a', 'x')];
    expect(wouldCloseCycle(edges, 'b', 'a')).to.equal(false);
    expect(wouldCloseCycle(edges, 'y', 'a')).to.equal(true);
  });

  it('knows a copier between the same two accounts in the same direction only', () => {
    expect(copierExists([edge('a', 'b')], 'a', 'b')).to.equal(true);
    expect(copierExists([edge('a', 'b')], 'b', 'a')).to.equal(false);
  });
});
