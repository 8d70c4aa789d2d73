// FeatureWebhookDTO's rules between members (domain/webhook/feature.ts) and its write-only secrets
// (domain/webhook/secrets.ts).
import { expect } from 'chai';
import type { FeatureSetting } from '../../../domain/feature/events.js';
import { WEBHOOK_DEFAULTS, webhookFeature, type WebhookSettings } from '../../../domain/webhook/feature.js';
import { maskWebhookSecrets, SECRET_MASK, sealedAuthenticationOf, sealWebhookSecrets } from '../../../domain/webhook/secrets.js';

const settings = (over: Partial<WebhookSettings> = {}): WebhookSettings => ({
  ...WEBHOOK_DEFAULTS,
  url: 'https://hooks.example.com/in',
  events: ['POSITION_OPENED'],
  authentication: { type: 'HMAC_SHA256', secret: 'whsec_0123456789abcdef' },
  ...over,
});
// A reversible stand-in for the credential cipher.
const sealer = { seal: (p: string) => `sealed:${p}`, unseal: (s: string) => s.replace(/^sealed:/, '') };
const hmac = (secret?: string): FeatureSetting => ({
  type: 'FeatureWebhookDTO',
  ...settings(),
  authentication: { type: 'HMAC_SHA256', ...(secret === undefined ? {} : { secret }) },
});

describe('FeatureWebhookDTO rules', () => {
  it('accepts the defaults with a URL, events and a long enough secret', () => {
    expect(webhookFeature.check!(settings())).to.equal(null);
  });

  it('refuses maxBackoffSeconds below initialBackoffSeconds, a short HMAC secret and a bearer token with other characters', () => {
    expect(webhookFeature.check!(settings({ initialBackoffSeconds: 60, maxBackoffSeconds: 30 }))).to.match(
      /maxBackoffSeconds 30 is below initialBackoffSeconds 60/,
    );
    expect(webhookFeature.check!(settings({ authentication: { type: 'HMAC_SHA256', secret: 'short' } }))).to.match(/at least 16 characters/);
    expect(webhookFeature.check!(settings({ authentication: { type: 'BEARER', token: 'has space' } }))).to.match(/token may hold only/);
    expect(webhookFeature.check!(settings({ authentication: { type: 'BEARER', token: 'abc.DEF-123_~+/==' } }))).to.equal(null);
  });

  it('lets a PUT leave the secret out or send the mask (kept from the stored setting)', () => {
    expect(webhookFeature.check!(settings({ authentication: { type: 'HMAC_SHA256' } }))).to.equal(null);
    expect(webhookFeature.check!(settings({ authentication: { type: 'HMAC_SHA256', secret: SECRET_MASK } }))).to.equal(null);
  });

  it('refuses custom headers the service sets or that frame the request, in any case, and a name given twice', () => {
    for (const name of [
      'Host',
      'content-length',
      'Transfer-Encoding',
      'Connection',
      'Content-Type',
      'User-Agent',
      'X-Webhook-Signature',
      'x-webhook-id',
      'X-Webhook-Anything',
    ]) {
      expect(webhookFeature.check!(settings({ headers: { [name]: 'x' } })), name).to.match(/cannot be replaced/);
    }
    expect(webhookFeature.check!(settings({ headers: { Authorization: 'Basic abc' }, authentication: { type: 'BEARER', token: 'tok' } }))).to.match(
      /Authorization/,
    );
    expect(webhookFeature.check!(settings({ headers: { Authorization: 'Basic abc' }, authentication: { type: 'NONE' } }))).to.equal(null);
    expect(webhookFeature.check!(settings({ headers: { 'X-Tenant': 'a', 'x-tenant': 'b' } }))).to.match(/appears twice/);
  });
});

describe('webhook secrets', () => {
  it('seals a secret sent in clear and answers it masked', () => {
    const stored = sealWebhookSecrets(hmac('whsec_0123456789abcdef'), null, sealer);
    expect(stored).to.deep.include({ ok: true });
    const setting = (stored as { setting: FeatureSetting }).setting;
    expect(setting.authentication).to.deep.equal({ type: 'HMAC_SHA256', secret: 'sealed:whsec_0123456789abcdef' });
    expect(maskWebhookSecrets(setting).authentication).to.deep.equal({ type: 'HMAC_SHA256', secret: SECRET_MASK });
    expect(sealedAuthenticationOf(setting)).to.deep.equal({ type: 'HMAC_SHA256', sealed: 'sealed:whsec_0123456789abcdef' });
  });

  it('keeps the stored secret when a PUT leaves it out, sends the mask, or sends the same one again (same ciphertext: no change recorded)', () => {
    const previous = hmac('sealed:whsec_0123456789abcdef');
    for (const sent of [hmac(), hmac(SECRET_MASK), hmac('whsec_0123456789abcdef')]) {
      expect(sealWebhookSecrets(sent, previous, sealer)).to.deep.equal({
        ok: true,
        setting: { ...sent, authentication: { type: 'HMAC_SHA256', secret: 'sealed:whsec_0123456789abcdef' } },
      });
    }
    const changed = sealWebhookSecrets(hmac('whsec_a_new_secret_9876'), previous, sealer) as { setting: FeatureSetting };
    expect(changed.setting.authentication).to.deep.equal({ type: 'HMAC_SHA256', secret: 'sealed:whsec_a_new_secret_9876' });
  });

  it('requires the secret when nothing of that type is stored: on add, or when switching from BEARER to HMAC', () => {
    expect(sealWebhookSecrets(hmac(), null, sealer)).to.deep.equal({ ok: false, problem: 'authentication.secret is required for HMAC_SHA256' });
    const bearer: FeatureSetting = { ...hmac(), authentication: { type: 'BEARER', token: 'sealed:tok' } };
    expect(sealWebhookSecrets(hmac(SECRET_MASK), bearer, sealer)).to.deep.include({ ok: false });
  });

  it('masks a bearer token and leaves NONE alone', () => {
    const bearer: FeatureSetting = { ...hmac(), authentication: { type: 'BEARER', token: 'sealed:tok' } };
    expect(maskWebhookSecrets(bearer).authentication).to.deep.equal({ type: 'BEARER', token: SECRET_MASK });
    const open: FeatureSetting = { ...hmac(), authentication: { type: 'NONE' } };
    expect(maskWebhookSecrets(open)).to.equal(open);
    expect(sealWebhookSecrets(open, null, sealer)).to.deep.equal({ ok: true, setting: open });
    expect(sealedAuthenticationOf(open)).to.equal(null);
  });
});
