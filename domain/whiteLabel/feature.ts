// FeatureWhiteLabelDTO (a project feature): the brand a white-label operator runs the service under, and
// the platform controls that apply to the brand's customers. The reference (OpenAPI 1.2.5) gives the
// brand (name, logo, subdomain, layout, theme), the daily prices, the allowed account types, the Stripe key
// and the cTrader OAuth pair; the spec 1.2.6 adds the registration and platform controls, manual
// collection, native crypto payments and two more OAuth pairs (spec "Feature DTOs").
//
// Rules beyond the schema (whiteLabelFeature.check): `manualCollectionPaymentInstructions` is required
// when `sendManualCollectionEmail` is true; `authPageBackground` is a hex colour; a subdomain is a host
// name of at least three labels (a root domain such as brand.com is refused); `cryptoNativeEnabled`
// needs a `cryptoWallet` address. The secrets (`stripeApiKey` and the three OAuth client secrets) are
// sealed and masked like a webhook's (domain/feature/secretMembers.ts). `cryptoEnabledCoins` and
// `cryptoNativeReady` are read-only: values sent are replaced by the service's (no native crypto
// processor runs here, so they answer [] and false).
//
// The OAuth pairs: platform type 4 (`ctraderClientId`/`ctraderClientSecret`, the reference's names), 12
// and 13 (`accountType12ClientId`/..., ours: neither document names them). A type of the three is allowed
// to the brand's customers only when both members of its pair are set; `allowedAccountTypeIds` (ours,
// read-only) answers the resulting list.
import { type Static, Type } from '@sinclair/typebox';
import { accountTypes, regions } from '../account/enums.js';
import type { FeatureDefinition } from '../feature/definition.js';
import type { FeatureSetting } from '../feature/events.js';
import { maskSecretMembers, type SealResult, sealSecretMembers } from '../feature/secretMembers.js';
import type { Sealer } from '../webhook/secrets.js';

export const WHITE_LABEL = 'FeatureWhiteLabelDTO';

/** The OAuth client pairs by platform type (spec: ids 4, 12 and 13). */
export const OAUTH_PAIRS: readonly { readonly accountTypeId: number; readonly clientId: string; readonly clientSecret: string }[] = [
  { accountTypeId: 4, clientId: 'ctraderClientId', clientSecret: 'ctraderClientSecret' },
  { accountTypeId: 12, clientId: 'accountType12ClientId', clientSecret: 'accountType12ClientSecret' },
  { accountTypeId: 13, clientId: 'accountType13ClientId', clientSecret: 'accountType13ClientSecret' },
];

export const WHITE_LABEL_SECRETS: readonly string[] = ['stripeApiKey', ...OAUTH_PAIRS.map((p) => p.clientSecret)];

const HEX_COLOUR = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** A host name of at least three labels: trade.brand.com, never brand.com. */
export const subdomainProblem = (subdomain: string): string | null => {
  const labels = subdomain.toLowerCase().split('.');
  if (!labels.every((l) => LABEL.test(l))) return `subdomain: "${subdomain}" is no host name`;
  if (labels.length < 3) return `subdomain: "${subdomain}" is a root domain; use a subdomain of it, such as trade.${subdomain}`;
  if (/^\d+$/.test(labels[labels.length - 1]!)) return `subdomain: "${subdomain}" is no host name`;
  return null;
};

const Link = (what: string) => Type.String({ maxLength: 2048, description: `${what}: an http(s) URL; "" = none` });
const Price = (what: string, maximum: number, example: number) =>
  Type.Number({ minimum: 0, maximum, description: `${what} (USD, 0 to ${maximum}); e.g. ${example}. Decimal, kept as sent` });
const Switch = (what: string) => Type.Boolean({ description: what });
const typeWords = accountTypes.map((t) => `${t.id} ${t.name}`).join(', ');
const regionWords = regions.map((r) => `${r.id} ${r.name}`).join(', ');
const Secret = (what: string) =>
  Type.Union([Type.String({ maxLength: 512 }), Type.Null()], {
    description: `${what}; write-only: stored encrypted, answered as "********" ("" when none); on PUT, left out or "********" keeps the stored one, "" or null removes it`,
  });
const ClientId = (type: number) => Type.String({ maxLength: 256, description: `the OAuth client id for platform type ${type}; "" = none` });

const oauthMembers = {
  ctraderClientId: Type.Optional(ClientId(4)),
  ctraderClientSecret: Type.Optional(Secret('the OAuth client secret for platform type 4')),
  accountType12ClientId: Type.Optional(ClientId(12)),
  accountType12ClientSecret: Type.Optional(Secret('the OAuth client secret for platform type 12')),
  accountType13ClientId: Type.Optional(ClientId(13)),
  accountType13ClientSecret: Type.Optional(Secret('the OAuth client secret for platform type 13')),
};

const members = Type.Object({
  // The reference's members.
  name: Type.String({ minLength: 1, maxLength: 20, description: 'customer-facing brand or business name, the sender name of its e-mails; required' }),
  logo: Type.String({
    minLength: 1,
    maxLength: 2048,
    description: 'a publicly reachable URL (PNG, SVG, ...) of the logo in e-mails and the console; required',
  }),
  subdomain: Type.String({
    minLength: 1,
    maxLength: 30,
    description:
      'the host name customers reach the brand at, such as trade.yourbrand.com; required. Root domains (yourbrand.com) are refused. GET /projects/{projectId}/whitelabel/dns checks its DNS records',
  }),
  stripeApiKey: Secret(
    'the Stripe secret key for card payments (sk_live_...); required by the reference, "" or null = none (no card processor runs on this service: invoices are collected manually)',
  ),
  layout: Type.String({ maxLength: 64, description: 'the layout of the brand\'s console; free text, stored (default "")' }),
  theme: Type.String({ maxLength: 64, description: 'the theme of the brand\'s console; free text, stored (default "")' }),
  accountPriceDedicated: Price('price per day for an account in a dedicated project', 5, 0.32),
  accountPriceDedicatedMin: Price('minimum daily price for an account in a dedicated project after volume discount', 5, 0.22),
  accountPriceShared: Price('price per day for an account in a shared project', 5, 0.27),
  featurePrice: Price('price per day for a PRO feature', 1, 0.1),
  accountTypes: Type.Array(Type.Object({ id: Type.Integer({ description: `the platform type: ${typeWords}` }), name: Type.Optional(Type.String()) }), {
    maxItems: accountTypes.length,
    description: 'the account types the brand allows (AccountTypeDTO, send {"id": n}); empty (default) = all. Answered with names',
  }),
  ...oauthMembers,
  // The spec's registration and platform controls.
  restrictRegistration: Switch('true: only e-mails of allowedEmailDomains or allowedRegistrationEmails may register (default false)'),
  allowedEmailDomains: Type.String({
    maxLength: 4096,
    description: 'comma-separated e-mail domains allowed to register; enforced only when restrictRegistration is true',
  }),
  allowedRegistrationEmails: Type.String({
    maxLength: 8192,
    description: 'comma-separated e-mail addresses allowed to register; enforced only when restrictRegistration is true',
  }),
  registrationLink: Link('where the brand sends new customers to register'),
  homeLink: Link("the brand's home page"),
  supportLink: Link("the brand's support page"),
  authPageBackground: Type.String({ maxLength: 7, description: 'the sign-in page background, a hex colour (#RGB or #RRGGBB); "" = the default' }),
  customCss: Type.String({
    maxLength: 100_000,
    description: "CSS served to the brand's console pages only, under a Content-Security-Policy; never evaluated by the server",
  }),
  customJavascript: Type.String({
    maxLength: 100_000,
    description: "JavaScript served to the brand's console pages only, under a Content-Security-Policy; never evaluated by the server",
  }),
  signalProviderAlias: Type.String({ maxLength: 64, description: 'the word the brand uses for a signal provider ("" = the default)' }),
  disableMarketplaceSubscription: Switch('customers cannot subscribe from the marketplace'),
  hideCurrentBalanceInSignalProvider: Switch("signal providers' current balance is not shown"),
  hideBrokerInSignalProvider: Switch("signal providers' broker is not shown"),
  showScoreOnMarketplace: Switch('the marketplace shows the score'),
  publicMarketplace: Switch('the marketplace is public (default true)'),
  disableAddingCopiers: Switch('customers cannot add copiers'),
  disableDedicatedIpPurchase: Switch('customers cannot buy dedicated IP addresses'),
  disableDedicatedProjects: Switch('customers cannot create dedicated projects'),
  disableInvoicing: Switch('no invoices are issued to the customers'),
  maxAccountsPerProject: Type.Integer({ minimum: 0, maximum: 100_000, description: "accounts per customer project; 0 (default) = the platform's default" }),
  maxProjectsPerUser: Type.Integer({ minimum: 0, maximum: 10_000, description: "projects per customer; 0 (default) = the platform's default" }),
  allowedRegions: Type.Array(Type.Object({ id: Type.Integer({ description: `the region: ${regionWords}` }), name: Type.Optional(Type.String()) }), {
    maxItems: regions.length,
    description: 'the regions customers may use (RegionDTO, send {"id": n}); empty (default) = all. Answered with names',
  }),
  enableMessagingSignals: Switch("customers may use the messaging connector's chat signals"),
  enableChartingWebhook: Switch('customers may use the charting webhook'),
  manualCollection: Switch('invoices are collected manually (bank transfer and the like) instead of by card'),
  sendManualCollectionEmail: Switch('an e-mail with manualCollectionPaymentInstructions goes out with each manual-collection invoice'),
  manualCollectionPaymentInstructions: Type.String({
    maxLength: 4000,
    description: 'how to pay a manual-collection invoice; required when sendManualCollectionEmail is true',
  }),
  cryptoNativeEnabled: Switch('native crypto payments; needs cryptoWallet'),
  cryptoWallet: Type.Union(
    [
      Type.Object(
        {
          network: Type.String({ minLength: 1, maxLength: 32, description: 'the chain the wallet is on, such as ETH or TRON' }),
          address: Type.String({ minLength: 1, maxLength: 128, description: "the wallet's receiving address" }),
        },
        { additionalProperties: false },
      ),
      Type.Null(),
    ],
    { description: 'CryptoWalletConfigDTO (ours: neither document gives its members): where native crypto payments go; null (default) = none' },
  ),
  cryptoEnabledCoins: Type.Array(Type.String(), {
    readOnly: true,
    description: 'read-only: the coins native crypto payments accept ([]: no crypto processor runs on this service)',
  }),
  cryptoNativeReady: Type.Boolean({
    readOnly: true,
    description: 'read-only: native crypto payments are ready (false: no crypto processor runs on this service)',
  }),
  allowedAccountTypeIds: Type.Array(Type.Integer(), {
    readOnly: true,
    description:
      'read-only (ours): the platform types the brand allows: accountTypes (all when empty) less the OAuth types 4, 12 and 13 whose client id and secret are not both set',
  }),
});
export type WhiteLabelSettings = Static<typeof members>;

const allowedAccountTypeIdsOf = (s: Record<string, unknown>): number[] => {
  const chosen =
    Array.isArray(s.accountTypes) && s.accountTypes.length > 0 ? (s.accountTypes as { id: number }[]).map((t) => t.id) : accountTypes.map((t) => t.id);
  const pairSet = (p: (typeof OAUTH_PAIRS)[number]) =>
    typeof s[p.clientId] === 'string' && s[p.clientId] !== '' && typeof s[p.clientSecret] === 'string' && s[p.clientSecret] !== '';
  return chosen.filter((id) => {
    const pair = OAUTH_PAIRS.find((p) => p.accountTypeId === id);
    return !pair || pairSet(pair);
  });
};

const httpUrlProblem = (name: string, value: unknown): string | null => {
  if (typeof value !== 'string' || value === '') return null;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? null : `${name}: must be an http(s) URL`;
  } catch {
    return `${name}: "${value}" is no URL`;
  }
};

const check = (s: WhiteLabelSettings): string | null => {
  const subdomain = subdomainProblem(s.subdomain);
  if (subdomain) return subdomain;
  if (s.authPageBackground !== '' && !HEX_COLOUR.test(s.authPageBackground))
    return `authPageBackground: "${s.authPageBackground}" is no hex colour (#RGB or #RRGGBB)`;
  for (const name of ['logo', 'registrationLink', 'homeLink', 'supportLink'] as const) {
    const problem = httpUrlProblem(name, s[name]);
    if (problem) return problem;
  }
  if (s.sendManualCollectionEmail && s.manualCollectionPaymentInstructions.trim() === '') {
    return 'manualCollectionPaymentInstructions: required when sendManualCollectionEmail is true';
  }
  if (s.cryptoNativeEnabled && !s.cryptoWallet) return 'cryptoWallet: required when cryptoNativeEnabled is true';
  const lists: [string, number[], number[]][] = [
    ['accountTypes', s.accountTypes.map((t) => t.id), accountTypes.map((t) => t.id)],
    ['allowedRegions', s.allowedRegions.map((r) => r.id), regions.map((r) => r.id)],
  ];
  for (const [name, ids, known] of lists) {
    const unknown = ids.find((id) => !known.includes(id));
    if (unknown !== undefined) return `${name}: ${unknown} is unknown`;
    if (new Set(ids).size !== ids.length) return `${name}: an entry is named twice`;
  }
  if (s.accountPriceDedicatedMin > s.accountPriceDedicated && s.accountPriceDedicated > 0) {
    return 'accountPriceDedicatedMin: above accountPriceDedicated';
  }
  return null;
};

export const whiteLabelFeature: FeatureDefinition<WhiteLabelSettings> = {
  type: WHITE_LABEL,
  scopes: ['project'],
  multiple: false,
  members,
  defaults: {
    layout: '',
    theme: '',
    accountPriceDedicated: 0,
    accountPriceDedicatedMin: 0,
    accountPriceShared: 0,
    featurePrice: 0,
    accountTypes: [],
    ctraderClientId: '',
    accountType12ClientId: '',
    accountType13ClientId: '',
    restrictRegistration: false,
    allowedEmailDomains: '',
    allowedRegistrationEmails: '',
    registrationLink: '',
    homeLink: '',
    supportLink: '',
    authPageBackground: '',
    customCss: '',
    customJavascript: '',
    signalProviderAlias: '',
    disableMarketplaceSubscription: false,
    hideCurrentBalanceInSignalProvider: false,
    hideBrokerInSignalProvider: false,
    showScoreOnMarketplace: false,
    publicMarketplace: true,
    disableAddingCopiers: false,
    disableDedicatedIpPurchase: false,
    disableDedicatedProjects: false,
    disableInvoicing: false,
    maxAccountsPerProject: 0,
    maxProjectsPerUser: 0,
    allowedRegions: [],
    enableMessagingSignals: false,
    enableChartingWebhook: false,
    manualCollection: false,
    sendManualCollectionEmail: false,
    manualCollectionPaymentInstructions: '',
    cryptoNativeEnabled: false,
    cryptoWallet: null,
    cryptoEnabledCoins: [],
    cryptoNativeReady: false,
    allowedAccountTypeIds: [],
  },
  stateMembers: ['cryptoEnabledCoins', 'cryptoNativeReady', 'allowedAccountTypeIds'],
  check,
  description:
    "The brand of a white-label operator (scope project: the operator's project), and the platform controls for its customers. name, logo, subdomain and stripeApiKey are required (the reference); stripeApiKey may be \"\" (no card processor runs here; invoices are collected manually). Rules: a subdomain has at least three labels (trade.brand.com; a root domain is refused); authPageBackground is a hex colour; links are http(s) URLs; manualCollectionPaymentInstructions is required when sendManualCollectionEmail is true; cryptoNativeEnabled needs cryptoWallet; accountPriceDedicatedMin is at most accountPriceDedicated. The secrets (stripeApiKey, ctraderClientSecret, accountType12ClientSecret, accountType13ClientSecret) are stored encrypted and answered as \"********\". OAuth pairs: platform type 4 (ctraderClientId and ctraderClientSecret), 12 and 13 (accountType12ClientId/Secret, accountType13ClientId/Secret, our names): such a type is allowed to the brand's customers only when both members of its pair are set; allowedAccountTypeIds (read-only, ours) answers the types allowed then (accountTypes, or all when empty, less the OAuth types without their pair). cryptoEnabledCoins and cryptoNativeReady are read-only ([] and false here). Applied to the brand's customers (POST /whitelabel/{subdomain}/customers/code and /session, POST /customer/projects, account creation in a customer's project): restrictRegistration, allowedEmailDomains, allowedRegistrationEmails, maxProjectsPerUser (0 = 10), maxAccountsPerProject (0 = 100), allowedRegions, the allowed account types, disableDedicatedIpPurchase (at account creation), disableDedicatedProjects (customer projects are never dedicated); manualCollectionPaymentInstructions and sendManualCollectionEmail go with each invoice of a customer; showScoreOnMarketplace and publicMarketplace apply to GET /marketplace for the brand's project and its customers' projects. Stored only (nothing reads them yet): registrationLink, the prices, the other marketplace and signal-provider display controls, disableAddingCopiers, disableInvoicing, enableMessagingSignals, enableChartingWebhook, layout and theme. customCss and customJavascript are served as they are, never evaluated by the server, only on the brand's own console page (/console on the host named by subdomain, the customer sign-in page) as /console/brand/custom.css and /console/brand/custom.js of that host (404 on any other host), under a Content-Security-Policy that allows same-origin script and style files and no inline script or style (the console's import map excepted, by its hash). GET /projects/{projectId}/whitelabel/dns checks the subdomain's DNS records.",
};

/** The setting as answered: secrets masked, account types and regions with their names, the allowed types. */
export const presentWhiteLabel = (setting: FeatureSetting): FeatureSetting => {
  const masked = maskSecretMembers(setting, WHITE_LABEL_SECRETS) as Record<string, unknown>;
  for (const name of WHITE_LABEL_SECRETS) if (typeof masked[name] !== 'string') masked[name] = '';
  const named = <T extends { id: number; name: string }>(value: unknown, list: readonly T[]) =>
    Array.isArray(value) ? (value as { id: number }[]).map(({ id }) => ({ id, name: list.find((t) => t.id === id)?.name ?? String(id) })) : value;
  return {
    ...masked,
    accountTypes: named(setting.accountTypes, accountTypes),
    allowedRegions: named(setting.allowedRegions, regions),
    allowedAccountTypeIds: allowedAccountTypeIdsOf(setting),
  } as unknown as FeatureSetting;
};

/** The setting to store: secrets sealed ("" or null = none), names dropped from the enumerations. */
export const sealWhiteLabel = (sent: FeatureSetting, previous: FeatureSetting | null, sealer: Sealer): SealResult => {
  const sealed = sealSecretMembers(sent, previous, WHITE_LABEL_SECRETS, sealer, [], false);
  if (!sealed.ok) return sealed;
  const ids = (value: unknown) => (Array.isArray(value) ? (value as { id: number }[]).map(({ id }) => ({ id })) : value);
  return {
    ok: true,
    setting: { ...sealed.setting, accountTypes: ids(sealed.setting.accountTypes), allowedRegions: ids(sealed.setting.allowedRegions) } as FeatureSetting,
  };
};
