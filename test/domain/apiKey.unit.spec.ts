// The API key aggregate's rules (domain/apiKey/decider.ts), as given / when / then.
import { expect } from 'chai';
import type { AccessPolicy } from '../../domain/apiKey/accessPolicy.js';
import type { ApiKeyCommand } from '../../domain/apiKey/commands.js';
import { apiKeyDecider, type ApiKey } from '../../domain/apiKey/decider.js';
import type { ApiKeyEvent } from '../../domain/apiKey/events.js';
import { systemContext } from '../../domain/shared/command.js';
import { DomainError } from '../../domain/shared/errors.js';

const NOW = '2026-03-01T12:00:00.000Z';
const P = '44444444-4444-4444-8444-444444444444';
const OTHER_P = '66666666-6666-4666-8666-666666666666';
const K = '55555555-5555-4555-8555-555555555555';
const metadata = { now: NOW, context: systemContext('test') };

const POLICY: AccessPolicy = {
  enabled: true,
  fieldAccess: null,
  endpointAccess: { mode: 'ALLOW_LIST', rules: [{ pathPattern: '/accounts/**', method: 'GET' }] },
  ipWhitelist: [],
  corsOrigins: [],
  hiddenFrontendFeatures: [],
};

const issued = (overrides: Partial<Extract<ApiKeyEvent, { type: 'ApiKeyIssued' }>['data']> = {}): ApiKeyEvent => ({
  type: 'ApiKeyIssued',
  data: {
    apiKeyId: K,
    projectId: P,
    accountId: null,
    level: 'PROJECT',
    keyType: 'INTEGRATION',
    name: 'k',
    keyHash: 'h1',
    keyPrefix: 'ct_abcd',
    expiresAt: null,
    at: '2026-01-01T00:00:00.000Z',
    ...overrides,
  },
});

const given = (events: ApiKeyEvent[]) => {
  const state: ApiKey = events.reduce(apiKeyDecider.evolve, apiKeyDecider.initialState);
  return {
    when: (type: ApiKeyCommand['type'], data: Record<string, unknown>) => {
      const command = { type, data: { apiKeyId: K, projectId: P, ...data }, metadata } as ApiKeyCommand;
      return {
        then: (expected: ApiKeyEvent[]) => expect(apiKeyDecider.decide(command, state)).to.deep.equal(expected),
        thenRefuses: (code: string, kind: DomainError['kind']) => {
          try {
            apiKeyDecider.decide(command, state);
          } catch (error) {
            expect(error).to.be.instanceOf(DomainError);
            expect((error as DomainError).code).to.equal(code);
            expect((error as DomainError).kind).to.equal(kind);
            return;
          }
          expect.fail(`expected ${code}`);
        },
      };
    },
  };
};

const issueData = {
  accountId: null,
  level: 'PROJECT',
  keyType: 'INTEGRATION',
  name: 'k',
  keyHash: 'h1',
  keyPrefix: 'ct_abcd',
  expiresAt: null,
};

describe('api key decider', () => {
  describe('issue', () => {
    it('issues a key with the command time', () =>
      given([])
        .when('IssueApiKey', issueData)
        .then([issued({ at: NOW })]));

    it('issues a key with its access policy as a second event', () =>
      given([])
        .when('IssueApiKey', { ...issueData, accessPolicy: POLICY })
        .then([issued({ at: NOW }), { type: 'ApiKeyAccessPolicySet', data: { apiKeyId: K, accessPolicy: POLICY, at: NOW } }]));

    it('issuing the same key again changes nothing (the bootstrap key at every start)', () => given([issued()]).when('IssueApiKey', issueData).then([]));

    it('issuing another key under an existing id is a conflict', () =>
      given([issued()])
        .when('IssueApiKey', { ...issueData, keyHash: 'h2' })
        .thenRefuses('[API_KEY_ALREADY_EXISTS]', 'conflict'));

    it('refuses an expiry that is not after now, to the millisecond', () => {
      given([])
        .when('IssueApiKey', { ...issueData, expiresAt: NOW })
        .thenRefuses('[API_KEY_EXPIRY_NOT_IN_FUTURE]', 'validation');
      given([])
        .when('IssueApiKey', { ...issueData, expiresAt: '2026-03-01T12:00:00.001Z' })
        .then([issued({ at: NOW, expiresAt: '2026-03-01T12:00:00.001Z' })]);
    });
  });

  describe('change', () => {
    it('renames, changes the expiry and makes the key the AI key, one event each', () =>
      given([issued()])
        .when('ChangeApiKey', { name: 'renamed', expiresAt: '2026-04-01T00:00:00.000Z', keyType: 'AI' })
        .then([
          { type: 'ApiKeyRenamed', data: { apiKeyId: K, name: 'renamed', at: NOW } },
          { type: 'ApiKeyExpiryChanged', data: { apiKeyId: K, expiresAt: '2026-04-01T00:00:00.000Z', at: NOW } },
          { type: 'ApiKeyTypeChanged', data: { apiKeyId: K, from: 'INTEGRATION', to: 'AI', at: NOW } },
        ]));

    it('members equal to the current ones change nothing (the same instant written another way too)', () =>
      given([issued({ name: 'k', expiresAt: '2026-04-01T00:00:00.000Z' })])
        .when('ChangeApiKey', { name: 'k', expiresAt: '2026-04-01T02:00:00+02:00', keyType: 'INTEGRATION' })
        .then([]));

    it('an AI key never becomes an INTEGRATION key', () =>
      given([issued({ keyType: 'AI' })])
        .when('ChangeApiKey', { keyType: 'INTEGRATION' })
        .thenRefuses('[AI_KEY_CANNOT_BECOME_INTEGRATION]', 'conflict'));

    it('an expired key can get a new expiry, but not one in the past', () => {
      const expired = issued({ expiresAt: '2026-02-01T00:00:00.000Z' });
      given([expired])
        .when('ChangeApiKey', { expiresAt: null })
        .then([{ type: 'ApiKeyExpiryChanged', data: { apiKeyId: K, expiresAt: null, at: NOW } }]);
      given([expired]).when('ChangeApiKey', { expiresAt: '2026-02-15T00:00:00.000Z' }).thenRefuses('[API_KEY_EXPIRY_NOT_IN_FUTURE]', 'validation');
    });

    it("another project's key is reported as not found", () =>
      given([issued()]).when('ChangeApiKey', { projectId: OTHER_P, name: 'x' }).thenRefuses('[API_KEY_NOT_FOUND]', 'notFound'));

    it('a key that does not exist is not found', () =>
      given([]).when('RotateApiKey', { keyHash: 'h2', keyPrefix: 'ct_x' }).thenRefuses('[API_KEY_NOT_FOUND]', 'notFound'));
  });

  describe('rotate, revoke', () => {
    it('rotation replaces the hash and the prefix', () =>
      given([issued()])
        .when('RotateApiKey', { keyHash: 'h2', keyPrefix: 'ct_efgh' })
        .then([{ type: 'ApiKeyRotated', data: { apiKeyId: K, keyHash: 'h2', keyPrefix: 'ct_efgh', at: NOW } }]));

    it('revocation is recorded with its reason; revoking again changes nothing', () => {
      const revoked: ApiKeyEvent = { type: 'ApiKeyRevoked', data: { apiKeyId: K, reason: 'REVOKED', replacedBy: null, at: NOW } };
      given([issued()]).when('RevokeApiKey', { reason: 'REVOKED' }).then([revoked]);
      given([issued(), revoked]).when('RevokeApiKey', { reason: 'REVOKED' }).then([]);
    });

    it('a revoked key changes no more: no rename, rotation, or policy', () => {
      const events = [issued(), { type: 'ApiKeyRevoked', data: { apiKeyId: K, reason: 'REPLACED_BY_NEW_AI_KEY', replacedBy: P, at: NOW } } as ApiKeyEvent];
      given(events).when('ChangeApiKey', { name: 'x' }).thenRefuses('[API_KEY_REVOKED]', 'conflict');
      given(events).when('RotateApiKey', { keyHash: 'h2', keyPrefix: 'ct_x' }).thenRefuses('[API_KEY_REVOKED]', 'conflict');
      given(events).when('SetApiKeyAccessPolicy', { accessPolicy: POLICY }).thenRefuses('[API_KEY_REVOKED]', 'conflict');
    });
  });

  describe('access policy', () => {
    const set: ApiKeyEvent = { type: 'ApiKeyAccessPolicySet', data: { apiKeyId: K, accessPolicy: POLICY, at: NOW } };

    it('sets a policy; the same policy again, with members in another order, changes nothing', () => {
      given([issued()]).when('SetApiKeyAccessPolicy', { accessPolicy: POLICY }).then([set]);
      const reordered = JSON.parse(
        JSON.stringify({
          hiddenFrontendFeatures: [],
          corsOrigins: [],
          ipWhitelist: [],
          endpointAccess: POLICY.endpointAccess,
          fieldAccess: null,
          enabled: true,
        }),
      );
      given([issued(), set]).when('SetApiKeyAccessPolicy', { accessPolicy: reordered }).then([]);
    });

    it('removes a policy once', () => {
      given([issued(), set])
        .when('RemoveApiKeyAccessPolicy', {})
        .then([{ type: 'ApiKeyAccessPolicyRemoved', data: { apiKeyId: K, at: NOW } }]);
      given([issued()]).when('RemoveApiKeyAccessPolicy', {}).then([]);
    });
  });
});
