// The webhook retry schedule (domain/webhook/backoff.ts): initial x multiplier^(n-1), capped.
import { expect } from 'chai';
import { backoffScheduleMs } from '../../../domain/webhook/backoff.js';
import { WEBHOOK_DEFAULTS } from '../../../domain/webhook/feature.js';

describe('webhook backoff schedule', () => {
  it('waits 10, 20, 40 ... 2560 s between the 10 attempts of the defaults (about 85 minutes in all)', () => {
    const waits = backoffScheduleMs(WEBHOOK_DEFAULTS);
    expect(waits).to.deep.equal([10, 20, 40, 80, 160, 320, 640, 1280, 2560].map((s) => s * 1000));
    expect(waits.reduce((a, b) => a + b, 0) / 60_000).to.be.closeTo(85.2, 0.1);
  });

  it('never waits longer than maxBackoffSeconds', () => {
    expect(backoffScheduleMs({ maxAttempts: 6, initialBackoffSeconds: 30, backoffMultiplier: 3, maxBackoffSeconds: 300 })).to.deep.equal([
      30_000, 90_000, 270_000, 300_000, 300_000,
    ]);
  });

  it('keeps fractional seconds and a constant wait with multiplier 1', () => {
    expect(backoffScheduleMs({ maxAttempts: 3, initialBackoffSeconds: 0.5, backoffMultiplier: 2, maxBackoffSeconds: 60 })).to.deep.equal([500, 1000]);
    expect(backoffScheduleMs({ maxAttempts: 4, initialBackoffSeconds: 2, backoffMultiplier: 1, maxBackoffSeconds: 60 })).to.deep.equal([2000, 2000, 2000]);
  });

  it('has no wait at all for a single attempt', () => {
    expect(backoffScheduleMs({ maxAttempts: 1, initialBackoffSeconds: 10, backoffMultiplier: 2, maxBackoffSeconds: 60 })).to.deep.equal([]);
  });
});
