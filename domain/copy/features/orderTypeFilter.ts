// FeatureOrderTypeFilterDTO (spec: allowedOrderTypes; empty or null = all order types copied).
import { type Static, Type } from '@sinclair/typebox';
import type { OrderType } from '../types.js';
import { type CopierFeature, skip } from './rules.js';

const ORDER_TYPES = ['Buy', 'Sell', 'BuyLimit', 'SellLimit', 'BuyStop', 'SellStop'] as const;

const members = Type.Object({
  allowedOrderTypes: Type.Union([Type.Array(Type.Union(ORDER_TYPES.map((t) => Type.Literal(t))), { uniqueItems: true, maxItems: 6 }), Type.Null()], {
    description: 'the master order types that are copied; empty or null = all',
  }),
});
export type OrderTypeFilterSettings = Static<typeof members>;

export const orderTypeFilter: CopierFeature<OrderTypeFilterSettings> = {
  type: 'FeatureOrderTypeFilterDTO',
  scopes: ['copier'],
  multiple: false,
  members,
  defaults: { allowedOrderTypes: null },
  description:
    "Copies only master trades of the allowed order types (the master's type, before reverse). A master pending order that was not copied and then fills becomes a position of its side (Buy or Sell) and is judged as that. Skip reason ORDER_TYPE_FILTERED.",
  rules: {
    filterOpen: (s, { trade }) => {
      const allowed = s.allowedOrderTypes;
      if (!allowed || allowed.length === 0) return null;
      return allowed.includes(trade.orderType as OrderType & (typeof ORDER_TYPES)[number])
        ? null
        : skip('ORDER_TYPE_FILTERED', `${trade.orderType} is not among the allowed order types ${allowed.join(', ')}`);
    },
  },
};
