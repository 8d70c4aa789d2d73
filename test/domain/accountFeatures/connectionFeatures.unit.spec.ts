// The account features that are configuration only on this service: their members are validated as the
// API validates a feature setting, and they say in their description that they change nothing.
import { expect } from 'chai';
import { fromFeatureWriteDTO } from '../../../api/features/dto.js';
import { featureBody } from '../../support/trading.js';
import { featureDefinition } from '../../../domain/feature/catalogue.js';
import type { FeatureSetting } from '../../../domain/feature/events.js';
import { maskMyHomeIpPassword, sealMyHomeIpPassword } from '../../../domain/accountFeatures/myHomeIp.js';

describe('configuration-only account features', () => {
  const project = { kind: 'project' as const, projectId: '7c9e6679-7425-40de-944b-e07fc1f90ae7' };
  const valid = (setting: Record<string, unknown>) => {
    try {
      fromFeatureWriteDTO(featureBody(setting), { kind: 'account', accountId: '046b6c7f-0b8a-43b9-b35d-6489e6daee91' });
      return true;
    } catch {
      return false;
    }
  };

  it('FeatureDedicatedIpDTO takes the reference’s dedicatedProxyServerId, a positive int32, and nothing else', () => {
    expect(valid({ type: 'FeatureDedicatedIpDTO', dedicatedProxyServerId: 6 })).to.equal(true);
    expect(valid({ type: 'FeatureDedicatedIpDTO', dedicatedProxyServerId: 0 })).to.equal(false);
    expect(valid({ type: 'FeatureDedicatedIpDTO', dedicatedProxyServerId: 2 ** 31 })).to.equal(false);
    expect(valid({ type: 'FeatureDedicatedIpDTO', dedicatedProxyServerId: '6' })).to.equal(false);
    expect(valid({ type: 'FeatureDedicatedIpDTO', ipAddress: '203.0.113.7' })).to.equal(false);
    expect(valid({ type: 'FeatureDedicatedIpDTO' })).to.equal(false);
  });

  it('FeatureDedicatedIpPoolDTO takes poolSize per region id, and answers no reserved proxy servers whatever is sent', () => {
    expect(valid({ type: 'FeatureDedicatedIpPoolDTO', poolSize: { '1': 2, '2': 0 } })).to.equal(true);
    expect(valid({ type: 'FeatureDedicatedIpPoolDTO', poolSize: {} })).to.equal(true);
    expect(valid({ type: 'FeatureDedicatedIpPoolDTO', poolSize: { '9': 1 } })).to.equal(false);
    expect(valid({ type: 'FeatureDedicatedIpPoolDTO', poolSize: { London: 1 } })).to.equal(false);
    expect(valid({ type: 'FeatureDedicatedIpPoolDTO', poolSize: { '1': -1 } })).to.equal(false);
    expect(valid({ type: 'FeatureDedicatedIpPoolDTO' })).to.equal(false);
    const sent = { type: 'FeatureDedicatedIpPoolDTO', poolSize: { '1': 2 }, dedicatedProxyServerIds: { '1': [] } };
    expect(fromFeatureWriteDTO(featureBody(sent), project)).to.deep.equal({
      type: 'FeatureDedicatedIpPoolDTO',
      poolSize: { '1': 2 },
      dedicatedProxyServerIds: {},
    });
  });

  it('FeatureMyHomeIpDTO takes host, username and password, the ports optional', () => {
    const home: Record<string, unknown> = { type: 'FeatureMyHomeIpDTO', host: 'home.example.net', username: 'trader', password: 'pw' };
    expect(valid(home)).to.equal(true);
    expect(valid({ ...home, host: '198.51.100.4', httpPort: 8080, socksPort: 1080 })).to.equal(true);
    expect(valid({ ...home, httpPort: 0 })).to.equal(false);
    expect(valid({ ...home, socksPort: 65536 })).to.equal(false);
    for (const member of ['host', 'username', 'password']) {
      const { [member]: _left, ...without } = home;
      expect(valid(without), member).to.equal(false);
    }
    expect(valid({ ...home, port: 1080 })).to.equal(false);
  });

  it('FeatureMyHomeIpDTO seals the password, masks it in answers, and keeps it when the mask or "" comes back', () => {
    const sealer = { seal: (p: string) => `sealed:${p}`, unseal: (c: string) => c.slice('sealed:'.length) };
    const sent = { type: 'FeatureMyHomeIpDTO', host: 'h', username: 'u', password: 'pw' };
    const stored = sealMyHomeIpPassword(sent, null, sealer);
    expect(stored).to.deep.equal({ ok: true, setting: { ...sent, password: 'sealed:pw' } });
    const setting = (stored as { setting: FeatureSetting }).setting;
    expect(maskMyHomeIpPassword(setting)).to.deep.equal({ ...sent, password: '********' });
    for (const kept of ['********', '']) expect(sealMyHomeIpPassword({ ...sent, password: kept }, setting, sealer)).to.deep.equal({ ok: true, setting });
    expect(sealMyHomeIpPassword({ ...sent, password: 'pw' }, setting, sealer)).to.deep.equal({ ok: true, setting });
    expect(sealMyHomeIpPassword({ ...sent, password: 'new' }, setting, sealer)).to.deep.equal({ ok: true, setting: { ...sent, password: 'sealed:new' } });
    expect(sealMyHomeIpPassword({ ...sent, password: '********' }, null, sealer)).to.deep.equal({ ok: false, problem: 'password is required' });
    expect(maskMyHomeIpPassword({ type: 'FeatureHftModeDTO', password: 'x' })).to.deep.equal({ type: 'FeatureHftModeDTO', password: 'x' });
  });

  it('FeatureHftModeDTO and FeatureSocketDTO take only the reference’s activateHftMode and activateSocket', () => {
    expect(valid({ type: 'FeatureHftModeDTO' })).to.equal(true);
    expect(valid({ type: 'FeatureHftModeDTO', activateHftMode: true })).to.equal(true);
    expect(valid({ type: 'FeatureSocketDTO', activateSocket: false })).to.equal(true);
    expect(valid({ type: 'FeatureSocketDTO', enabled: false })).to.equal(false);
    expect(valid({ type: 'FeatureHftModeDTO', pollingMs: 10 })).to.equal(false);
  });

  it('each says in its description that it changes no behaviour; the pool and the home proxy attach to a project too (the reference)', () => {
    const scopes: Record<string, string[]> = {
      FeatureHftModeDTO: ['account'],
      FeatureSocketDTO: ['account'],
      FeatureDedicatedIpDTO: ['account'],
      FeatureDedicatedIpPoolDTO: ['account', 'project'],
      FeatureMyHomeIpDTO: ['account', 'project'],
    };
    for (const [type, expected] of Object.entries(scopes)) {
      const definition = featureDefinition(type)!;
      expect(definition.description, type).to.match(/configuration only/i);
      expect(definition.description, type).to.match(/changes? no behaviour/);
      expect(definition.scopes, type).to.deep.equal(expected);
    }
  });
});
