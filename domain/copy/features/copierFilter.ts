// FeatureCopierFilterDTO (spec: minLotSize, maxLotSize): the master's lot below min or above max is not
// copied; null or 0 disables that bound.
import { type Static, Type } from '@sinclair/typebox';
import { exact, show } from '../../shared/decimal.js';
import { type CopierFeature, skip } from './rules.js';

const members = Type.Object({
  minLotSize: Type.Union([Type.Number({ minimum: 0, maximum: 1e6 }), Type.Null()], {
    description: 'master lots below are not copied; null or 0 = no lower bound',
  }),
  maxLotSize: Type.Union([Type.Number({ minimum: 0, maximum: 1e6 }), Type.Null()], {
    description: 'master lots above are not copied; null or 0 = no upper bound',
  }),
});
export type CopierFilterSettings = Static<typeof members>;

const bound = (value: number | null): number | null => (value === null || value === 0 ? null : value);

export const copierFilter: CopierFeature<CopierFilterSettings> = {
  type: 'FeatureCopierFilterDTO',
  scopes: ['copier'],
  multiple: false,
  members,
  defaults: { minLotSize: null, maxLotSize: null },
  description: "Copies only master trades whose lot is within [minLotSize, maxLotSize] (the master's lot, before any sizing). Skip reason LOT_FILTERED.",
  check: (s) => {
    const min = bound(s.minLotSize);
    const max = bound(s.maxLotSize);
    return min !== null && max !== null && min > max ? `minLotSize ${min} is above maxLotSize ${max}` : null;
  },
  rules: {
    filterOpen: (s, { trade }) => {
      const lot = exact(trade.volume);
      const min = bound(s.minLotSize);
      const max = bound(s.maxLotSize);
      if (min !== null && lot.lessThan(exact(min))) return skip('LOT_FILTERED', `the master lot ${show(lot)} is below the filter's minimum ${min}`);
      if (max !== null && lot.greaterThan(exact(max))) return skip('LOT_FILTERED', `the master lot ${show(lot)} is above the filter's maximum ${max}`);
      return null;
    },
  },
};
