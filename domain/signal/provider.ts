// FeatureSignalProviderDTO (spec "Feature DTOs": scope account; the reference's members and bounds,
// spec 1.2.6 over them): an account whose trades other projects may follow. Its feature id is the
// signalProviderId of every /signals/{signalProviderId} operation and of its followers'
// FeatureSignalFollowerDTO.
//
// Rules (checked by providerChangeProblem before a PUT is stored, and by the definition's check):
//   - isPublic, allowOverrideCopierSetting, allowReselling, billingModel and coverFollowerCosts are set
//     at creation only (the reference's "can ONLY be set during resource creation"): a PUT sending
//     another value is refused, 400 [SIGNAL_PROVIDER_MEMBER_IMMUTABLE].
//   - monthlySubscriptionFee and profitSharingFee may only be lowered after creation (spec 1.2.6 over the
//     reference's "creation only"): raising one is refused, 409 [SIGNAL_FEE_RAISE_NOT_ALLOWED] (raising
//     needs the operator; white-label brands, which could, arrive with issue 23).
//   - detailedDescription: at most 20,000 characters (spec 1.2.6; the reference says 10,000).
//   - logo: a square PNG or JPEG, Base64, at most 256 KB (logo.ts).
//   - verified, accessAllowed and subscribers are the service's (read-only): values sent are dropped.
//   - allowedOverrideFields: copier setting names (GET /types/copierSettings/availableFields) followers
//     may set in their own FeatureSignalFollowerDTO.copier; empty or null = every one of them when
//     allowOverrideCopierSetting is true; without allowOverrideCopierSetting followers override nothing.
import { type Static, Type } from '@sinclair/typebox';
import type { FeatureDefinition } from '../feature/definition.js';
import { logoProblem, MAX_LOGO_TEXT } from './logo.js';

export const SIGNAL_PROVIDER = 'FeatureSignalProviderDTO';

export const MAX_DETAILED_DESCRIPTION = 20000;

export const BILLING_MODELS = ['MONTHLY_PROFIT', 'HIGH_WATERMARK'] as const;

/** Members set at creation only. */
export const CREATION_ONLY_MEMBERS = ['isPublic', 'allowOverrideCopierSetting', 'allowReselling', 'billingModel', 'coverFollowerCosts'] as const;
/** Members that may only go down after creation. */
export const LOWER_ONLY_MEMBERS = ['monthlySubscriptionFee', 'profitSharingFee'] as const;

const text = (maxLength: number, description: string) => Type.String({ minLength: 0, maxLength, description });

export const ContactMembers = Type.Object(
  {
    discord: Type.Optional(text(100, 'Discord username or server invite')),
    email: Type.Optional(text(255, 'e-mail for inquiries and support')),
    telegram: Type.Optional(text(100, 'Telegram username')),
    website: Type.Optional(text(500, 'website or social media link')),
    whatsapp: Type.Optional(text(50, 'WhatsApp number with country code (+1234567890)')),
  },
  { additionalProperties: false, description: 'ContactDTO: how followers reach the provider; every member optional' },
);

const members = Type.Object({
  name: text(255, "the provider's display name (required)"),
  copier: Type.Object(
    {},
    {
      additionalProperties: true,
      description:
        "a CopierDTO (required): the copier settings every follower's copier starts from (fromAccountId is this account; id, toAccountId and the strategy members are not used). Checked as PUT /accounts/{accountId}/copiers/{copierId} checks its body; members left out take the copier's defaults",
    },
  ),
  description: text(400, 'a short summary of the strategy'),
  detailedDescription: text(MAX_DETAILED_DESCRIPTION, 'how the strategy works, up to 20,000 characters (spec 1.2.6)'),
  profileLink: text(500, 'a link to a performance profile (MyFXBook, FXBlue, ...)'),
  logo: Type.Union([Type.String({ maxLength: MAX_LOGO_TEXT }), Type.Null()], {
    description: 'a square PNG or JPEG, Base64 (a data:image/...;base64, prefix may precede it), at most 256 KB decoded; null = none',
  }),
  contact: ContactMembers,
  isPublic: Type.Boolean({ description: 'visible and followable by every project; set at creation only' }),
  makeVisibleInMarketplace: Type.Boolean({ description: 'listed in the marketplace (GET /marketplace) and followable by every project' }),
  makeHistoryPublic: Type.Boolean({ description: "followers and the marketplace may read the provider account's closed trades" }),
  allowCustomers: Type.Array(Type.String({ maxLength: 255 }), {
    maxItems: 1000,
    description: 'e-mail addresses that may follow a private signal: a project whose owner (ProjectDTO.owner) is listed may follow',
  }),
  allowOverrideCopierSetting: Type.Boolean({ description: 'followers may override the copier settings named in allowedOverrideFields; set at creation only' }),
  allowedOverrideFields: Type.Union([Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 100, uniqueItems: true }), Type.Null()], {
    description:
      'copier setting names (GET /types/copierSettings/availableFields) a follower may set in its FeatureSignalFollowerDTO.copier; empty or null = all of them when allowOverrideCopierSetting is true; ignored while it is false (followers override nothing)',
  }),
  allowReselling: Type.Boolean({
    description:
      'subscribers may resell the signal; set at creation only. Here reselling is a signal provider (FeatureSignalProviderDTO) on an account that follows this provider: with false, adding one on a following account, or subscribing a provider account, answers 409 [SIGNAL_RESELLING_NOT_ALLOWED]; with true both are allowed',
  }),
  allowedBrokers: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
    maxItems: 100,
    description: "regular expressions a follower account's loginServer must match (one of them, whole); empty = every broker",
  }),
  billingModel: Type.Union(
    BILLING_MODELS.map((m) => Type.Literal(m)),
    { description: 'MONTHLY_PROFIT (default) or HIGH_WATERMARK: how profitSharingFee is charged; set at creation only' },
  ),
  coverFollowerCosts: Type.Boolean({ description: "the provider's project pays its followers' account costs; set at creation only" }),
  maxCoveredAccountsPerProject: Type.Integer({
    minimum: 0,
    maximum: 2147483647,
    description: 'with coverFollowerCosts: the follower accounts of one project whose costs are covered at most; 0 = no limit (spec 1.2.6; bounds ours)',
  }),
  customerId: Type.Union([Type.String({ maxLength: 255 }), Type.Null()], {
    description:
      "(spec 1.2.6) the customer the provider bills through; stored as sent and never answered to other projects. Stored only: the provider's earnings and follower costs (GET /signals/{signalProviderId}/earnings, /followerCosts) are computed for the provider's project, and invoices go to the customer who owns that project (white-label customers); no payment flow here routes a provider's money to another customer",
  }),
  minimumBalance: Type.Integer({
    minimum: 0,
    maximum: 2147483647,
    description:
      "in the provider account's currency: a follower account's balance, read from its live session when it subscribes and converted from its currency at the mids of its venue's quotes as its copies' rate is (the pair of the two, FOLLOWERPROVIDER or the inverse of PROVIDERFOLLOWER, e.g. EURUSD; where neither is quoted, through USD: a GBP follower of an EUR provider at GBPUSD and EURUSD), must be at least this: 409 [SIGNAL_MINIMUM_BALANCE_NOT_MET] below it, 409 [SIGNAL_CURRENCY_NOT_CONVERTIBLE] when the currencies differ and the follower's venue quotes no such pair, 409 [ACCOUNT_NOT_CONNECTED] when the follower's or the provider's account has no live session (the balance or the provider's currency cannot be read); not checked again later; 0 = none",
  }),
  monthlySubscriptionFee: Type.Number({
    minimum: 0,
    maximum: 300,
    description: 'charged to each follower per month; may only be lowered after creation. Default 20',
  }),
  profitSharingFee: Type.Number({
    minimum: 0,
    maximum: 100,
    description: "percent of a follower's profit; may only be lowered after creation. Default 0",
  }),
  useMetaCopierAsPaymentProvider: Type.Boolean({
    description:
      "stored only: it chooses the reference operator's payment processing for the provider's fees; this self-hosted service charges no follower (earnings are computed, not collected) and has no payment provider to choose",
  }),
  verified: Type.Boolean({ readOnly: true, description: 'read-only: set by the operator (false until then); a value sent is dropped' }),
  accessAllowed: Type.Boolean({
    readOnly: true,
    description: 'read-only: whether the project reading it may follow the signal (its own provider: true); a value sent is dropped',
  }),
  subscribers: Type.Array(Type.String(), {
    readOnly: true,
    description:
      'read-only: the projects whose accounts follow the signal, answered to the provider only (customers are not modelled on this service); a value sent is dropped',
  }),
});

export type SignalProviderSettings = Static<typeof members>;

export const signalProviderDefaults: Partial<SignalProviderSettings> = {
  description: '',
  detailedDescription: '',
  profileLink: '',
  logo: null,
  contact: {},
  isPublic: false,
  makeVisibleInMarketplace: false,
  makeHistoryPublic: false,
  allowCustomers: [],
  allowOverrideCopierSetting: false,
  allowedOverrideFields: [],
  allowReselling: false,
  allowedBrokers: [],
  billingModel: 'MONTHLY_PROFIT',
  coverFollowerCosts: false,
  maxCoveredAccountsPerProject: 0,
  customerId: null,
  minimumBalance: 0,
  monthlySubscriptionFee: 20,
  profitSharingFee: 0,
  useMetaCopierAsPaymentProvider: false,
  verified: false,
  accessAllowed: false,
  subscribers: [],
};

const brokerPatternProblem = (pattern: string): string | null => {
  try {
    new RegExp(`^(?:${pattern})$`);
    return null;
  } catch {
    return `allowedBrokers: "${pattern}" is no regular expression`;
  }
};

/** Rules between members the schema cannot say. */
export const signalProviderProblem = (s: SignalProviderSettings): string | null => {
  if (s.detailedDescription.length > MAX_DETAILED_DESCRIPTION) return `detailedDescription: at most ${MAX_DETAILED_DESCRIPTION} characters`;
  if (s.logo !== null && s.logo !== '') {
    const problem = logoProblem(s.logo);
    if (problem) return problem;
  }
  for (const pattern of s.allowedBrokers) {
    const problem = brokerPatternProblem(pattern);
    if (problem) return problem;
  }
  return null;
};

export type ProviderChangeProblem = { readonly code: '[SIGNAL_PROVIDER_MEMBER_IMMUTABLE]' | '[SIGNAL_FEE_RAISE_NOT_ALLOWED]'; readonly message: string } | null;

/** What a PUT may not change: creation-only members, and fees going up. */
export const providerChangeProblem = (previous: SignalProviderSettings, next: SignalProviderSettings): ProviderChangeProblem => {
  for (const member of CREATION_ONLY_MEMBERS) {
    if (next[member] !== previous[member]) {
      return { code: '[SIGNAL_PROVIDER_MEMBER_IMMUTABLE]', message: `${member} is set at creation only (it is ${String(previous[member])})` };
    }
  }
  for (const member of LOWER_ONLY_MEMBERS) {
    if (next[member] > previous[member]) {
      return {
        code: '[SIGNAL_FEE_RAISE_NOT_ALLOWED]',
        message: `${member} may only be lowered after creation (it is ${previous[member]}; raising it needs the operator)`,
      };
    }
  }
  return null;
};

/** Whether a follower account's broker server is one the provider allows. */
export const brokerAllowed = (s: Pick<SignalProviderSettings, 'allowedBrokers'>, loginServer: string): boolean =>
  s.allowedBrokers.length === 0 || s.allowedBrokers.some((pattern) => new RegExp(`^(?:${pattern})$`).test(loginServer));

/** Whether a project other than the provider's may see and follow it: public, in the marketplace, or its owner listed. */
export const followableBy = (s: Pick<SignalProviderSettings, 'isPublic' | 'makeVisibleInMarketplace' | 'allowCustomers'>, ownerEmail: string | null): boolean =>
  s.isPublic ||
  s.makeVisibleInMarketplace ||
  (ownerEmail !== null && s.allowCustomers.some((email) => email.trim().toLowerCase() === ownerEmail.trim().toLowerCase()));

export const signalProviderFeature: FeatureDefinition<SignalProviderSettings> = {
  type: SIGNAL_PROVIDER,
  scopes: ['account'],
  multiple: false,
  members,
  defaults: signalProviderDefaults,
  description:
    "Makes the account a signal provider: accounts of other projects may follow its trades (FeatureSignalFollowerDTO with this feature's id as signalProviderId), each through a copier of its own that starts from `copier` and may override the members allowedOverrideFields allows. The provider sees its followers through /signals/{signalProviderId} only; followers see its public members, never its account. isPublic, allowOverrideCopierSetting, allowReselling, billingModel and coverFollowerCosts are set at creation only (400 [SIGNAL_PROVIDER_MEMBER_IMMUTABLE]); monthlySubscriptionFee and profitSharingFee may only be lowered (409 [SIGNAL_FEE_RAISE_NOT_ALLOWED]). Removing the feature while followers follow it: 409 [SIGNAL_PROVIDER_HAS_FOLLOWERS].",
  check: signalProviderProblem,
  stateMembers: ['verified', 'accessAllowed', 'subscribers'],
};
