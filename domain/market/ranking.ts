// The marketplace's rules (spec: GET /marketplace "marketplace listing"; issue 19: it ranks the
// providers that chose to be visible by the score the performance metrics already compute):
// - listed: a signal provider (FeatureSignalProviderDTO) with makeVisibleInMarketplace true, whose
//   account is not deleted; every other provider (isPublic alone included) is not shown;
// - order: score (GET /accounts/{accountId}/performanceMetrics over the provider account's whole
//   history: the same function, not a second formula) highest first; equal scores by the sum of the
//   scoreBreakdown's points and penalties (finer than the rounded score), then the older provider, then
//   the id, so the order never depends on the database;
// - public data only: never the provider's account id, project, alias or login, nor the e-mail
//   addresses it allows or its subscribers (publicProviderSetting);
// - history: the provider account's closed trades only while makeHistoryPublic is true.
import { DomainError } from '../shared/errors.js';
import type { ScoreBreakdown } from '../analytics/score.js';

export const SIGNAL_PROVIDER_FEATURE = 'FeatureSignalProviderDTO';

export interface RankedProvider {
  readonly id: string;
  readonly created: string;
  readonly score: number;
  readonly scoreBreakdown: ScoreBreakdown;
}

/** The points of a breakdown, penalties included (the counts isLiveAccount, uniqueInstruments and uniqueAssetClasses are no points). */
export const breakdownPoints = (b: ScoreBreakdown): number =>
  Object.entries(b)
    .filter(([name, value]) => typeof value === 'number' && name !== 'uniqueInstruments' && name !== 'uniqueAssetClasses')
    .reduce((sum, [, value]) => sum + (value as number), 0);

export const isInMarketplace = (setting: Readonly<Record<string, unknown>>): boolean => setting.makeVisibleInMarketplace === true;

/** Best first: score, then the breakdown's points, then the older, then the id. */
export const rankProviders = <P extends RankedProvider>(providers: readonly P[]): P[] =>
  [...providers].sort(
    (a, b) =>
      b.score - a.score ||
      breakdownPoints(b.scoreBreakdown) - breakdownPoints(a.scoreBreakdown) ||
      Date.parse(a.created) - Date.parse(b.created) ||
      (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );

/** Copier members that name accounts or strategies of the provider's project. */
const PRIVATE_COPIER_MEMBERS = ['id', 'fromAccountId', 'fromAccountAlias', 'toAccountId', 'fromStrategyId', 'fromStrategyName', 'toStrategyId'];

/** The provider's setting as anyone may see it: no account, strategy or e-mail address of its project. */
export const publicProviderSetting = <S extends Readonly<Record<string, unknown>>>(setting: S): S => {
  const out: Record<string, unknown> = { ...setting };
  if (Array.isArray(out.allowCustomers)) out.allowCustomers = [];
  if (Array.isArray(out.subscribers)) out.subscribers = [];
  if ('customerId' in out) delete out.customerId;
  if (out.copier !== null && typeof out.copier === 'object') {
    out.copier = Object.fromEntries(Object.entries(out.copier).filter(([name]) => !PRIVATE_COPIER_MEMBERS.includes(name)));
  }
  return out as S;
};

export const checkProviderHistoryPublic = (providerId: string, setting: Readonly<Record<string, unknown>>): void => {
  if (setting.makeHistoryPublic !== true) {
    throw new DomainError('forbidden', '[SIGNAL_HISTORY_NOT_PUBLIC]', `signal provider ${providerId} keeps its history private`);
  }
};
