// The retry schedule of a webhook (our design; the spec says "exponential backoff"): the wait after
// failed attempt n is initialBackoffSeconds x backoffMultiplier^(n-1), at most maxBackoffSeconds, with
// no jitter (each webhook is its own endpoint, so there is no herd to spread). With the defaults
// (10 attempts, 10 s, x2, 1 h cap): 10, 20, 40, 80, 160, 320, 640, 1280, 2560 s, about 85 minutes.

export interface RetryPolicy {
  readonly maxAttempts: number;
  readonly initialBackoffSeconds: number;
  readonly backoffMultiplier: number;
  readonly maxBackoffSeconds: number;
}

/** The waits in milliseconds after failed attempts 1 .. maxAttempts - 1. */
export const backoffScheduleMs = (policy: RetryPolicy): number[] => {
  const waits: number[] = [];
  let seconds = policy.initialBackoffSeconds;
  for (let n = 1; n < policy.maxAttempts; n++) {
    waits.push(Math.round(Math.min(seconds, policy.maxBackoffSeconds) * 1000));
    seconds *= policy.backoffMultiplier;
  }
  return waits;
};
