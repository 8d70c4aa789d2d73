// The rules of domain/signal: a provider's member checks and what a PUT may change (provider.ts), who
// may follow and from which broker, the follower's overrides and the copier settings it runs with
// (follower.ts), the logo's size read from the image (logo.ts), and the feature events read as signal
// events (events.ts).
import { expect } from 'chai';
import { defaultCopierSettings } from '../../domain/copier/settings.js';
import type { FeatureEvent } from '../../domain/feature/events.js';
import { signalEventOf } from '../../domain/signal/events.js';
import { copierSettingsOf, followerCopierSettings, forbiddenOverrides, overridableFields, signalFollowerDefaults } from '../../domain/signal/follower.js';
import { logoProblem, MAX_LOGO_BYTES } from '../../domain/signal/logo.js';
import {
  brokerAllowed,
  followableBy,
  providerChangeProblem,
  signalProviderDefaults,
  signalProviderProblem,
  type SignalProviderSettings,
} from '../../domain/signal/provider.js';

const providerSettings = (members: Partial<SignalProviderSettings> = {}): SignalProviderSettings =>
  ({ ...signalProviderDefaults, name: 'Alpha', copier: {}, ...members }) as SignalProviderSettings;

const follower = (members: Partial<typeof signalFollowerDefaults> = {}) => ({
  active: true,
  monitorOnly: false,
  suspended: false,
  disableMinVolumeSafetySkip: false,
  copier: {},
  ...members,
});

/** A PNG's signature and IHDR chunk for a width and height, padded to `bytes`. */
const png = (width: number, height: number, bytes = 33): string => {
  const head = Buffer.alloc(bytes);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(head, 0);
  head.writeUInt32BE(13, 8);
  head.write('IHDR', 12, 'latin1');
  head.writeUInt32BE(width, 16);
  head.writeUInt32BE(height, 20);
  return head.toString('base64');
};

/** A JPEG's start of image, an APP0 segment, then a baseline start-of-frame with a height and width. */
const jpeg = (width: number, height: number): string => {
  const app0 = [0xff, 0xe0, 0x00, 0x04, 0x00, 0x00];
  const sof = [0xff, 0xc0, 0x00, 0x0b, 0x08, height >> 8, height & 0xff, width >> 8, width & 0xff, 0x01, 0x01, 0x11, 0x00];
  return Buffer.from([0xff, 0xd8, ...app0, ...sof]).toString('base64');
};

describe('domain/signal', () => {
  describe('a provider’s members (signalProviderProblem)', () => {
    it('accepts the defaults, a square PNG or JPEG logo and regular expressions as brokers', () => {
      expect(signalProviderProblem(providerSettings())).to.equal(null);
      expect(signalProviderProblem(providerSettings({ logo: png(64, 64), allowedBrokers: ['ICMarkets-.*', 'Sim-Demo'] }))).to.equal(null);
      expect(signalProviderProblem(providerSettings({ logo: `data:image/jpeg;base64,${jpeg(300, 300)}` }))).to.equal(null);
    });

    it('refuses a detailedDescription above 20,000 characters, a logo that is not square, too large or no image, and a broker that is no regular expression', () => {
      expect(signalProviderProblem(providerSettings({ detailedDescription: 'x'.repeat(20_000) }))).to.equal(null);
      expect(signalProviderProblem(providerSettings({ detailedDescription: 'x'.repeat(20_001) }))).to.match(/at most 20000/);
      expect(signalProviderProblem(providerSettings({ logo: png(64, 32) }))).to.match(/square.*64x32/);
      expect(signalProviderProblem(providerSettings({ logo: jpeg(10, 20) }))).to.match(/square.*JPEG is 10x20/);
      expect(signalProviderProblem(providerSettings({ logo: png(0, 0) }))).to.match(/0x0/);
      expect(signalProviderProblem(providerSettings({ logo: png(64, 64, MAX_LOGO_BYTES + 1) }))).to.match(/at most 262144/);
      expect(signalProviderProblem(providerSettings({ logo: Buffer.from('GIF89a....').toString('base64') }))).to.match(/not a PNG or JPEG/);
      expect(signalProviderProblem(providerSettings({ logo: 'not base64!' }))).to.match(/not Base64/);
      expect(signalProviderProblem(providerSettings({ allowedBrokers: ['(unclosed'] }))).to.match(/no regular expression/);
    });

    it('a logo of exactly 256 KB is accepted', () => {
      expect(logoProblem(png(16, 16, MAX_LOGO_BYTES))).to.equal(null);
    });
  });

  describe('what a PUT may change (providerChangeProblem)', () => {
    const before = providerSettings({ monthlySubscriptionFee: 50, profitSharingFee: 20 });

    it('lets fees go down or stay, and other members change', () => {
      expect(providerChangeProblem(before, { ...before, monthlySubscriptionFee: 10, profitSharingFee: 0, name: 'Beta' })).to.equal(null);
      expect(providerChangeProblem(before, before)).to.equal(null);
    });

    it('refuses a fee going up: [SIGNAL_FEE_RAISE_NOT_ALLOWED]', () => {
      expect(providerChangeProblem(before, { ...before, monthlySubscriptionFee: 50.01 })?.code).to.equal('[SIGNAL_FEE_RAISE_NOT_ALLOWED]');
      expect(providerChangeProblem(before, { ...before, profitSharingFee: 21 })?.message).to.match(/profitSharingFee may only be lowered/);
    });

    it('refuses every creation-only member changing: [SIGNAL_PROVIDER_MEMBER_IMMUTABLE]', () => {
      const changes: Partial<SignalProviderSettings>[] = [
        { isPublic: true },
        { allowOverrideCopierSetting: true },
        { allowReselling: true },
        { billingModel: 'HIGH_WATERMARK' },
        { coverFollowerCosts: true },
      ];
      for (const change of changes) {
        expect(providerChangeProblem(before, { ...before, ...change })?.code, JSON.stringify(change)).to.equal('[SIGNAL_PROVIDER_MEMBER_IMMUTABLE]');
      }
    });
  });

  describe('who may follow (followableBy, brokerAllowed)', () => {
    it('a public or marketplace provider by anyone; a private one by the owners it lists, case and spaces aside', () => {
      expect(followableBy(providerSettings({ isPublic: true }), null)).to.equal(true);
      expect(followableBy(providerSettings({ makeVisibleInMarketplace: true }), null)).to.equal(true);
      const listed = providerSettings({ allowCustomers: [' Ann@Example.com '] });
      expect(followableBy(listed, 'ann@example.com')).to.equal(true);
      expect(followableBy(listed, 'bob@example.com')).to.equal(false);
      expect(followableBy(listed, null)).to.equal(false);
    });

    it('allowedBrokers match the whole loginServer; empty allows every broker', () => {
      expect(brokerAllowed({ allowedBrokers: [] }, 'anything')).to.equal(true);
      expect(brokerAllowed({ allowedBrokers: ['ICMarkets-.*'] }, 'ICMarkets-Live03')).to.equal(true);
      expect(brokerAllowed({ allowedBrokers: ['ICMarkets-.*'] }, 'Other-ICMarkets-Live')).to.equal(false);
      expect(brokerAllowed({ allowedBrokers: ['Live', 'Sim-Demo'] }, 'Sim-Demo')).to.equal(true);
      expect(brokerAllowed({ allowedBrokers: ['Live'] }, 'Live2')).to.equal(false);
    });
  });

  describe('a follower’s overrides (overridableFields, forbiddenOverrides)', () => {
    it('none without allowOverrideCopierSetting; all when the list is empty or null; else the ones listed', () => {
      expect([...(overridableFields({ allowOverrideCopierSetting: false, allowedOverrideFields: ['multiplier'] }) as Set<string>)]).to.deep.equal([]);
      expect(overridableFields({ allowOverrideCopierSetting: true, allowedOverrideFields: [] })).to.equal('ALL');
      expect(overridableFields({ allowOverrideCopierSetting: true, allowedOverrideFields: null })).to.equal('ALL');
      expect([...(overridableFields({ allowOverrideCopierSetting: true, allowedOverrideFields: ['multiplier'] }) as Set<string>)]).to.deep.equal([
        'multiplier',
      ]);
    });

    it('names the members set outside the list; the provider’s own value, active, monitorOnly and reference members are no override', () => {
      const p = { allowOverrideCopierSetting: true, allowedOverrideFields: ['multiplier'], copier: { maxLotSize: 5 } };
      expect(forbiddenOverrides(p, { multiplier: 3, maxLotSize: 10 })).to.deep.equal(['maxLotSize']);
      expect(forbiddenOverrides(p, { multiplier: 3, maxLotSize: 5, active: false, monitorOnly: true, id: 'x', fromAccountId: 'y' })).to.deep.equal([]);
      expect(forbiddenOverrides({ ...p, allowOverrideCopierSetting: false }, { multiplier: 3 })).to.deep.equal(['multiplier']);
      expect(forbiddenOverrides({ ...p, allowedOverrideFields: [] }, { multiplier: 3, maxLotSize: 10 })).to.deep.equal([]);
    });
  });

  describe('the follower’s copier settings (followerCopierSettings)', () => {
    const p = { allowOverrideCopierSetting: true, allowedOverrideFields: ['multiplier'], copier: { multiplier: 2, maxLotSize: 0.3, scaleType: { id: 4 } } };

    it('the copier defaults under the provider’s copier under the follower’s allowed overrides', () => {
      const settings = followerCopierSettings(p, follower({ copier: { multiplier: 3, maxLotSize: 9 } }));
      expect(settings).to.deep.include({ multiplier: 3, maxLotSize: 0.3, active: true, monitorOnly: false });
      expect(settings.copyOpenPositions).to.equal(defaultCopierSettings.copyOpenPositions);
    });

    it('active only while the follower is active and not suspended; monitorOnly from either side', () => {
      expect(followerCopierSettings(p, follower({ suspended: true })).active).to.equal(false);
      expect(followerCopierSettings(p, follower({ active: false })).active).to.equal(false);
      expect(followerCopierSettings(p, follower({ monitorOnly: true })).monitorOnly).to.equal(true);
      expect(followerCopierSettings({ ...p, copier: { ...p.copier, monitorOnly: true } }, follower()).monitorOnly).to.equal(true);
    });

    it('disableMinVolumeSafetySkip turns the check off whatever the provider’s copier says', () => {
      const strict = { ...p, copier: { minVolumeSafetySkipThresholdMultiplier: 3 } };
      expect(followerCopierSettings(strict, follower()).minVolumeSafetySkipThresholdMultiplier).to.equal(3);
      expect(followerCopierSettings(strict, follower({ disableMinVolumeSafetySkip: true })).minVolumeSafetySkipThresholdMultiplier).to.equal(0);
    });

    it('reads scaleType as {id}; an unknown id or member is ignored', () => {
      expect(copierSettingsOf({ scaleType: { id: 999 }, colour: 'blue' })).to.deep.equal(defaultCopierSettings);
    });
  });

  describe('feature events as signal events (signalEventOf)', () => {
    const scope = { kind: 'account', accountId: 'acc' } as const;
    const at = '2026-01-07T10:00:00.000Z';

    it('a provider’s and a follower’s add and update; any removal; other features and scopes are no signal event', () => {
      const added = {
        type: 'FeatureAdded',
        data: { featureId: 'p', scope, projectId: 'A', setting: { type: 'FeatureSignalProviderDTO', name: 'Alpha' }, at },
      } as unknown as FeatureEvent;
      expect(signalEventOf(added)).to.deep.equal({
        kind: 'ProviderCreated',
        providerId: 'p',
        projectId: 'A',
        accountId: 'acc',
        settings: { name: 'Alpha' },
        at,
      });
      const updated = {
        type: 'FeatureUpdated',
        data: { featureId: 'f', scope, setting: { type: 'FeatureSignalFollowerDTO', signalProviderId: 'p' }, at },
      } as unknown as FeatureEvent;
      expect(signalEventOf(updated)).to.deep.equal({
        kind: 'FollowerUpdated',
        followerId: 'f',
        projectId: null,
        accountId: 'acc',
        settings: { signalProviderId: 'p' },
        at,
      });
      expect(signalEventOf({ type: 'FeatureRemoved', data: { featureId: 'f', scope, at } } as unknown as FeatureEvent)).to.deep.equal({
        kind: 'Removed',
        featureId: 'f',
        accountId: 'acc',
        at,
      });
      const other = {
        type: 'FeatureAdded',
        data: { featureId: 'x', scope, projectId: 'A', setting: { type: 'FeatureMaxLotSizeDTO' }, at },
      } as unknown as FeatureEvent;
      expect(signalEventOf(other)).to.equal(null);
      const project = {
        type: 'FeatureRemoved',
        data: { featureId: 'x', scope: { kind: 'project', projectId: 'A' }, at },
      } as unknown as FeatureEvent;
      expect(signalEventOf(project)).to.equal(null);
    });
  });
});
