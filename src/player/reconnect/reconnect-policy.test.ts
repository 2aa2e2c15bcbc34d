import { describe, expect, it } from 'vitest';
import { ReconnectPolicy } from './reconnect-policy';

describe('ReconnectPolicy', () => {
  it('doubles the delay up to the cap without jitter', () => {
    const policy = new ReconnectPolicy({ initialDelayMs: 100, maxDelayMs: 1000, jitter: 0, maxAttempts: 6 });
    const delays = Array.from({ length: 6 }, () => policy.next()?.delayMs);
    expect(delays).toEqual([100, 200, 400, 800, 1000, 1000]);
  });

  it('numbers attempts and gives up after maxAttempts', () => {
    const policy = new ReconnectPolicy({ maxAttempts: 2, jitter: 0 });
    expect(policy.next()?.attempt).toBe(1);
    expect(policy.next()?.attempt).toBe(2);
    expect(policy.next()).toBeUndefined();
    expect(policy.attempt).toBe(2);
  });

  it('draws jitter below the nominal delay, within the jitter fraction', () => {
    const low = new ReconnectPolicy({ initialDelayMs: 1000, jitter: 0.5, random: () => 0.5 });
    const high = new ReconnectPolicy({ initialDelayMs: 1000, jitter: 0.5, random: () => 0 });
    expect(low.next()?.delayMs).toBe(750);
    expect(high.next()?.delayMs).toBe(1000);
  });

  it('starts over after reset', () => {
    const policy = new ReconnectPolicy({ initialDelayMs: 100, jitter: 0 });
    policy.next();
    policy.next();
    policy.reset();
    expect(policy.next()).toEqual({ attempt: 1, delayMs: 100 });
  });
});
