// How the performance metrics (metrics.ts) round and total their figures: one rule for every figure.
import { Decimal } from 'decimal.js';

/** Rounds half away from zero, after dropping the binary noise of sums (-11.9 / 4 is -2.975, so -2.98). */
const Exact = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_UP });
const round = (x: number, places: number): number => new Exact(x.toPrecision(12)).toDecimalPlaces(places).toNumber() + 0;
export const money = (x: number): number => round(x, 2);
export const pct = (x: number): number => round(x, 2);
export const ratio = (x: number): number => round(x, 4);
export const hours = (ms: number): number => round(ms / 3_600_000, 2);
export const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);
export const mean = (xs: readonly number[]): number => (xs.length === 0 ? 0 : sum(xs) / xs.length);

export const rounded = (map: Record<string, number>): Record<string, number> => Object.fromEntries(Object.entries(map).map(([k, v]) => [k, money(v)]));
