import { describe, expect, it } from 'vitest';
import { MAX_WHEEL_CLICKS, wheelClicks } from './wheel-clicks.ts';

describe('wheelClicks', () => {
  it('makes one click per 100 pixels, either way, and keeps the rest for the next event', () => {
    expect(wheelClicks(0, 120)).toEqual({ clicks: 1, pending: 20 });
    expect(wheelClicks(20, 80)).toEqual({ clicks: 1, pending: 0 });
    expect(wheelClicks(0, -250)).toEqual({ clicks: -2, pending: -50 });
    expect(wheelClicks(-50, 40)).toEqual({ clicks: 0, pending: -10 });
  });

  it('gathers a touchpad’s small movements into clicks', () => {
    let pending = 0;
    let clicks = 0;
    for (let i = 0; i < 10; i++) {
      const step = wheelClicks(pending, 30);
      clicks += step.clicks;
      pending = step.pending;
    }
    expect(clicks).toBe(3);
    expect(pending).toBeCloseTo(0);
  });

  it('gives at most ten clicks for any delta, and drops the rest of it', () => {
    expect(wheelClicks(0, 1e20)).toEqual({ clicks: MAX_WHEEL_CLICKS, pending: 0 });
    expect(wheelClicks(0, -1_050)).toEqual({ clicks: -MAX_WHEEL_CLICKS, pending: -50 });
    // The rest of a huge delta is still less than a click, so the next event is not ten clicks too.
    const huge = wheelClicks(0, Number.MAX_VALUE);
    expect(huge.clicks).toBe(MAX_WHEEL_CLICKS);
    expect(Math.abs(huge.pending)).toBeLessThan(100);
    expect(wheelClicks(huge.pending, 0).clicks).toBe(0);
  });

  it('changes nothing for a delta that is not a finite number', () => {
    for (const delta of [Infinity, -Infinity, NaN]) {
      expect(wheelClicks(30, delta)).toEqual({ clicks: 0, pending: 30 });
    }
  });
});
