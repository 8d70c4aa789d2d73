// The account features that are configuration only on this service: their members are validated as the
// API validates a feature setting, and they say in their description that they change nothing.
import { expect } from 'chai';
import { fromFeatureWriteDTO } from '../../../api/features/dto.js';
import { featureBody } from '../../support/trading.js';
import { featureDefinition } from '../../../domain/feature/catalogue.js';

describe('configuration-only account features', () => {
  const valid = (setting: Record<string, unknown>) => {
    try {
      fromFeatureWriteDTO(featureBody(setting), { kind: 'account', accountId: '046b6c7f-0b8a-43b9-b35d-6489e6daee91' });
      return true;
    } catch {
      return false;
    }
  };

  it('FeatureDedicatedIpDTO takes an IPv4 or IPv6 address and nothing else', () => {
    expect(valid({ type: 'FeatureDedicatedIpDTO', ipAddress: '203.0.113.7' })).to.equal(true);
    expect(valid({ type: 'FeatureDedicatedIpDTO', ipAddress: '2001:db8::7' })).to.equal(true);
    expect(valid({ type: 'FeatureDedicatedIpDTO', ipAddress: '203.0.113.300' })).to.equal(false);
    expect(valid({ type: 'FeatureDedicatedIpDTO', ipAddress: 'example.com' })).to.equal(false);
    expect(valid({ type: 'FeatureDedicatedIpDTO' })).to.equal(false);
  });

  it('FeatureDedicatedIpPoolDTO takes 1 to 32 distinct addresses', () => {
    expect(valid({ type: 'FeatureDedicatedIpPoolDTO', ipAddresses: ['203.0.113.7', '2001:db8::7'] })).to.equal(true);
    expect(valid({ type: 'FeatureDedicatedIpPoolDTO', ipAddresses: [] })).to.equal(false);
    expect(valid({ type: 'FeatureDedicatedIpPoolDTO', ipAddresses: ['203.0.113.7', '203.0.113.7'] })).to.equal(false);
    expect(valid({ type: 'FeatureDedicatedIpPoolDTO', ipAddresses: Array.from({ length: 33 }, (_, i) => `203.0.113.${i}`) })).to.equal(false);
  });

  it('FeatureMyHomeIpDTO takes a host, a port and a protocol (SOCKS5 by default), and no credentials', () => {
    expect(valid({ type: 'FeatureMyHomeIpDTO', host: 'home.example.net', port: 1080 })).to.equal(true);
    expect(valid({ type: 'FeatureMyHomeIpDTO', host: '198.51.100.4', port: 8080, protocol: 'HTTP' })).to.equal(true);
    expect(valid({ type: 'FeatureMyHomeIpDTO', host: 'home.example.net', port: 0 })).to.equal(false);
    expect(valid({ type: 'FeatureMyHomeIpDTO', host: 'home.example.net', port: 1080, protocol: 'SOCKS4' })).to.equal(false);
    expect(valid({ type: 'FeatureMyHomeIpDTO', host: 'home.example.net', port: 1080, password: 'x' })).to.equal(false);
    expect(featureDefinition('FeatureMyHomeIpDTO')!.defaults).to.deep.equal({ protocol: 'SOCKS5' });
  });

  it('FeatureHftModeDTO and FeatureSocketDTO take only the reference’s activateHftMode and activateSocket', () => {
    expect(valid({ type: 'FeatureHftModeDTO' })).to.equal(true);
    expect(valid({ type: 'FeatureHftModeDTO', activateHftMode: true })).to.equal(true);
    expect(valid({ type: 'FeatureSocketDTO', activateSocket: false })).to.equal(true);
    expect(valid({ type: 'FeatureSocketDTO', enabled: false })).to.equal(false);
    expect(valid({ type: 'FeatureHftModeDTO', pollingMs: 10 })).to.equal(false);
  });

  it('each says in its description that it changes no behaviour, and attaches to an account only', () => {
    for (const type of ['FeatureHftModeDTO', 'FeatureSocketDTO', 'FeatureDedicatedIpDTO', 'FeatureDedicatedIpPoolDTO', 'FeatureMyHomeIpDTO']) {
      const definition = featureDefinition(type)!;
      expect(definition.description, type).to.match(/configuration only/);
      expect(definition.description, type).to.match(/changes? no behaviour/);
      expect(definition.scopes, type).to.deep.equal(['account']);
    }
  });
});
