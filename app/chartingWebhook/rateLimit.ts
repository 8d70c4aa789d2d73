// The per-webhook rate limit (FeatureChartingWebhookDTO.rateLimitPerMinute, ours): a sliding minute of
// accepted alerts per webhook, kept by each instance in memory (an instance behind a balancer counts its
// own share). Refused alerts are not stored, so a flood costs nothing but the lookup.
import { performance } from 'node:perf_hooks';

const WINDOW_MS = 60_000;
/** Webhooks remembered; the longest quiet one is forgotten past this. */
const MAX_WEBHOOKS = 10_000;

export class ChartingRateLimiter {
  private readonly taken = new Map<string, number[]>();

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Takes one alert of `featureId`'s budget: null when allowed, else the seconds until one is free. */
  take(featureId: string, perMinute: number): number | null {
    const now = this.now();
    const times = (this.taken.get(featureId) ?? []).filter((t) => now - t < WINDOW_MS);
    if (times.length >= perMinute) {
      this.taken.set(featureId, times);
      return Math.max(1, Math.ceil((WINDOW_MS - (now - times[0]!)) / 1000));
    }
    times.push(now);
    this.taken.delete(featureId);
    if (this.taken.size >= MAX_WEBHOOKS) this.taken.delete(this.taken.keys().next().value!);
    this.taken.set(featureId, times);
    return null;
  }
}

export const chartingRateLimiter = new ChartingRateLimiter();
