import { expect } from 'chai';
import { apiKeyDecider } from '../../domain/apiKey/decider.js';
import { projectDecider } from '../../domain/project/decider.js';
import { systemContext } from '../../domain/shared/command.js';
import { DomainError } from '../../domain/shared/errors.js';

const metadata = { now: '2026-01-01T00:00:00.000Z', context: systemContext('test') };
const P = '44444444-4444-4444-8444-444444444444';

describe('project decider', () => {
  it('creates a project once; creating it again changes nothing', () => {
    const cmd = { type: 'CreateProject' as const, data: { projectId: P, name: 'Desk', owner: null }, metadata };
    const events = projectDecider.decide(cmd, projectDecider.initialState);
    expect(events).to.deep.equal([{ type: 'ProjectCreated', data: { projectId: P, name: 'Desk', owner: null, at: metadata.now } }]);
    const state = events.reduce(projectDecider.evolve, projectDecider.initialState);
    expect(projectDecider.decide(cmd, state)).to.deep.equal([]);
  });
});

describe('api key decider', () => {
  const data = {
    apiKeyId: '55555555-5555-4555-8555-555555555555',
    projectId: P,
    accountId: null,
    level: 'PROJECT' as const,
    keyType: 'INTEGRATION' as const,
    name: 'k',
    keyHash: 'h1',
    keyPrefix: 'ct_abc',
    expiresAt: null,
  };
  it('issuing the same key again changes nothing', () => {
    const events = apiKeyDecider.decide({ type: 'IssueApiKey', data, metadata }, apiKeyDecider.initialState);
    expect(events.map((e) => e.type)).to.deep.equal(['ApiKeyIssued']);
    const state = events.reduce(apiKeyDecider.evolve, apiKeyDecider.initialState);
    expect(apiKeyDecider.decide({ type: 'IssueApiKey', data, metadata }, state)).to.deep.equal([]);
  });
  it('issuing a different key under an existing id is a conflict', () => {
    const state = apiKeyDecider
      .decide({ type: 'IssueApiKey', data, metadata }, apiKeyDecider.initialState)
      .reduce(apiKeyDecider.evolve, apiKeyDecider.initialState);
    expect(() => apiKeyDecider.decide({ type: 'IssueApiKey', data: { ...data, keyHash: 'h2' }, metadata }, state)).to.throw(DomainError);
  });
});
