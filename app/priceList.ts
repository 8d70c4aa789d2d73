// The operator's price list (issue 23 "A price list in configuration (the operator's), money in
// decimal"): what a day of each billable thing costs, in one currency. Usage metering (domain/billing)
// prices account-days, feature-days and AI-tier days with it, and a signal provider's covered follower
// costs use its daily follower rate.
//
// Configuration, checked at start with the rest (app/config.ts), from either
//   PRICE_LIST_FILE  a path to a JSON file, or
//   PRICE_LIST       the same JSON inline (handy in containers and tests);
// setting both is refused; neither gives the built-in defaults below. Members left out keep their
// default, unknown members are refused (a typo would silently bill nothing), and every amount is a
// decimal string (never a JSON number: 0.1 is not exact in binary), at most 6 decimals, never negative:
//
//   {
//     "currency": "USD",                                   // USD, EUR or CHF (CurrencyTypeDTO ids 1, 2, 3)
//     "accountDaily": "0.50",                              // an account-day of any type not listed below
//     "accountDailyByType": { "11": "0.80" },              // per account type id (1 to 17)
//     "featureDaily": { "FeatureDedicatedIpDTO": "0.20" }, // per feature DTO name (FeatureTypeDTO.name); unlisted: free
//     "aiTierDaily": { "STANDARD": "0.30", "PRO": "1.00" },// the messaging connector's AI tiers; BASIC is free (spec)
//     "followerDaily": "0.50",                             // a follower-day a signal provider covers (coverFollowerCosts)
//     "invoiceDueDays": 14                                 // an invoice's due date, days after it is issued
//   }
import { readFileSync } from 'node:fs';
import { isAccountType } from '../domain/account/enums.js';
import { featureTypes } from '../domain/feature/types.js';

export type CurrencyCode = 'USD' | 'EUR' | 'CHF';

/** CurrencyTypeDTO's ids (reference: "1 for USD, 2 for EUR, 3 for CHF"). */
export const CURRENCY_IDS: Readonly<Record<CurrencyCode, number>> = { USD: 1, EUR: 2, CHF: 3 };

export type AiTier = 'STANDARD' | 'PRO';

export interface PriceList {
  readonly currency: CurrencyCode;
  /** Decimal text: an account-day of a type not in accountDailyByType. */
  readonly accountDaily: string;
  /** Account type id (as text) -> decimal text per day. */
  readonly accountDailyByType: Readonly<Record<string, string>>;
  /** Feature DTO name -> decimal text per day; a feature not listed is free. */
  readonly featureDaily: Readonly<Record<string, string>>;
  /** The messaging connector's billed AI tiers, decimal text per day (BASIC: no charge). */
  readonly aiTierDaily: Readonly<Record<AiTier, string>>;
  /** A follower-day a signal provider covers (coverFollowerCosts), decimal text. */
  readonly followerDaily: string;
  /** Days from an invoice's issue to its due date. */
  readonly invoiceDueDays: number;
}

export const DEFAULT_PRICE_LIST: PriceList = {
  currency: 'USD',
  accountDaily: '0.50',
  accountDailyByType: {},
  featureDaily: { FeatureDedicatedIpDTO: '0.20' },
  aiTierDaily: { STANDARD: '0.30', PRO: '1.00' },
  followerDaily: '0.50',
  invoiceDueDays: 14,
};

const MONEY = /^(0|[1-9]\d{0,8})(\.\d{1,6})?$/;
const KEYS = ['currency', 'accountDaily', 'accountDailyByType', 'featureDaily', 'aiTierDaily', 'followerDaily', 'invoiceDueDays'];
const FEATURE_NAMES = new Set(featureTypes.map((t) => t.dto));

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Reads a price list document over the defaults; throws `fail(message)` at the first wrong member. */
export const parsePriceList = (document: unknown, fail: (message: string) => Error, where = 'the price list'): PriceList => {
  if (!isObject(document)) throw fail(`${where} must be a JSON object`);
  const unknown = Object.keys(document).find((k) => !KEYS.includes(k));
  if (unknown) throw fail(`${where}: unknown member "${unknown}" (known: ${KEYS.join(', ')})`);
  const money = (name: string, value: unknown): string => {
    if (typeof value !== 'string' || !MONEY.test(value)) {
      throw fail(`${where}: ${name} must be a decimal string such as "0.50" (at most 6 decimals, not negative), got ${JSON.stringify(value)}`);
    }
    return value;
  };
  const table = (name: string, value: unknown, keyOk: (key: string) => boolean, keyText: string): Record<string, string> => {
    if (!isObject(value)) throw fail(`${where}: ${name} must be an object of ${keyText} to decimal strings`);
    const out: Record<string, string> = {};
    for (const [key, price] of Object.entries(value)) {
      if (!keyOk(key)) throw fail(`${where}: ${name} has "${key}", which is not ${keyText}`);
      out[key] = money(`${name}.${key}`, price);
    }
    return out;
  };
  const d = DEFAULT_PRICE_LIST;
  const currency = document.currency ?? d.currency;
  if (typeof currency !== 'string' || !(currency in CURRENCY_IDS)) throw fail(`${where}: currency must be USD, EUR or CHF, got ${JSON.stringify(currency)}`);
  const due = document.invoiceDueDays ?? d.invoiceDueDays;
  if (typeof due !== 'number' || !Number.isInteger(due) || due < 0 || due > 365) throw fail(`${where}: invoiceDueDays must be an integer from 0 to 365`);
  const tiers =
    document.aiTierDaily === undefined ? d.aiTierDaily : table('aiTierDaily', document.aiTierDaily, (k) => k === 'STANDARD' || k === 'PRO', 'STANDARD or PRO');
  return {
    currency: currency as CurrencyCode,
    accountDaily: document.accountDaily === undefined ? d.accountDaily : money('accountDaily', document.accountDaily),
    accountDailyByType:
      document.accountDailyByType === undefined
        ? d.accountDailyByType
        : table('accountDailyByType', document.accountDailyByType, (k) => /^\d+$/.test(k) && isAccountType(Number(k)), 'an account type id (1 to 17)'),
    featureDaily:
      document.featureDaily === undefined ? d.featureDaily : table('featureDaily', document.featureDaily, (k) => FEATURE_NAMES.has(k), 'a feature DTO name'),
    aiTierDaily: { STANDARD: tiers.STANDARD ?? d.aiTierDaily.STANDARD, PRO: tiers.PRO ?? d.aiTierDaily.PRO },
    followerDaily: document.followerDaily === undefined ? d.followerDaily : money('followerDaily', document.followerDaily),
    invoiceDueDays: due,
  };
};

/** PRICE_LIST_FILE or PRICE_LIST (not both), else the defaults. */
export const loadPriceList = (env: NodeJS.ProcessEnv, fail: (message: string) => Error): PriceList => {
  const file = env.PRICE_LIST_FILE?.trim() || null;
  const inline = env.PRICE_LIST?.trim() || null;
  if (file && inline) throw fail('PRICE_LIST_FILE and PRICE_LIST are both set: give the price list one way');
  let text: string;
  if (file) {
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw fail(`PRICE_LIST_FILE ${file} cannot be read: ${error instanceof Error ? error.message : String(error)}`);
    }
  } else if (inline) text = inline;
  else return DEFAULT_PRICE_LIST;
  const where = file ? `PRICE_LIST_FILE ${file}` : 'PRICE_LIST';
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw fail(`${where} is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  return parsePriceList(document, fail, where);
};

/** The price of one account-day of `accountTypeId`. */
export const accountDailyPrice = (list: PriceList, accountTypeId: number): string => list.accountDailyByType[String(accountTypeId)] ?? list.accountDaily;

/** The price of one day of a feature (by its DTO name); null when the feature is free. */
export const featureDailyPrice = (list: PriceList, featureDto: string): string | null => list.featureDaily[featureDto] ?? null;

/** The price of one day of an AI tier; BASIC (and anything else) is free. */
export const aiTierDailyPrice = (list: PriceList, tier: string): string | null => (tier === 'STANDARD' || tier === 'PRO' ? list.aiTierDaily[tier] : null);
